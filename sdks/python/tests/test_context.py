"""``Message.context()`` against a running Skein (issue 41 item 3): the conversation a message belongs
to, as the bot may see it, read with one call and kept per message; with ``include_context=True`` the
socket frame (or the webhook delivery, whose endpoint option ``run_webhook`` turns on) carries it and
no call is made. Also the clients' ``message_context`` and ``set_endpoint_options``."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

from skein_chat import Bot, Message, SkeinError

from .conftest import User


async def until(condition: Callable[[], bool], what: str, timeout: float = 30) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


@asynccontextmanager
async def running(bot: Bot) -> AsyncIterator[None]:
    task = asyncio.create_task(bot.run_async())
    try:
        await until(lambda: bot.uid is not None or task.done(), "the bot to connect")
        yield
    finally:
        bot.stop()
        await asyncio.wait_for(task, 60)


def post(author: User, content: str, to: str, **fields: Any) -> dict[str, Any]:
    return author.client.post(content, recipients=[f"uid:{to}"], **fields)


def test_when_a_handler_asks_for_the_context_then_it_gets_the_conversation_as_the_bot_sees_it_read_once(
    base_url: str, new_writer: Callable[[], User], new_bot: Callable[[User], User]
) -> None:
    alice = new_writer()
    me = new_bot(alice)

    async def scenario() -> None:
        bot = Bot(base_url, token=me.client.token)
        seen: list[tuple[Message, dict[str, Any], dict[str, Any]]] = []

        @bot.on_message
        async def answer(message: Message) -> None:
            first = await message.context()
            second = await message.context()
            await message.reply(f"echo: {message.content}")
            seen.append((message, first, second))

        async with running(bot):
            root = await asyncio.to_thread(post, alice, "what is 2 + 2?", me.uid)
            await until(lambda: len(seen) == 1, "the first message")
            echo_id = (await asyncio.to_thread(alice.client.get_message, root["id"]))["reply_ids"][0]
            follow_up = await asyncio.to_thread(post, alice, "and 3 + 3?", me.uid, parent_id=echo_id)
            await until(lambda: len(seen) == 2, "the follow-up")

        message, first, second = seen[1]
        assert message.id == follow_up["id"]
        assert "message_context" not in message.data  # not asked for: context() read it
        assert second is first  # once per message
        assert first == await asyncio.to_thread(me.client.message_context, follow_up["id"])
        assert [(e["role"], e["content"]) for e in first["entries"]] == [
            ("user", "what is 2 + 2?"),
            ("assistant", "echo: what is 2 + 2?"),
            ("user", "and 3 + 3?"),
        ]
        # The event's own short list of ancestors is still there, under its own name.
        assert [a["id"] for a in message.ancestors] == [root["id"], echo_id]

    asyncio.run(scenario())


def test_when_the_bot_runs_with_include_context_then_the_frame_carries_the_context_and_no_call_is_made(
    base_url: str, new_writer: Callable[[], User], new_bot: Callable[[User], User]
) -> None:
    alice = new_writer()
    me = new_bot(alice)

    async def scenario() -> None:
        bot = Bot(base_url, token=me.client.token, include_context=True)
        seen: list[tuple[Message, dict[str, Any]]] = []

        @bot.on_message
        async def answer(message: Message) -> None:
            seen.append((message, await message.context()))

        async with running(bot):
            sent = await asyncio.to_thread(post, alice, "carried along", me.uid)
            await until(lambda: bool(seen), "the message")

        message, context = seen[0]
        assert context is message.data["message_context"]
        assert context == await asyncio.to_thread(me.client.message_context, sent["id"])

    asyncio.run(scenario())


def test_when_a_plain_function_handler_calls_context_sync_then_it_gets_the_context(
    base_url: str, new_writer: Callable[[], User], new_bot: Callable[[User], User]
) -> None:
    alice = new_writer()
    me = new_bot(alice)

    async def scenario() -> None:
        bot = Bot(base_url, token=me.client.token)
        contexts: list[dict[str, Any]] = []
        threads: list[threading.Thread] = []

        @bot.on_message
        def answer(message: Message) -> None:
            threads.append(threading.current_thread())
            contexts.append(message.context_sync())

        async with running(bot):
            sent = await asyncio.to_thread(post, alice, "from a thread", me.uid)
            await until(lambda: bool(contexts), "the context")

        assert threads[0] is not threading.main_thread()
        assert contexts[0]["message_id"] == sent["id"]
        assert [e["content"] for e in contexts[0]["entries"]] == ["from a thread"]

    asyncio.run(scenario())


def test_when_the_webhook_bot_runs_with_include_context_then_the_endpoint_asks_for_it_and_deliveries_carry_it(
    base_url: str, new_writer: Callable[[], User], new_bot: Callable[[User], User]
) -> None:
    alice = new_writer()
    me = new_bot(alice)

    async def scenario() -> None:
        bot = Bot(base_url, token=me.client.token, include_context=True)
        seen: list[tuple[Message, dict[str, Any]]] = []

        @bot.on_message
        async def answer(message: Message) -> None:
            seen.append((message, await message.context()))

        task = asyncio.create_task(bot.run_webhook_async(host="127.0.0.1", port=0))
        try:
            await until(lambda: bot.webhook is not None and bot.webhook.secret is not None, "the endpoint")
            options = await asyncio.to_thread(alice.client.set_endpoint_options, me.uid, include_context=True)
            assert options["include_context"] is True and options["enabled"] is True
            sent = await asyncio.to_thread(post, alice, "by webhook, with context", me.uid)
            await until(lambda: bool(seen), "the delivery")
        finally:
            bot.stop()
            await asyncio.wait_for(task, 60)

        message, context = seen[0]
        assert message.id == sent["id"]
        assert context is message.data["message_context"]
        assert [e["content"] for e in context["entries"]] == ["by webhook, with context"]

    asyncio.run(scenario())


def test_when_the_context_of_an_invisible_message_is_read_or_a_stranger_sets_endpoint_options_then_404_and_403(
    new_writer: Callable[[], User], new_bot: Callable[[User], User]
) -> None:
    alice, stranger = new_writer(), new_writer()
    hidden = alice.client.post("only mine")
    with pytest.raises(SkeinError) as missing:
        stranger.client.message_context(hidden["id"])
    assert (missing.value.status, missing.value.code) == (404, "message_not_found")
    bounded = alice.client.message_context(hidden["id"], limit=1, max_chars=3)
    assert (bounded["entries"][0]["content"], bounded["truncated"]) == ("only mine", False)
    me = new_bot(alice)
    with pytest.raises(SkeinError) as refused:
        stranger.client.set_endpoint_options(me.uid, include_context=True)
    assert (refused.value.status, refused.value.code) == (403, "not_manager")
