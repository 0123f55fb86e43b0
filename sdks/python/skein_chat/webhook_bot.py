"""A webhook receiver for bots, on the standard library's http.server.

It answers Skein's endpoint verification (the service sends a nonce as a JSON POST ``{"nonce"}``,
then as a plain-text POST, then as ``GET ?nonce=``; the first echo wins), verifies each delivery's
Standard Webhooks signature, drops deliveries whose ``webhook-id`` it has already taken (delivery
is at-least-once), and hands each new one to the handlers registered for the event's type:
``sent``, ``ping``, ``added`` or ``channels``.

A delivery is answered first (204) and handled afterwards, on at most ``concurrency`` worker
threads, so a slow handler never runs into Skein's 15-second delivery time-out. Once answered, a
delivery is not sent again: a handler that raises is logged, and that event is not retried. When
``backlog`` deliveries already wait for a worker, the next ones are answered 503 with
``Retry-After``, and Skein sends them again later.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ._api import JSON
from .client import SkeinClient
from .webhooks import WebhookVerificationError, verify_webhook

EVENT_TYPES = ("sent", "ping", "added", "channels")
Handler = Callable[[JSON, str], None]
# Takes a verified, new delivery (event, webhook_id) without blocking; False: not now (503).
Dispatch = Callable[[JSON, str], bool]
RETRY_AFTER_SECONDS = 5

log = logging.getLogger("skein_chat.webhooks")


class WebhookBot:
    def __init__(
        self,
        secret: str | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        remember: int = 10_000,
        concurrency: int = 4,
        backlog: int = 100,
        dispatch: Dispatch | None = None,
    ) -> None:
        """``dispatch``, when given, takes each verified new delivery instead of the handlers registered
        with ``on()`` (Bot.run_webhook uses it to run its handlers on its own event loop)."""
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.secret = secret
        self._handlers: dict[str, list[Handler]] = {kind: [] for kind in EVENT_TYPES}
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._remember = remember
        self._lock = threading.Lock()
        self._waiting = 0
        self._limit = concurrency + backlog
        self._dispatch = dispatch
        self._workers = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="skein-webhook")
        self._server = ThreadingHTTPServer((host, port), _handler_class(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The local URL it listens on (give Skein your public URL when they differ)."""
        host, port = self._server.server_address[:2]
        if host in ("0.0.0.0", "::"):
            host = "127.0.0.1"
        return f"http://{host!s}:{port}/"

    def on(self, event_type: str) -> Callable[[Handler], Handler]:
        """Decorator: ``@bot.on("sent")`` registers ``handler(event, webhook_id)``."""
        if event_type not in self._handlers:
            raise ValueError(f"unknown event type {event_type!r}; expected one of {EVENT_TYPES}")

        def register(handler: Handler) -> Handler:
            self._handlers[event_type].append(handler)
            return handler

        return register

    def register_endpoint(self, client: SkeinClient, url: str | None = None) -> JSON:
        """Proves ``url`` (default: this receiver's URL) as the client's user's endpoint and keeps the
        signing secret the service answers. The receiver must be running."""
        verified = client.verify_endpoint(url or self.url)
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
        """Stops taking deliveries, then waits for the handlers of those already answered."""
        self._server.shutdown()
        self._server.server_close()
        self._workers.shutdown(wait=True)

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
            if webhook_id in self._seen:
                return 204
            if self._dispatch is None and self._waiting >= self._limit:
                return 503
            if self._dispatch is not None and not self._dispatch(event, webhook_id):
                return 503
            self._seen[webhook_id] = None
            while len(self._seen) > self._remember:
                self._seen.popitem(last=False)
            if self._dispatch is None:
                self._waiting += 1
                self._workers.submit(self._handle, event, webhook_id)
        return 204

    def _handle(self, event: JSON, webhook_id: str) -> None:
        try:
            for handler in self._handlers.get(str(event.get("type", "")), []):
                handler(event, webhook_id)
        except Exception:
            log.exception("a handler failed on delivery %s", webhook_id)
        finally:
            with self._lock:
                self._waiting -= 1


def _handler_class(bot: WebhookBot) -> type[BaseHTTPRequestHandler]:
    class RequestHandler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass

        def _answer(self, status: int, body: bytes = b"", content_type: str = "text/plain") -> None:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            if status == 503:
                self.send_header("retry-after", str(RETRY_AFTER_SECONDS))
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
