"""verify_webhook and WebhookBot without a service: signatures, endpoint echo, duplicate ids."""

from __future__ import annotations

import base64
import json
import secrets
from datetime import datetime, timezone

import httpx
import pytest
from standardwebhooks import Webhook

from skein import WebhookBot, WebhookVerificationError, verify_webhook

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
def bot() -> WebhookBot:
    running = WebhookBot(SECRET).start()
    yield running
    running.stop()


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
    assert calls == [("sent", "msg_sent"), ("ping", "msg_ping"), ("added", "msg_added"), ("channels", "msg_channels")]


def test_when_the_signature_is_wrong_then_the_delivery_is_refused_and_not_dispatched(bot: WebhookBot) -> None:
    calls: list[str] = []
    bot.on("sent")(lambda e, wid: calls.append(wid))
    body = event("sent")
    other = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
    assert httpx.post(bot.url, content=body, headers=signed(body, "msg_x", other)).status_code == 401
    assert calls == []


def test_when_a_handler_fails_then_skein_is_asked_to_retry_and_the_retry_is_handled(bot: WebhookBot) -> None:
    attempts: list[str] = []

    def flaky(_event: dict, webhook_id: str) -> None:
        attempts.append(webhook_id)
        if len(attempts) == 1:
            raise RuntimeError("first attempt fails")

    bot.on("sent")(flaky)
    body = event("sent")
    assert httpx.post(bot.url, content=body, headers=signed(body, "msg_retry")).status_code == 500
    assert httpx.post(bot.url, content=body, headers=signed(body, "msg_retry")).status_code == 204
    assert httpx.post(bot.url, content=body, headers=signed(body, "msg_retry")).status_code == 204
    assert attempts == ["msg_retry", "msg_retry"]
