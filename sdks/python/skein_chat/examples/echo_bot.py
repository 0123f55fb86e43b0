"""Echo bot: answers each message addressed to it with the same text, to the same audience.
Env: SKEIN_URL, SKEIN_TOKEN (or SKEIN_API_KEY), SKEIN_CURSOR_FILE (optional: resume there after a restart)."""
from skein_chat import Bot, Message

bot = Bot.from_env()


@bot.on_message
async def echo(message: Message) -> None:
    await message.reply(f"echo: {message.content}")


bot.run()  # reconnects for ever; Ctrl-C or SIGTERM stops it cleanly
