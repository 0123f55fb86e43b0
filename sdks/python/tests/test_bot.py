"""WebhookBot against a running Skein: it proves its endpoint through the contacts API, and real
deliveries of each of the four webhook types reach the matching handler; the echo replies."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from skein_chat import EVENT_TYPES, WebhookBot

from .conftest import User


class Inbox:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any], str]] = []
        self.changed = threading.Condition()

    def record(self, kind: str) -> Callable[[dict[str, Any], str], None]:
        def handler(event: dict[str, Any], webhook_id: str) -> None:
            with self.changed:
                self.events.append((kind, event, webhook_id))
                self.changed.notify_all()

        return handler

    def wait_for(self, kind: str, message_id: str, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for got, event, _ in self.events:
                    if got == kind and message_id in [m["id"] for m in event["content"]["messages"]]:
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {kind} event for {message_id}; got {self.events}")
                self.changed.wait(left)


@pytest.fixture
def bot_server() -> Iterator[WebhookBot]:
    bot = WebhookBot().start()
    yield bot
    bot.stop()


def test_when_deliveries_arrive_then_each_type_reaches_its_handler_and_the_echo_replies(
    new_writer: Callable[[], User], new_bot: Callable[[User], User], bot_server: WebhookBot
) -> None:
    alice = new_writer()
    bot = new_bot(alice)
    inbox = Inbox()
    for kind in EVENT_TYPES:
        bot_server.on(kind)(inbox.record(kind))

    @bot_server.on("sent")
    def echo(event: dict[str, Any], _webhook_id: str) -> None:
        for message in event["content"]["messages"]:
            bot.client.reply(message, f"echo: {message['content']}")

    verified = bot_server.register_endpoint(bot.client)
    assert verified["kind"] == "endpoint"
    assert bot_server.secret is not None and bot_server.secret.startswith("whsec_")

    sent = alice.client.post("hello bot", recipients=[f"uid:{bot.uid}"])
    assert inbox.wait_for("sent", sent["id"])["recipient_uid"] == bot.uid

    alice.client.request("POST", f"/v1/messages/{sent['id']}/ping", {"recipients": [f"uid:{bot.uid}"]})
    inbox.wait_for("ping", sent["id"])

    later = alice.client.post("you are added later")
    alice.client.request("POST", "/v1/recipients/add", {"message_id": later["id"], "recipients": [f"uid:{bot.uid}"]})
    inbox.wait_for("added", later["id"])

    channel = alice.client.request("POST", "/v1/channels", {"display_name": "py-sdk"})
    alice.client.request("POST", f"/v1/channels/{channel['id']}/members", {"uid": bot.uid})
    in_channel = alice.client.post("for the channel")
    alice.client.request("PATCH", f"/v1/messages/{in_channel['id']}/channels", {"channel_ids": [channel["id"]]})
    inbox.wait_for("channels", in_channel["id"])

    # The echo went to alice because reply() keeps the audience.
    deadline = time.monotonic() + 30
    while True:
        replies = alice.client.notifications()["notifications"]
        echoes = [m for n in replies for m in n["event"]["content"]["messages"] if m["parent_id"] == sent["id"]]
        if echoes:
            assert echoes[0]["content"] == "echo: hello bot"
            break
        assert time.monotonic() < deadline, "the echo never reached alice"
        time.sleep(0.3)
    ids = [wid for _, _, wid in inbox.events]
    assert len(ids) == len(set(ids)), "a webhook-id was dispatched twice"
