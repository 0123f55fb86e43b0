"""Skein's Python SDK (distribution ``skein-chat``, import ``skein_chat``): REST clients (sync and
async), the notification socket, a bot run loop, streamed replies and typing, webhook verification
and a webhook receiver."""

from .backoff import Backoff
from .bot import MESSAGE_EVENTS, Bot, Message
from .client import JSON, AsyncSkeinClient, MessageRejected, SkeinClient, SkeinError
from .live import ReplyStream, StreamStopped, Typing
from .socket import SkeinSocket, SocketRefused
from .webhook_bot import EVENT_TYPES, WebhookBot
from .webhooks import WebhookVerificationError, verify_webhook

__all__ = [
    "EVENT_TYPES",
    "JSON",
    "MESSAGE_EVENTS",
    "AsyncSkeinClient",
    "Backoff",
    "Bot",
    "Message",
    "MessageRejected",
    "ReplyStream",
    "SkeinClient",
    "SkeinError",
    "SkeinSocket",
    "SocketRefused",
    "StreamStopped",
    "Typing",
    "WebhookBot",
    "WebhookVerificationError",
    "verify_webhook",
]
