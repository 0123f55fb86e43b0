"""SkeinSocket against a running Skein: notifications arrive, and after a drop the socket resumes
from its last cursor, so what was posted meanwhile comes once, in order, and nothing repeats."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from skein_chat import SkeinSocket, SocketRefused

from .conftest import User


def message_ids(frame: dict[str, Any]) -> list[str]:
    return [m["id"] for m in frame["event"]["content"]["messages"]]


async def next_frame(frames: Any) -> dict[str, Any]:
    return await asyncio.wait_for(frames.__anext__(), timeout=20)


def test_when_the_socket_drops_then_it_resumes_from_its_last_cursor(
    base_url: str, new_writer: Callable[[], User]
) -> None:
    alice, bob = new_writer(), new_writer()

    async def scenario() -> None:
        socket = SkeinSocket(base_url, token=bob.client.token, reconnect_delay=0.1)
        ready = await socket.connect()
        assert ready["uid"] == bob.uid
        assert socket.last_cursor == ready["cursor"]
        frames = socket.notifications()
        first = await asyncio.to_thread(alice.client.post, "one", recipients=[f"uid:{bob.uid}"])
        frame = await next_frame(frames)
        assert message_ids(frame) == [first["id"]]
        assert socket.last_cursor == frame["cursor"]

        await socket.drop()
        missed = [
            (await asyncio.to_thread(alice.client.post, text, recipients=[f"uid:{bob.uid}"]))["id"]
            for text in ("two", "three")
        ]
        replayed = [message_ids(await next_frame(frames)) for _ in missed]
        assert replayed == [[mid] for mid in missed]

        live = await asyncio.to_thread(alice.client.post, "four", recipients=[f"uid:{bob.uid}"])
        assert message_ids(await next_frame(frames)) == [live["id"]]
        await socket.close()

    asyncio.run(scenario())


def test_when_the_token_is_wrong_then_the_socket_is_refused_for_good(base_url: str) -> None:
    async def scenario() -> None:
        socket = SkeinSocket(base_url, token="svc_session_0000000000000000.nope")
        with pytest.raises(SocketRefused) as caught:
            await socket.connect()
        assert caught.value.code == 4401

    asyncio.run(scenario())
