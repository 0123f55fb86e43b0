"""Streamed replies from Python (issue 51 item 4) against a running Skein: ``ReplyStream`` pipes an
async iterator of strings into one reply; an exception inside the block posts what was written
marked ``incomplete`` and propagates; a reader's stop closes the source, is suppressed, and the reply
records who stopped it. ``Typing`` shows a status while work runs."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import pytest

from skein_chat import AsyncSkeinClient, Bot, Message, ReplyStream, SkeinSocket, StreamStopped, Typing

from .conftest import User
from .test_context import running, until


def run_async(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Runs an async test body on a fresh event loop (the suite has no async plugin)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


def writers(new_writer: Callable[[], User]) -> tuple[User, User]:
    return new_writer(), new_writer()


async def words(text: str, closed: list[bool] | None = None) -> AsyncIterator[str]:
    try:
        for word in text.split(" "):
            yield word + " "
    finally:
        if closed is not None:
            closed.append(True)


@run_async
async def test_pipe_posts_one_reply_equal_to_the_chunks(new_writer: Callable[[], User], base_url: str) -> None:
    asker, bot = writers(new_writer)
    question = asker.client.post("explain streams", recipients=[bot.tag])
    async with AsyncSkeinClient(base_url, token=bot.client.token) as client:
        async with ReplyStream(client, question["id"], min_interval=0) as stream:
            await stream.pipe(words("a reply written word by word"))
    assert stream.message is not None
    assert stream.message["content"] == "a reply written word by word "
    assert stream.message["parent_id"] == question["id"]
    read = asker.client.get_message(stream.message["id"])
    assert read["stream"] == {"id": stream.stream_id, "ended": "finished", "stopped_by": None}


@run_async
async def test_an_exception_posts_what_was_written_marked_incomplete(
    new_writer: Callable[[], User], base_url: str
) -> None:
    asker, bot = writers(new_writer)
    question = asker.client.post("fail midway", recipients=[bot.tag])
    async with AsyncSkeinClient(base_url, token=bot.client.token) as client:
        stream = ReplyStream(client, question["id"], min_interval=0)
        with pytest.raises(RuntimeError, match="model went away"):
            async with stream:
                await stream.write("half an ")
                raise RuntimeError("model went away")
    assert stream.message is not None
    assert stream.message["content"] == "half an "
    assert stream.message["stream"]["ended"] == "incomplete"


@run_async
async def test_a_readers_stop_closes_the_source_and_is_recorded(
    new_writer: Callable[[], User], base_url: str
) -> None:
    asker, bot = writers(new_writer)
    question = asker.client.post("a long answer please", recipients=[bot.tag])
    closed: list[bool] = []
    async with AsyncSkeinClient(base_url, token=bot.client.token) as client:
        stream = ReplyStream(client, question["id"], min_interval=0)

        async def endless() -> AsyncIterator[str]:
            try:
                yield "first "
                asker.client.request("POST", f"/v1/streams/{stream.stream_id}/stop")
                while True:
                    yield "more "
            finally:
                closed.append(True)

        async with stream:
            await stream.pipe(endless())
            raise AssertionError("pipe returned although the stream was stopped")
    assert stream.stopped and closed == [True]
    assert stream.message is not None
    assert stream.message["content"].startswith("first ")
    assert stream.message["stream"]["ended"] == "stopped"
    assert stream.message["stream"]["stopped_by"]["uid"] == asker.uid
    with pytest.raises(StreamStopped):
        await stream.write("after the end")


@run_async
async def test_typing_status_and_stop_are_answered(new_writer: Callable[[], User], base_url: str) -> None:
    asker, bot = writers(new_writer)
    question = asker.client.post("are you there?", recipients=[bot.tag])
    async with AsyncSkeinClient(base_url, token=bot.client.token) as client:
        typing = Typing(client, question["id"]).start()
        await typing.set_status("searching the docs…")
        await typing.stop()
        # The same signal, sent by hand, is accepted: the keeper spoke the service's language.
        answer = await client.request("POST", "/v1/typing", {"message_id": question["id"], "op": "stop"})
        assert answer["op"] == "stop"


@run_async
async def test_a_bot_streams_its_reply_and_a_reader_sees_typing_and_the_stream(
    base_url: str, new_writer: Callable[[], User], new_bot: Callable[[User], User]
) -> None:
    alice = new_writer()
    me = new_bot(alice)
    bot = Bot(base_url, token=me.client.token)
    replies: list[Any] = []

    @bot.on_message
    async def answer(message: Message) -> None:
        await message.set_status("thinking")
        async with message.reply_stream() as stream:
            await stream.pipe(words("streamed from python"))
        replies.append(stream.message)

    frames: list[dict[str, Any]] = []
    reader = SkeinSocket(base_url, token=alice.client.token, on_live=frames.append)
    await reader.connect()
    listening = asyncio.create_task(_drain(reader))
    try:
        async with running(bot):
            await asyncio.to_thread(alice.client.post, "stream to me", recipients=[me.tag])
            await until(lambda: len(replies) == 1, "the streamed reply")
            await until(lambda: any(f["type"] == "stream.ended" for f in frames), "the end frame")
    finally:
        await reader.close()
        listening.cancel()
    assert replies[0]["content"] == "streamed from python "
    assert replies[0]["stream"]["ended"] == "finished"
    kinds = [f["type"] for f in frames]
    assert "typing.started" in kinds and "stream.opened" in kinds
    assert next(f for f in frames if f["type"] == "typing.started")["status"] == "thinking"
    text = "".join(f["text"] for f in frames if f["type"] == "stream.appended")
    assert text == "streamed from python "


async def _drain(socket: SkeinSocket) -> None:
    async for _ in socket.notifications():
        pass
