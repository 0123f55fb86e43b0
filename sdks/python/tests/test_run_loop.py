"""Bot, the run loop, against a running Skein: which events reach the handlers, replies that keep the
audience, the bound on concurrent handlers, the cursor that only moves past finished events, a
restart from the cursor file, refusals, and the same handler behind a webhook endpoint."""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from skein_chat import AsyncSkeinClient, Backoff, Bot, Message, MessageRejected, SkeinClient, SkeinError, SocketRefused

from .conftest import User


async def until(condition: Callable[[], bool], what: str, timeout: float = 30) -> None:
    """Waits for a condition (generously: the machine may be loaded); fails naming what never came."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


@asynccontextmanager
async def running(bot: Bot) -> AsyncIterator[asyncio.Task[None]]:
    """Runs the bot's socket loop until the block ends, then stops it as SIGTERM would."""
    task = asyncio.create_task(bot.run_async())
    try:
        await until(lambda: bot.uid is not None or task.done(), "the bot to connect")
        yield task
    finally:
        bot.stop()
        await asyncio.wait_for(task, 60)


async def send(author: User, content: str, to: list[str]) -> dict[str, Any]:
    return await asyncio.to_thread(author.client.post, content, recipients=[f"uid:{uid}" for uid in to])


def saved_cursor(path: Path) -> str:
    return str(json.loads(path.read_text())["cursor"])


def test_when_messages_reach_the_bot_then_sent_and_ping_are_handled_once_and_its_own_and_context_are_not(
    base_url: str, new_writer: Callable[[], User], new_bot: Callable[[User], User]
) -> None:
    alice, carol = new_writer(), new_writer()
    me = new_bot(alice)

    async def scenario() -> None:
        bot = Bot(base_url, token=me.client.token)
        handled: list[tuple[str, str]] = []
        replies: dict[str, dict[str, Any]] = {}

        @bot.on_message
        async def echo(message: Message) -> None:
            handled.append((message.event_type, message.content))
            assert message.author_uid == alice.uid and message.author_tag == alice.tag
            replies[message.content] = await message.reply(f"echo: {message.content}")

        async with running(bot):
            assert bot.uid == me.uid
            first = await send(alice, "hello bot", [me.uid, carol.uid])
            await until(lambda: "hello bot" in replies, "the echo")
            # The reply keeps the audience: the author and the CC recipient both see it.
            echo_id = replies["hello bot"]["id"]
            assert (await asyncio.to_thread(carol.client.get_message, echo_id))["content"] == "echo: hello bot"
            assert (await asyncio.to_thread(alice.client.get_message, echo_id))["parent_id"] == first["id"]

            # A ping on alice's message is for the bot; a ping on the bot's own reply is not, and
            # being added to a message is context only.
            await asyncio.to_thread(
                alice.client.request, "POST", f"/v1/messages/{first['id']}/ping", {"recipients": [f"uid:{me.uid}"]}
            )
            await asyncio.to_thread(
                alice.client.request, "POST", f"/v1/messages/{echo_id}/ping", {"recipients": [f"uid:{me.uid}"]}
            )
            later = await send(alice, "context only", [carol.uid])
            await asyncio.to_thread(
                alice.client.request,
                "POST",
                "/v1/recipients/add",
                {"message_id": later["id"], "recipients": [f"uid:{me.uid}"]},
            )
            await send(alice, "last one", [me.uid])
            await until(lambda: "last one" in replies, "the last echo")
        # Events come in order: by the last message's turn, every earlier event was judged.
        assert handled == [("sent", "hello bot"), ("ping", "hello bot"), ("sent", "last one")]

    asyncio.run(scenario())


def test_when_a_handler_is_a_plain_function_then_it_runs_on_a_thread_and_reply_sync_answers(
    base_url: str, new_writer: Callable[[], User], new_bot: Callable[[User], User]
) -> None:
    alice = new_writer()
    me = new_bot(alice)

    async def scenario() -> None:
        bot = Bot(base_url, token=me.client.token)
        replies: list[dict[str, Any]] = []
        threads: list[threading.Thread] = []

        @bot.on_message
        def echo(message: Message) -> None:
            threads.append(threading.current_thread())
            replies.append(message.reply_sync(f"echo: {message.content}"))

        async with running(bot):
            await send(alice, "from a thread", [me.uid])
            await until(lambda: bool(replies), "the echo")
        assert threads[0] is not threading.main_thread()
        assert (await asyncio.to_thread(alice.client.get_message, replies[0]["id"]))["content"] == "echo: from a thread"

    asyncio.run(scenario())


