"""Context bot: reads the conversation of each message as the bot may see it (its starting context, the
thread from the root down, the message), the turns a chat model is given. Env: SKEIN_URL, SKEIN_TOKEN."""
from skein_chat import Bot, Message

bot = Bot.from_env(include_context=True)  # each event carries its messages' context


@bot.on_message
async def answer(message: Message) -> None:
    entries = (await message.context())["entries"]  # [{"role": "user" | "assistant", "content", ...}]
    turns = [{"role": e["role"], "content": e["content"]} for e in entries]  # hand these to your model
    await message.reply(f'{len(turns)} message(s) in view; the first: "{turns[0]["content"]}"')


bot.run()
