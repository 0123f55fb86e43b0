"""A bot that looks alive while it thinks (decision 031 of the service): "typing" with a status while
a handler runs, and a reply that streams in as a model writes it, which a reader may stop.

    async with message.reply_stream() as stream:
        await stream.pipe(model_stream)          # or: await stream.write("text")

``ReplyStream`` opens POST /v1/streams, appends what it is given (at most one append per
``min_interval`` seconds; text written meanwhile is joined; a failed append is retried with the same
seq and text, which the service answers the same) and finishes on exit: the chunks joined become one
ordinary reply. An exception inside the block finishes it ``incomplete`` (what was written is posted,
marked) and propagates; a reader's stop raises ``StreamStopped`` at the next write (``pipe`` closes
its source first), finishes the stream ``stopped`` and is suppressed on exit.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterable
from types import TracebackType
from typing import Any

from ._api import JSON, SkeinError
from .client import AsyncSkeinClient

# The service bounds one chunk at 16,384 characters.
MAX_CHUNK = 16_384
TRANSIENT = frozenset({429, 500, 502, 503, 504})


class StreamStopped(Exception):
    """A reader asked the writer to stop: nothing more is appended, and the reply ends ``stopped``."""


class ReplyStream:
    """A streamed reply to ``parent_id`` with ``"audience": "parent"`` (see the module's doc)."""

    def __init__(
        self,
        client: AsyncSkeinClient,
        parent_id: str,
        *,
        min_interval: float = 0.05,
        retries: int = 5,
        **fields: Any,
    ) -> None:
        self._client = client
        self._parent_id = parent_id
        self._fields = fields
        self._min_interval = min_interval
        self._retries = retries
        self._seq = 0
        self._pending = ""
        self._last = 0.0
        self.stream_id: str | None = None
        self.stopped = False
        #: What the finish answered: ``{"stream": {...}, "message": {...} | None}``.
        self.result: JSON | None = None

    @property
    def message(self) -> JSON | None:
        """The posted reply once finished (None when nothing was written)."""
        return None if self.result is None else self.result.get("message")

    async def __aenter__(self) -> ReplyStream:
        opened = await self._client.request(
            "POST",
            "/v1/streams",
            {**self._fields, "content": "", "parent_id": self._parent_id, "audience": "parent"},
        )
        self.stream_id = str(opened["stream_id"])
        return self

    async def write(self, text: str) -> None:
        """Adds text; appends when the last append is ``min_interval`` old. Raises StreamStopped."""
        if self.stopped:
            raise StreamStopped(self.stream_id)
        self._pending += text
        if time.monotonic() - self._last >= self._min_interval:
            await self._flush()

    async def pipe(self, source: AsyncIterable[str]) -> None:
        """Writes every string of ``source``; on a stop closes it (``aclose()``) and raises StreamStopped."""
        try:
            async for text in source:
                await self.write(text)
        except StreamStopped:
            close = getattr(source, "aclose", None)
            if close is not None:
                await close()
            raise

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> bool:
        stopped = isinstance(error, StreamStopped)
        if error is None:
            try:
                await self._flush()
            except StreamStopped:
                stopped = True
        incomplete = error is not None and not stopped
        self.result = await self._retried(
            lambda: self._client.request(
                "POST",
                f"/v1/streams/{self.stream_id}/finish",
                {"last_seq": self._seq, "incomplete": incomplete},
            )
        )
        return stopped

    async def _flush(self) -> None:
        text, self._pending = self._pending, ""
        for at in range(0, len(text), MAX_CHUNK):
            seq = self._seq + 1
            piece = text[at : at + MAX_CHUNK]
            try:
                await self._retried(
                    lambda: self._client.request(
                        "POST", f"/v1/streams/{self.stream_id}/chunks", {"seq": seq, "text": piece}
                    )
                )
            except SkeinError as error:
                if error.code == "stream_stopped":
                    self.stopped = True
                    raise StreamStopped(self.stream_id) from error
                raise
            self._seq = seq
        self._last = time.monotonic()

    async def _retried(self, attempt: Any) -> Any:
        for tried in range(self._retries + 1):
            try:
                return await attempt()
            except SkeinError as error:
                if error.status not in TRANSIENT or tried >= self._retries:
                    raise
            except OSError:
                if tried >= self._retries:
                    raise
            await asyncio.sleep(min(4.0, 0.25 * 2**tried))
        raise AssertionError("unreachable")


class Typing:
    """Typing shown on a message while work runs: started at once, renewed every ``renew`` seconds until
    ``stop()``; failures are ignored (it is a hint)."""

    def __init__(self, client: AsyncSkeinClient, message_id: str, renew: float = 4.0) -> None:
        self._client = client
        self._message_id = message_id
        self._renew = renew
        self._status: str | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> Typing:
        if self._task is None:
            self._task = asyncio.ensure_future(self._keep())
        return self

    async def set_status(self, status: str | None) -> None:
        """Shows a one-line status (at most 64 characters), such as ``"searching the docs…"``."""
        self._status = status
        await self._send("start")

    async def stop(self) -> None:
        if self._task is None:
            return
        task, self._task = self._task, None
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await self._send("stop")

    async def _keep(self) -> None:
        while True:
            await self._send("start")
            await asyncio.sleep(self._renew)

    async def _send(self, op: str) -> None:
        body: JSON = {"message_id": self._message_id, "op": op}
        if self._status is not None:
            body["status"] = self._status
        try:
            await self._client.request("POST", "/v1/typing", body)
        except (SkeinError, OSError):
            pass