def test_when_handlers_are_busy_then_at_most_concurrency_run_and_the_cursor_waits_for_the_unfinished(
    base_url: str, new_writer: Callable[[], User], new_bot: Callable[[User], User], tmp_path: Path
) -> None:
    alice = new_writer()
    me = new_bot(alice)
    cursor_file = tmp_path / "bot.cursor"

    async def scenario() -> None:
        bot = Bot(base_url, token=me.client.token, cursor_file=cursor_file, concurrency=2)
        gates = {"m1": asyncio.Event(), "m2": asyncio.Event()}
        timeline: list[str] = []
        running_now = 0
        most = 0

        @bot.on_message
        async def slow(message: Message) -> None:
            nonlocal running_now, most
            running_now += 1
            most = max(most, running_now)
            timeline.append(f"start {message.content}")
            if message.content in gates:
                await gates[message.content].wait()
            timeline.append(f"end {message.content}")
            running_now -= 1

        def started(content: str) -> bool:
            return f"start {content}" in timeline

        async with running(bot):
            first_start = saved_cursor(cursor_file)  # a first start writes where it begins
            for content in ("m1", "m2", "m3"):
                await send(alice, content, [me.uid])
            await until(lambda: started("m1") and started("m2"), "two handlers")
            assert saved_cursor(cursor_file) == first_start

            timeline.append("release m2")
            gates["m2"].set()
            await until(lambda: "end m3" in timeline, "the third handler, once a slot was free")
            # m2 and m3 are done, m1 is not: the cursor stays before m1.
            assert saved_cursor(cursor_file) == first_start

            gates["m1"].set()
            everything = await asyncio.to_thread(me.client.notifications, first_start)
            await until(lambda: bot.cursor == everything["cursor"], "the cursor past m3")
            assert saved_cursor(cursor_file) == everything["cursor"]
        assert most == 2
        assert timeline.index("start m3") > timeline.index("release m2")

    asyncio.run(scenario())


def test_when_the_bot_restarts_with_its_cursor_file_then_it_handles_what_came_meanwhile_and_nothing_twice(
    base_url: str, new_writer: Callable[[], User], new_bot: Callable[[User], User], tmp_path: Path
) -> None:
    alice = new_writer()
    me = new_bot(alice)
    cursor_file = tmp_path / "state" / "bot.cursor"

    async def run_once(send_while_up: str, handled: list[str]) -> None:
        bot = Bot(base_url, token=me.client.token, cursor_file=cursor_file)

        @bot.on_message
        async def record(message: Message) -> None:
            handled.append(message.content)

        async with running(bot):
            await send(alice, send_while_up, [me.uid])
            await until(lambda: send_while_up in handled, send_while_up)

    async def scenario() -> None:
        first: list[str] = []
        await run_once("before", first)
        await send(alice, "while down", [me.uid])
        second: list[str] = []
        await run_once("after", second)
        assert first == ["before"]
        assert second == ["while down", "after"]

    asyncio.run(scenario())


def test_when_the_token_is_refused_then_run_ends_with_socket_refused(base_url: str) -> None:
    bot = Bot(base_url, token="svc_session_0000000000000000.nope")
    with pytest.raises(SocketRefused) as caught:
        asyncio.run(asyncio.wait_for(bot.run_async(), 60))
    assert caught.value.code == 4401 and caught.value.final


