"""The echo bot behind a webhook endpoint: Skein POSTs each event to it; it answers, then handles. Env: SKEIN_URL,
SKEIN_TOKEN or SKEIN_API_KEY, BOT_PORT (8700), BOT_PUBLIC_URL (loopback: SKEIN_WEBHOOK_ALLOW_PRIVATE=true on Skein)."""
import os

from skein_chat import Bot, Message

bot = Bot.from_env()


@bot.on_message
async def echo(message: Message) -> None:
    await message.reply(f"echo: {message.content}")


bot.run_webhook(port=int(os.environ.get("BOT_PORT", "8700")), public_url=os.environ.get("BOT_PUBLIC_URL"))
