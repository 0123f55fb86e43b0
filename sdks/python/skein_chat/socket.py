"""The notification socket, /v1/ws/v1 (``websockets``).

Frames: ``{"type": "ready", "uid", "cursor"}``, then ``{"type": "notification", "cursor", "event"}``.
The client remembers the cursor of the last notification it handed out (or of the first ready
frame) and after any drop reconnects with ``?since=<cursor>``: the service replays what was missed,
in order, exactly once. It reconnects for ever, waiting longer after each failed attempt
(exponential back-off with jitter, capped); refusals that no retry can mend (close codes 4400,
4401, 4403) end the iteration with SocketRefused.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from .backoff import Backoff, pause_until_ready

FINAL_CLOSE_CODES = frozenset({4400, 4401, 4403})
# A connection that stayed up this long was a good one: the next failure waits from the start again.
STABLE_SECONDS = 10.0

log = logging.getLogger("skein_chat.socket")


class SocketRefused(Exception):
    """The service refused or ended the socket with ``code`` (4401 not authenticated, 4403 a scope is
    missing, 4400 a bad ``since``; others, such as 1013 unavailable, are retried)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"socket refused: {code} {reason}")
        self.code = code
        self.reason = reason

    @property
    def final(self) -> bool:
        return self.code in FINAL_CLOSE_CODES


class SkeinSocket:
    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        api_key: str | None = None,
        since: str | None = None,
        include_context: bool = False,
        reconnect_delay: float = 0.5,
        max_reconnect_delay: float = 30.0,
        on_ready: Callable[[dict[str, Any]], None] | None = None,
        on_live: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.api_key = api_key
        self._cursor = since
        self.include_context = include_context
        """``?include_context=true``: each new message carries ``message_context``, its conversation context."""
        self._backoff = Backoff(reconnect_delay, max_reconnect_delay)
        self._on_ready = on_ready
        self._on_live = on_live
        """With it, ``?live=true``: typing (``typing.started``/``typing.stopped``) and streamed replies
        (``stream.opened`` with the text so far, ``stream.appended``, ``stream.stop_requested``,
        ``stream.ended``) for what you may see, handed to it as they come; never replayed."""
        self._ws: ClientConnection | None = None
        self._connected_at = 0.0
        self._closed = False
        self._away = False
        """The last attempt found no service (refused, 502-504), or a ready connection dropped."""
        self.ready: dict[str, Any] | None = None

    @property
    def last_cursor(self) -> str | None:
        """Where a reconnect resumes: the last notification's cursor, or the first ready frame's."""
        return self._cursor

    def _url(self) -> str:
        parts = urlsplit(self.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        params: dict[str, str] = {}
        if self._cursor is not None:
            params["since"] = self._cursor
        if self.include_context:
            params["include_context"] = "true"
        if self._on_live is not None:
            params["live"] = "true"
        query = urlencode(params)
        return urlunsplit((scheme, parts.netloc, parts.path + "/v1/ws/v1", query, ""))

    async def connect(self) -> dict[str, Any]:
        """Opens the socket and answers the ready frame."""
        headers = {}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        elif self.api_key:
            headers["x-api-key"] = self.api_key
        self._closed = False
        ws = await connect(self._url(), additional_headers=headers, open_timeout=20)
        try:
            frame: dict[str, Any] = json.loads(await ws.recv())
        except ConnectionClosed as closed:
            raise _refusal(closed) from closed
        if frame.get("type") == "error":
            # A refusal: an error frame, then a close whose code says why (4401, 4403, 4400, 1013, ...).
            try:
                await asyncio.wait_for(ws.recv(), timeout=5)
            except ConnectionClosed as closed:
                raise _refusal(closed) from closed
            except TimeoutError:
                pass
            await ws.close()
            raise SocketRefused(1002, f"{frame.get('code')}: {frame.get('detail')}")
        if frame.get("type") != "ready":
            await ws.close()
            raise SocketRefused(1002, f"expected a ready frame, got {frame}")
        # Only a first connection starts at "now"; a resumed one keeps its cursor until a replayed
        # notification moves it, so a drop during the replay loses nothing.
        if self._cursor is None:
            self._cursor = frame["cursor"]
        self._ws = ws
        self._away = False
        self._connected_at = time.monotonic()
        self.ready = frame
        if self._on_ready is not None:
            self._on_ready(frame)
        return frame

    async def notifications(self) -> AsyncIterator[dict[str, Any]]:
        """Yields notification frames for ever, reconnecting from the last cursor after a drop."""
        first = self._ws is None
        while not self._closed:
            if self._ws is None:
                if not first:
                    wait = self._backoff.next()
                    log.info("reconnecting in %.1f s (sooner once Skein is ready again)", wait)
                    # While Skein is away, its /readyz is watched: back within a second of readiness.
                    await pause_until_ready(wait, self.base_url, down=self._away)
                    if self._closed:
                        return
                first = False
                try:
                    await self.connect()
                except SocketRefused as refused:
                    if refused.final:
                        raise
                    log.warning("connection refused (%s %s)", refused.code, refused.reason)
                    continue
                except (OSError, TimeoutError, ConnectionClosed, InvalidHandshake) as error:
                    self._away = not isinstance(error, InvalidStatus) or error.response.status_code in (502, 503, 504)
                    log.warning("cannot connect to %s: %s", self.base_url, error or type(error).__name__)
                    continue
            ws = self._ws
            assert ws is not None
            try:
                raw = await ws.recv()
            except ConnectionClosed as closed:
                self._ws = None
                if self._closed:
                    return
                refusal = _refusal(closed)
                if refusal.final:
                    raise refusal from closed
                # 1001 going away, 1006 no close frame, 1012 restart: Skein itself went away.
                self._away = refusal.code in (1001, 1006, 1012)
                log.warning("connection lost (%s %s)", refusal.code, refusal.reason)
                if time.monotonic() - self._connected_at >= STABLE_SECONDS:
                    self._backoff.reset()
                continue
            frame = json.loads(raw)
            kind = str(frame.get("type") or "")
            if kind == "notification":
                self._cursor = frame["cursor"]
                yield frame
            elif self._on_live is not None and kind.startswith(("typing.", "stream.")):
                self._on_live(frame)

    async def drop(self) -> None:
        """Ends the current connection as a network failure would; the iteration reconnects."""
        ws, self._ws = self._ws, None
        if ws is not None:
            await ws.close()

    async def close(self) -> None:
        """Closes for good; the iteration ends."""
        self._closed = True
        ws, self._ws = self._ws, None
        if ws is not None:
            await ws.close()


def _refusal(closed: ConnectionClosed) -> SocketRefused:
    if closed.rcvd is None:
        return SocketRefused(1006, "closed without a close frame")
    return SocketRefused(closed.rcvd.code, closed.rcvd.reason)
