"""Stream bot: answers each message with a reply that streams in word by word, showing "typing" and a
status first; readers see it grow and may stop it. Env as the echo bot's."""

import asyncio
from collections.abc import AsyncIterator

from skein_chat import Bot, Message


async def answer(question: str) -> AsyncIterator[str]:
    """Stands in for a model client's streamed answer: a word every 50 ms."""
    for word in f'You asked: "{question}". Here is a long answer, word by word.'.split(" "):
        await asyncio.sleep(0.05)
        yield word + " "


bot = Bot.from_env()  # shows "typing" on each message while its handler runs


@bot.on_message
async def reply(message: Message) -> None:
    await message.set_status("thinking…")
    async with message.reply_stream() as stream:
        await stream.pipe(answer(message.content))


bot.run()  # reconnects for ever; Ctrl-C or SIGTERM stops it cleanly
