"""Webhook signature verification (Standard Webhooks, with the endpoint's ``whsec_`` secret)."""

from __future__ import annotations

from collections.abc import Mapping

from standardwebhooks import Webhook, WebhookVerificationError

from ._api import JSON

__all__ = ["verify_webhook", "WebhookVerificationError"]


def verify_webhook(secret: str, body: bytes | str, headers: Mapping[str, str]) -> JSON:
    """Checks ``webhook-signature`` over the raw body (the exact bytes received) and answers the
    parsed event. Raises WebhookVerificationError when the delivery is not Skein's, or its
    timestamp is more than five minutes away."""
    lowered = {name.lower(): value for name, value in headers.items()}
    try:
        event = Webhook(secret).verify(body, lowered)
    except WebhookVerificationError:
        raise
    except (ValueError, TypeError) as error:
        # A malformed signature header ("v1" without a comma, bad base64) is a failed verification.
        raise WebhookVerificationError(f"Malformed signature headers: {error}") from error
    if not isinstance(event, dict):
        raise WebhookVerificationError("the payload is not a JSON object")
    return event
