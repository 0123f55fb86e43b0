"""verify_webhook and WebhookBot without a service: signatures, endpoint echo, duplicate ids."""

from __future__ import annotations

import base64
import json
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from typing import Any

import httpx
import pytest
from standardwebhooks import Webhook

from skein_chat import WebhookBot, WebhookVerificationError, verify_webhook

SECRET = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def signed(body: str, webhook_id: str, secret: str = SECRET) -> dict[str, str]:
    now = datetime.now(tz=timezone.utc)
    return {
        "webhook-id": webhook_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(secret).sign(webhook_id, now, body),
        "content-type": "application/json",
    }


def event(kind: str) -> str:
    return json.dumps({"type": kind, "recipient_uid": "0badc0de", "content": {"messages": [], "context": []}})


def test_when_the_signature_matches_then_the_event_is_returned() -> None:
    body = event("sent")
    assert verify_webhook(SECRET, body.encode(), signed(body, "msg_1"))["type"] == "sent"


@pytest.mark.parametrize(
    "change",
    ["body", "secret", "signature"],
)
def test_when_anything_is_altered_then_verification_fails(change: str) -> None:
    body = event("sent")
    headers = signed(body, "msg_2")
    secret = SECRET
    if change == "body":
        body = body.replace("sent", "ping")
    elif change == "secret":
        secret = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
    else:
        headers["webhook-signature"] = "v1garbage"
    with pytest.raises(WebhookVerificationError):
        verify_webhook(secret, body, headers)


@pytest.fixture
def bot() -> Iterator[WebhookBot]:
    running = WebhookBot(SECRET).start()
    yield running
    running.stop()


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def test_when_skein_proves_the_endpoint_then_every_form_of_the_nonce_is_echoed(bot: WebhookBot) -> None:
    assert httpx.post(bot.url, json={"nonce": "n1"}).json() == {"nonce": "n1"}
    assert httpx.post(bot.url, content="n2", headers={"content-type": "text/plain"}).text == "n2"
    assert httpx.get(bot.url, params={"nonce": "n3"}).text == "n3"


def test_when_a_delivery_repeats_its_webhook_id_then_the_handler_runs_once(bot: WebhookBot) -> None:
    calls: list[tuple[str, str]] = []
    for kind in ("sent", "ping", "added", "channels"):
        bot.on(kind)(lambda e, wid: calls.append((e["type"], wid)))
    for kind in ("sent", "ping", "added", "channels"):
        body = event(kind)
        for _ in range(2):
            assert httpx.post(bot.url, content=body, headers=signed(body, f"msg_{kind}")).status_code == 204
    wait_until(lambda: len(calls) >= 4, "the four handlers")
    bot.stop()  # waits for the workers: a repeat would have run by now
    assert sorted(calls) == sorted(
        [("sent", "msg_sent"), ("ping", "msg_ping"), ("added", "msg_added"), ("channels", "msg_channels")]
    )


def test_when_the_signature_is_wrong_then_the_delivery_is_refused_and_not_dispatched(bot: WebhookBot) -> None:
    calls: list[str] = []
    bot.on("sent")(lambda e, wid: calls.append(wid))
    body = event("sent")
    other = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
    assert httpx.post(bot.url, content=body, headers=signed(body, "msg_x", other)).status_code == 401
    bot.stop()
    assert calls == []


def test_when_a_handler_is_slow_then_the_delivery_is_answered_before_it_finishes(bot: WebhookBot) -> None:
    gate = threading.Event()
    finished: list[str] = []

    def slow(_event: dict[str, Any], webhook_id: str) -> None:
        assert gate.wait(30), "never released"
        finished.append(webhook_id)

    bot.on("sent")(slow)
    body = event("sent")
    # Answered while the handler still waits for the gate: an answer held until the handler ended
    # would run into this time-out.
    answer = httpx.post(bot.url, content=body, headers=signed(body, "msg_slow"), timeout=10)
    assert answer.status_code == 204
    assert finished == []
    gate.set()
    wait_until(lambda: finished == ["msg_slow"], "the handler to finish")


def test_when_a_handler_fails_then_it_is_logged_and_the_answered_delivery_is_not_handled_again(
    bot: WebhookBot, caplog: pytest.LogCaptureFixture
) -> None:
    attempts: list[str] = []

    def failing(_event: dict[str, Any], webhook_id: str) -> None:
        attempts.append(webhook_id)
        raise RuntimeError("the handler fails")

    bot.on("sent")(failing)
    body = event("sent")
    assert httpx.post(bot.url, content=body, headers=signed(body, "msg_fails")).status_code == 204
    assert httpx.post(bot.url, content=body, headers=signed(body, "msg_fails")).status_code == 204
    bot.stop()
    assert attempts == ["msg_fails"]
    assert "a handler failed on delivery msg_fails" in caplog.text


def test_when_every_worker_and_the_backlog_are_busy_then_the_next_delivery_is_answered_503_to_come_later() -> None:
    gate = threading.Event()
    handled: list[str] = []
    bot = WebhookBot(SECRET, concurrency=1, backlog=1).start()
    try:

        def blocked(_event: dict[str, Any], webhook_id: str) -> None:
            assert gate.wait(30), "never released"
            handled.append(webhook_id)

        bot.on("sent")(blocked)
        body = event("sent")
        statuses = [
            httpx.post(bot.url, content=body, headers=signed(body, f"msg_{n}")).status_code for n in range(3)
        ]
        assert statuses == [204, 204, 503]
        refused = httpx.post(bot.url, content=body, headers=signed(body, "msg_2"))
        assert (refused.status_code, refused.headers["retry-after"]) == (503, "5")
        gate.set()
        wait_until(lambda: len(handled) == 2, "the two taken deliveries")
        # Skein's retry of the refused one is taken now.
        assert httpx.post(bot.url, content=body, headers=signed(body, "msg_2")).status_code == 204
        wait_until(lambda: len(handled) == 3, "the retried delivery")
    finally:
        gate.set()
        bot.stop()
    assert handled == ["msg_0", "msg_1", "msg_2"]
