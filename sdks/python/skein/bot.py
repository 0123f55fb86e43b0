"""A webhook receiver for bots, on the standard library's http.server.

It answers Skein's endpoint verification (the service sends a nonce as a JSON POST ``{"nonce"}``,
then as a plain-text POST, then as ``GET ?nonce=``; the first echo wins), verifies each delivery's
Standard Webhooks signature, drops deliveries whose ``webhook-id`` it has already handled (delivery
is at-least-once), and calls the handlers registered for the event's type: ``sent``, ``ping``,
``added`` or ``channels``.

A handler runs before the delivery is answered: a handler that raises answers 500, so Skein retries
the delivery later (same ``webhook-id``); one that returns marks the id handled. Keep handlers well
under Skein's 15-second delivery time-out.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .client import SkeinClient
from .webhooks import WebhookVerificationError, verify_webhook

EVENT_TYPES = ("sent", "ping", "added", "channels")
Handler = Callable[[dict[str, Any], str], None]


class WebhookBot:
    def __init__(
        self,
        secret: str | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        remember: int = 10_000,
    ) -> None:
        self.secret = secret
        self._handlers: dict[str, list[Handler]] = {kind: [] for kind in EVENT_TYPES}
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._in_progress: set[str] = set()
        self._remember = remember
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer((host, port), _handler_class(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The local URL it listens on (give Skein your public URL when they differ)."""
        host, port = self._server.server_address[:2]
        if host in ("0.0.0.0", "::"):
            host = "127.0.0.1"
        return f"http://{host}:{port}/"

    def on(self, event_type: str) -> Callable[[Handler], Handler]:
        """Decorator: ``@bot.on("sent")`` registers ``handler(event, webhook_id)``."""
        if event_type not in self._handlers:
            raise ValueError(f"unknown event type {event_type!r}; expected one of {EVENT_TYPES}")

        def register(handler: Handler) -> Handler:
            self._handlers[event_type].append(handler)
            return handler

        return register

    def register_endpoint(self, client: SkeinClient, url: str | None = None) -> dict[str, Any]:
        """Proves ``url`` (default: this receiver's URL) as the client's user's endpoint and keeps the
        signing secret the service answers. The receiver must be running."""
        target = url or self.url
        client.request("POST", "/v1/auth/contacts/endpoint/request", {"url": target})
        verified = client.request("POST", "/v1/auth/contacts/endpoint/verify", {"url": target})
        self.secret = verified["secret"]
        return verified

    def start(self) -> WebhookBot:
        """Serves on a background thread."""
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def join(self) -> None:
        """Waits for the background thread started by start() (until stop() or Ctrl-C)."""
        if self._thread is not None:
            self._thread.join()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # --- called by the request handler --------------------------------------------------------
    def _deliver(self, body: bytes, headers: dict[str, str]) -> int:
        if self.secret is None:
            return 503  # not registered yet: Skein retries later
        try:
            event = verify_webhook(self.secret, body, headers)
        except WebhookVerificationError:
            return 401
        webhook_id = headers["webhook-id"]
        with self._lock:
            if webhook_id in self._seen or webhook_id in self._in_progress:
                return 204
            self._in_progress.add(webhook_id)
        try:
            for handler in self._handlers.get(event.get("type", ""), []):
                handler(event, webhook_id)
        except Exception:
            return 500
        finally:
            with self._lock:
                self._in_progress.discard(webhook_id)
        with self._lock:
            self._seen[webhook_id] = None
            while len(self._seen) > self._remember:
                self._seen.popitem(last=False)
        return 204


def _handler_class(bot: WebhookBot) -> type[BaseHTTPRequestHandler]:
    class RequestHandler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass

        def _answer(self, status: int, body: bytes = b"", content_type: str = "text/plain") -> None:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            nonce = parse_qs(urlsplit(self.path).query).get("nonce", [None])[0]
            if nonce is None:
                self._answer(404)
            else:
                self._answer(200, nonce.encode())

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length)
            headers = {name.lower(): value for name, value in self.headers.items()}
            if "webhook-id" in headers:
                self._answer(bot._deliver(body, headers))
                return
            # Endpoint verification: echo the nonce, as JSON or as text like it came.
            if headers.get("content-type", "").startswith("application/json"):
                try:
                    nonce = json.loads(body).get("nonce")
                except (ValueError, AttributeError):
                    nonce = None
                if isinstance(nonce, str):
                    self._answer(200, json.dumps({"nonce": nonce}).encode(), "application/json")
                    return
                self._answer(400)
                return
            self._answer(200, body)

    return RequestHandler
