"""Skein's Python SDK: a REST client, the notification socket, webhook verification and a bot helper."""

from .bot import EVENT_TYPES, WebhookBot
from .client import MessageRejected, SkeinClient, SkeinError
from .socket import SkeinSocket, SocketRefused
from .webhooks import WebhookVerificationError, verify_webhook

__all__ = [
    "EVENT_TYPES",
    "MessageRejected",
    "SkeinClient",
    "SkeinError",
    "SkeinSocket",
    "SocketRefused",
    "WebhookBot",
    "WebhookVerificationError",
    "verify_webhook",
]