def test_when_neither_a_token_nor_a_key_is_given_then_the_error_names_the_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SKEIN_TOKEN", raising=False)
    monkeypatch.delenv("SKEIN_API_KEY", raising=False)
    with pytest.raises(ValueError, match="SKEIN_TOKEN.*SKEIN_API_KEY"):
        Bot.from_env()
    monkeypatch.setenv("SKEIN_URL", "http://skein.example:8080/")
    monkeypatch.setenv("SKEIN_API_KEY", "sk_test")
    monkeypatch.setenv("SKEIN_CURSOR_FILE", "/tmp/bot.cursor")
    bot = Bot.from_env(concurrency=8)
    assert (bot.base_url, bot.api_key, bot.token, str(bot.cursor_file), bot.concurrency) == (
        "http://skein.example:8080",
        "sk_test",
        None,
        "/tmp/bot.cursor",
        8,
    )


def test_when_attempts_keep_failing_then_the_waits_double_with_jitter_up_to_the_cap() -> None:
    backoff = Backoff(0.5, 8.0, rng=random.Random(7))
    waits = [backoff.next() for _ in range(7)]
    ceilings = [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert all(c / 2 <= w <= c for w, c in zip(waits, ceilings)), waits
    assert len(set(waits)) == len(waits)  # jittered: no two the same
    backoff.reset()
    assert 0.25 <= backoff.next() <= 0.5


def test_when_events_come_as_webhooks_then_each_delivery_is_answered_before_its_handler_finishes(
    base_url: str, new_writer: Callable[[], User], new_bot: Callable[[User], User]
) -> None:
    alice = new_writer()
    me = new_bot(alice)

    def delivery_state(message_id: str) -> str | None:
        page = alice.client.request("GET", f"/v1/managed/users/{me.uid}/deliveries")
        for delivery in page["deliveries"]:
            messages = (delivery["event"] or {}).get("content", {}).get("messages", [])
            if message_id in [m["id"] for m in messages]:
                return str(delivery["state"])
        return None

    async def scenario() -> None:
        bot = Bot(base_url, token=me.client.token)
        gate = asyncio.Event()
        started: list[str] = []
        replies: list[dict[str, Any]] = []

        @bot.on_message
        async def slow(message: Message) -> None:
            started.append(message.id)
            await gate.wait()
            replies.append(await message.reply(f"echo: {message.content}"))

        task = asyncio.create_task(bot.run_webhook_async(host="127.0.0.1", port=0))
        try:
            await until(lambda: bot.webhook is not None and bot.webhook.secret is not None, "the endpoint")
            sent = await send(alice, "by webhook", [me.uid])
            await until(lambda: started == [sent["id"]], "the handler")
            state: list[str | None] = [None]

            async def poll() -> bool:
                state[0] = await asyncio.to_thread(delivery_state, sent["id"])
                return state[0] == "delivered"

            # Delivered (answered 2xx) while the handler still waits for the gate.
            deadline = asyncio.get_running_loop().time() + 30
            while not await poll():
                assert asyncio.get_running_loop().time() < deadline, f"delivery state {state[0]}"
                await asyncio.sleep(0.2)
            assert replies == []
            gate.set()
            await until(lambda: bool(replies), "the echo")
            echo = await asyncio.to_thread(alice.client.get_message, replies[0]["id"])
            assert (echo["content"], echo["parent_id"]) == ("echo: by webhook", sent["id"])
        finally:
            gate.set()
            bot.stop()
            await asyncio.wait_for(task, 60)

    asyncio.run(scenario())


def test_when_the_async_client_is_used_then_it_answers_as_the_sync_one(
    base_url: str, new_writer: Callable[[], User]
) -> None:
    alice, bob = new_writer(), new_writer()

    async def scenario() -> None:
        async with AsyncSkeinClient(base_url, token=alice.client.token) as client:
            posted = await client.post("async hello", recipients=[f"uid:{bob.uid}"])
            assert (await client.get_message(posted["id"]))["content"] == "async hello"
            with pytest.raises(MessageRejected):
                await client.post("to nobody", recipients=[f"uid:{'0' * 8}"])
            with pytest.raises(SkeinError) as caught:
                await client.get_message("0" * 8)
            assert caught.value.status == 404
        async with AsyncSkeinClient(base_url, token=bob.client.token) as client:
            reply = await client.reply(posted, "async answer")
            assert reply["parent_id"] == posted["id"]
        with SkeinClient(base_url, token=alice.client.token) as sync:
            assert sync.get_message(reply["id"])["content"] == "async answer"

    asyncio.run(scenario())
