"""The notification socket, /v1/ws/v1 (``websockets``).

Frames: ``{"type": "ready", "uid", "cursor"}``, then ``{"type": "notification", "cursor", "event"}``.
The client remembers the cursor of the last notification it handed out (or of the first ready
frame) and after any drop reconnects with ``?since=<cursor>``: the service replays what was missed,
in order, exactly once. Refusals (close codes 4400, 4401, 4403) end the iteration with SocketRefused.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

FINAL_CLOSE_CODES = {4400, 4401, 4403}


class SocketRefused(Exception):
    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"socket refused: {code} {reason}")
        self.code = code
        self.reason = reason


class SkeinSocket:
    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        api_key: str | None = None,
        since: str | None = None,
        reconnect_delay: float = 0.5,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.api_key = api_key
        self._cursor = since
        self._reconnect_delay = reconnect_delay
        self._ws: ClientConnection | None = None
        self._closed = False
        self.ready: dict[str, Any] | None = None

    @property
    def last_cursor(self) -> str | None:
        """Where a reconnect resumes: the last notification's cursor, or the first ready frame's."""
        return self._cursor

    def _url(self) -> str:
        parts = urlsplit(self.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        query = urlencode({"since": self._cursor}) if self._cursor is not None else ""
        return urlunsplit((scheme, parts.netloc, parts.path + "/v1/ws/v1", query, ""))

    async def connect(self) -> dict[str, Any]:
        """Opens the socket and answers the ready frame."""
        headers = {}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        elif self.api_key:
            headers["x-api-key"] = self.api_key
        self._closed = False
        ws = await connect(self._url(), additional_headers=headers)
        try:
            frame = json.loads(await ws.recv())
        except ConnectionClosed as closed:
            raise _refusal(closed) from closed
        if frame.get("type") == "error":
            # A refusal: an error frame, then a close whose code says why (4401, 4403, 4400, ...).
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
        self.ready = frame
        return frame

    async def notifications(self) -> AsyncIterator[dict[str, Any]]:
        """Yields notification frames for ever, reconnecting from the last cursor after a drop."""
        delay = self._reconnect_delay
        while not self._closed:
            if self._ws is None:
                try:
                    await self.connect()
                    delay = self._reconnect_delay
                except SocketRefused:
                    raise
                except (OSError, ConnectionClosed):
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 30.0)
                    continue
            ws = self._ws
            assert ws is not None
            try:
                raw = await ws.recv()
            except ConnectionClosed as closed:
                self._ws = None
                if self._closed:
                    return
                code = closed.rcvd.code if closed.rcvd else 1006
                if code in FINAL_CLOSE_CODES:
                    raise _refusal(closed) from closed
                continue
            frame = json.loads(raw)
            if frame.get("type") == "notification":
                self._cursor = frame["cursor"]
                yield frame

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
