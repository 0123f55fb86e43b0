"""The bot run loop: ``Bot`` hands each new message addressed to the bot to its handlers.

    bot = Bot.from_env()                 # SKEIN_URL, SKEIN_TOKEN or SKEIN_API_KEY, SKEIN_CURSOR_FILE

    @bot.on_message
    async def echo(message: Message) -> None:
        await message.reply(f"echo: {message.content}")

    bot.run()                            # the socket; or bot.run_webhook(port=..., public_url=...)

What counts as a new message to the bot: the messages of ``sent`` events (a new message names the
bot as a recipient) and ``ping`` events (someone pings the bot on a message, or @mentions it);
``added`` and ``channels`` events are context, handed over only when asked for with ``events=``.
The bot's own messages are never handed over.

Socket mode (``run``) reconnects for ever, waiting longer after each failed attempt (exponential
back-off with jitter, capped), and resumes from its last cursor, so nothing sent meanwhile is lost
or repeated. At most ``concurrency`` handlers run at once; while they are all busy the bot reads no
further. The cursor it keeps (and writes to ``cursor_file``, atomically) only moves past events
whose handlers have finished, so a bot started again with the same file resumes exactly there.
SIGINT and SIGTERM stop it cleanly: no new events, running handlers finish (for at most
``shutdown_timeout`` seconds; the events of any cut short are handed out again on the next start),
the cursor is written, and ``run`` returns. A refusal that no retry can mend (close code 4401, 4403
or 4400) ends ``run`` with SocketRefused once the running handlers are done.

``Message.reply`` keeps the audience (``"audience": "parent"``), retries while Skein cannot answer
(a restart) and sends an ``Idempotency-Key`` made from the event and the message, so a retried or
repeated reply is created once.

``await message.context()`` is the conversation the message belongs to, as the bot may see it (GET
/v1/messages/{id}/context): read once per message, from the event itself when the bot asked Skein to
send it along (``include_context=True``), else with one call.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Collection, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx

from ._api import JSON, SkeinError
from .backoff import Backoff, pause_until_ready
from .client import AsyncSkeinClient
from .live import ReplyStream, Typing
from .socket import SkeinSocket
from .webhook_bot import WebhookBot

MESSAGE_EVENTS = ("sent", "ping")
# Answers that a later attempt may not get: rate limited, or Skein (or its database) unavailable.
TRANSIENT_STATUSES = frozenset({429, 500, 502, 503, 504})
# A handler that answers within this many seconds shows no typing.
TYPING_DELAY = 0.3
# Deliveries that may wait for a free handler in webhook mode before the next ones are answered 503.
WEBHOOK_BACKLOG = 100

MessageHandler = Callable[["Message"], Awaitable[None] | None]
H = TypeVar("H", bound=MessageHandler)
T = TypeVar("T")

log = logging.getLogger("skein_chat.bot")


class Message:
    """A message addressed to the bot, as its handlers get it. ``data`` is the message as Skein sent
    it (``id``, ``content``, ``parent_id``, ``author``, ...), ``event`` the whole event."""

    __slots__ = ("data", "event", "_bot", "_event_key", "_replies", "_context", "_typing")

    def __init__(self, data: JSON, event: JSON, bot: Bot, event_key: str) -> None:
        self.data = data
        self.event = event
        self._bot = bot
        self._event_key = event_key
        self._replies = 0
        self._context: asyncio.Future[JSON] | None = None
        self._typing = Typing(bot.client, self.id)

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def content(self) -> str:
        return str(self.data.get("content") or "")

    @property
    def parent_id(self) -> str | None:
        parent = self.data.get("parent_id")
        return None if parent is None else str(parent)

    @property
    def author_uid(self) -> str:
        return str(self.data["author"]["uid"])

    @property
    def author_tag(self) -> str:
        return str(self.data["author"]["user_tag"])

    @property
    def event_type(self) -> str:
        """``sent`` or ``ping`` (or ``added``, ``channels`` when the bot asked for them)."""
        return str(self.event["type"])

    @property
    def ancestors(self) -> list[JSON]:
        """The event's ``content.context``: up to 10 ancestors of its first message, root first, as
        events carry them (``id``, ``content``, ``parent_id``, ``author``). ``context()`` gives more."""
        ancestors: list[JSON] = (self.event.get("content") or {}).get("context") or []
        return ancestors

    async def context(self) -> JSON:
        """The conversation this message belongs to, as the bot may see it: ``{"message_id", "entries",
        "truncated"}`` as GET /v1/messages/{id}/context answers (default bounds): the bot's starting
        context when it has a ``context_origin_id``, the reply ancestors from the root down, then the
        message, each entry with ``role`` ``assistant`` (the bot's own) or ``user``, ready for a
        chat-model prompt. Read once per message and kept: from the event when it carries
        ``message_context`` (``Bot(include_context=True)``), else with one call, retried like a reply
        while Skein cannot answer (a failed read is tried again on the next call)."""
        if self._context is None or _failed(self._context):
            carried = self.data.get("message_context")
            if isinstance(carried, dict):
                ready: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()
                ready.set_result(carried)
                self._context = ready
            else:
                self._context = asyncio.ensure_future(
                    self._bot.retrying(lambda: self._bot.client.message_context(self.id))
                )
        return await asyncio.shield(self._context)

    def context_sync(self) -> JSON:
        """``context()`` for a plain ``def`` handler (those run on a worker thread)."""
        return self._on_loop(self.context(), "context")

    @property
    def client(self) -> AsyncSkeinClient:
        """The bot's client, for anything beyond a reply."""
        return self._bot.client

    async def reply(self, content: str, *, idempotency_key: str | None = None, **fields: Any) -> JSON:
        """Replies so that the message's audience sees it (the author, its CC recipients, its channels).
        Retries while Skein cannot answer; the default ``idempotency_key`` is the same each time this
        event's handler sends its n-th reply to this message, so a retry or a repeat creates nothing."""
        self._replies += 1
        key = idempotency_key or f"skein-bot.{self._event_key}.{self.id}.{self._replies}"
        return await self._bot.retrying(
            lambda: self._bot.client.reply(self.data, content, idempotency_key=key, **fields)
        )

    def reply_stream(self, **fields: Any) -> ReplyStream:
        """A reply that streams in as it is written, with the audience of ``reply``::

            async with message.reply_stream() as stream:
                await stream.pipe(model_stream)   # any async iterator of strings; or stream.write(text)

        Readers see it grow and may stop it: the source is closed, ``StreamStopped`` is raised inside
        the block and suppressed on exit, and what was written is posted. An exception inside the
        block posts what was written marked incomplete and propagates. ``stream.message`` is the reply."""
        return ReplyStream(self._bot.client, self.id, **fields)

    async def set_status(self, status: str) -> None:
        """Shows a one-line status on the message while the handler works (at most 64 characters),
        such as ``"searching the docs…"``; typing ends with the handler or its reply."""
        self._typing.start()
        await self._typing.set_status(status)

    def reply_sync(self, content: str, *, idempotency_key: str | None = None, **fields: Any) -> JSON:
        """``reply`` for a plain ``def`` handler (those run on a worker thread)."""
        return self._on_loop(self.reply(content, idempotency_key=idempotency_key, **fields), "reply")

    def _on_loop(self, work: Coroutine[Any, Any, T], name: str) -> T:
        """Runs ``work`` on the bot's event loop from a worker thread and waits for its answer."""
        loop = self._bot._loop
        if loop is None:
            work.close()
            raise RuntimeError("the bot is not running")
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            work.close()
            raise RuntimeError(f"in an async handler, use: await message.{name}(...)")
        return asyncio.run_coroutine_threadsafe(work, loop).result()

    def __repr__(self) -> str:
        return f"Message(id={self.id!r}, author=@{self.author_tag}, event={self.event_type!r}, content={self.content!r})"


def read_dotenv(path: str | os.PathLike[str] = ".env") -> dict[str, str]:
    """The ``KEY=value`` lines of a ``.env`` file (``#`` comments, optional quotes); none when it is
    missing."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError:
        return {}
    variables: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.strip().removeprefix("export ").partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key.isidentifier() or key.startswith("#"):
            continue
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        else:
            value = value.split(" #", 1)[0].strip()
        variables[key] = value
    return variables


@dataclass
class _Pending:
    """An event taken from the socket, in order; ``done`` once its handlers have finished."""

    cursor: str
    done: bool = False


class Bot:
    def __init__(
        self,
        base_url: str = "http://localhost:8080",
        *,
        token: str | None = None,
        api_key: str | None = None,
        cursor_file: str | os.PathLike[str] | None = None,
        concurrency: int = 4,
        events: Collection[str] = MESSAGE_EVENTS,
        include_context: bool = False,
        typing: bool = True,
        reconnect_delay: float = 0.5,
        max_reconnect_delay: float = 30.0,
        retry_for: float = 300.0,
        shutdown_timeout: float = 30.0,
    ) -> None:
        """``token`` is a session token (a bot's delegated session, ``svc_session_...``) or ``api_key`` an
        API key (``sk_...``). ``retry_for``: how long ``reply`` keeps trying while Skein cannot answer.
        ``include_context``: ask Skein to send each message's conversation context with the event (the
        socket's ``?include_context=true``; in webhook mode the endpoint's option), so
        ``message.context()`` needs no call; off by default (payloads stay small). ``typing``: show
        "typing" on each message while its handler runs (from 0.3 s on; the reply ends it)."""
        if not token and not api_key:
            raise ValueError(
                "A bot needs a token or an API key: set SKEIN_TOKEN (a session token, such as a bot's "
                "delegated session from POST /v1/managed/auth/delegate) or SKEIN_API_KEY"
            )
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.api_key = api_key
        self.cursor_file = Path(cursor_file) if cursor_file else None
        self.concurrency = concurrency
        self.events = frozenset(events)
        self.include_context = include_context
        self.typing = typing
        self.reconnect_delay = reconnect_delay
        self.max_reconnect_delay = max_reconnect_delay
        self.retry_for = retry_for
        self.shutdown_timeout = shutdown_timeout
        self.client = AsyncSkeinClient(self.base_url, token=token, api_key=api_key)
        self.uid: str | None = None
        self.cursor: str | None = None
        """The cursor every event up to which has been handled (what ``cursor_file`` holds)."""
        self.webhook: WebhookBot | None = None
        """The receiver while ``run_webhook`` runs (its ``url`` is where it listens)."""
        self._handlers: list[MessageHandler] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._slots: asyncio.Semaphore | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._pending: deque[_Pending] = deque()
        self._lock = threading.Lock()
        self._accepted = 0
        self._signals: list[signal.Signals] = []

    @classmethod
    def from_env(cls, **options: Any) -> Bot:
        """A bot configured by the environment: ``SKEIN_URL`` (default http://localhost:8080),
        ``SKEIN_TOKEN`` or ``SKEIN_API_KEY``, and ``SKEIN_CURSOR_FILE`` (optional). Keyword
        arguments (those of ``Bot``) win over the environment, and the environment over a ``.env``
        file in the working directory (what ``npx skein-sdk bot create`` writes)."""
        env = {**read_dotenv(), **os.environ}
        options.setdefault("base_url", env.get("SKEIN_URL") or "http://localhost:8080")
        if "token" not in options and "api_key" not in options:
            options["token"] = env.get("SKEIN_TOKEN") or None
            options["api_key"] = env.get("SKEIN_API_KEY") or None
        options.setdefault("cursor_file", env.get("SKEIN_CURSOR_FILE") or None)
        return cls(**options)

    def on_message(self, handler: H) -> H:
        """Decorator: ``handler(message)`` is called for each new message addressed to the bot. An
        ``async def`` runs on the bot's event loop; a plain ``def`` on a worker thread (reply there
        with ``message.reply_sync``). A handler that raises is logged; the event counts as handled."""
        self._handlers.append(handler)
        return handler

    # --- running ----------------------------------------------------------------------------
    def run(self) -> None:
        """Runs the socket loop until SIGINT or SIGTERM (then returns) or a final refusal (raises)."""
        _configure_logging()
        asyncio.run(self.run_async(handle_signals=True))

    def run_webhook(self, *, host: str = "0.0.0.0", port: int = 8700, public_url: str | None = None) -> None:
        """Takes events as webhooks instead: listens on ``host:port``, proves ``public_url`` (how Skein
        reaches this process; default ``http://127.0.0.1:<port>/``) as the bot's endpoint, and runs
        the same handlers until SIGINT or SIGTERM. Skein refuses private and loopback URLs unless it
        runs with ``SKEIN_WEBHOOK_ALLOW_PRIVATE=true``."""
        _configure_logging()
        asyncio.run(self.run_webhook_async(host=host, port=port, public_url=public_url, handle_signals=True))

    def stop(self) -> None:
        """Asks a running bot to stop (from any thread): ``run`` then finishes as on SIGTERM."""
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None:
            loop.call_soon_threadsafe(stopping.set)

    async def run_async(self, *, handle_signals: bool = False) -> None:
        """``run`` on the caller's event loop (``stop()`` ends it)."""
        stopping = self._begin(handle_signals)
        try:
            self.cursor = self._load_cursor()
            socket = SkeinSocket(
                self.base_url,
                token=self.token,
                api_key=self.api_key,
                since=self.cursor,
                include_context=self.include_context,
                reconnect_delay=self.reconnect_delay,
                max_reconnect_delay=self.max_reconnect_delay,
                on_ready=self._on_ready,
            )
            consumer = asyncio.create_task(self._consume(socket))
            stop_asked = asyncio.create_task(stopping.wait())
            await asyncio.wait({consumer, stop_asked}, return_when=asyncio.FIRST_COMPLETED)
            stop_asked.cancel()
            consumer.cancel()
            await asyncio.wait({consumer})
            await socket.close()
            await self._finish()
            error = None if consumer.cancelled() else consumer.exception()
            if error is not None:
                raise error
        finally:
            await self._end()

    async def run_webhook_async(
        self,
        *,
        host: str = "0.0.0.0",
        port: int = 8700,
        public_url: str | None = None,
        handle_signals: bool = False,
    ) -> None:
        """``run_webhook`` on the caller's event loop (``stop()`` ends it)."""
        stopping = self._begin(handle_signals)
        try:
            me = await self.retrying(self.client.me)
            self.uid = str(me["uid"])
            receiver = WebhookBot(host=host, port=port, concurrency=self.concurrency, dispatch=self._accept_delivery)
            self.webhook = receiver.start()
            try:
                url = public_url or receiver.url
                verified = await self.retrying(lambda: self.client.verify_endpoint(url))
                receiver.secret = verified["secret"]
                if self.include_context:
                    uid = self.uid
                    await self.retrying(lambda: self.client.set_endpoint_options(uid, include_context=True))
                log.info("@%s takes webhooks at %s (listening on %s)", me["user_tag"], url, receiver.url)
                await stopping.wait()
            finally:
                await asyncio.to_thread(receiver.stop)
                await self._finish()
        finally:
            await self._end()

    async def retrying(self, call: Callable[[], Awaitable[T]]) -> T:
        """Runs ``call`` again while Skein cannot answer (connection failures, 429, 5xx), waiting longer
        each time, for at most ``retry_for`` seconds; other errors raise at once."""
        backoff = Backoff(self.reconnect_delay, self.max_reconnect_delay)
        deadline = time.monotonic() + self.retry_for
        while True:
            try:
                return await call()
            except SkeinError as error:
                if error.status not in TRANSIENT_STATUSES or time.monotonic() >= deadline:
                    raise
                wait = error.retry_after if error.retry_after is not None else backoff.next()
                reason = f"{error.status} {error.code}"
                away = error.status in (502, 503, 504)
            except httpx.TransportError as error:
                if time.monotonic() >= deadline:
                    raise
                wait = backoff.next()
                reason = str(error) or type(error).__name__
                away = True
            wait = min(wait, max(0.0, deadline - time.monotonic()))
            log.warning("Skein did not answer (%s); trying again in %.1f s", reason, wait)
            if away:
                await pause_until_ready(wait, self.base_url, down=True)
            else:
                await asyncio.sleep(wait)

    # --- the socket loop --------------------------------------------------------------------
    def _on_ready(self, frame: JSON) -> None:
        self.uid = str(frame["uid"])
        if self.cursor is None:
            # A first start begins now; writing this cursor makes a restart begin here, not later.
            self.cursor = str(frame["cursor"])
            self._save_cursor()
        log.info("connected to %s as %s, handling events after %s", self.base_url, self.uid, self.cursor)

    async def _consume(self, socket: SkeinSocket) -> None:
        assert self._slots is not None
        async for frame in socket.notifications():
            cursor = str(frame["cursor"])
            event: JSON = frame["event"]
            messages = self._addressed(event)
            if not messages:
                self._pending.append(_Pending(cursor, done=True))
                self._advance()
                continue
            # The bound: with every slot busy, the next frame waits here (and the socket with it).
            await self._slots.acquire()
            entry = _Pending(cursor)
            self._pending.append(entry)
            self._spawn(self._handle_frame(entry, event, messages))

    async def _handle_frame(self, entry: _Pending, event: JSON, messages: list[JSON]) -> None:
        assert self._slots is not None
        finished = False
        try:
            await self._call_handlers(event, messages, entry.cursor)
            finished = True
        finally:
            self._slots.release()
            # A handler cut short at shutdown leaves its event for the next start.
            if finished:
                entry.done = True
                self._advance()

    def _advance(self) -> None:
        """Moves the cursor past the events handled so far, in order, and writes it."""
        moved = False
        while self._pending and self._pending[0].done:
            self.cursor = self._pending.popleft().cursor
            moved = True
        if moved:
            self._save_cursor()

    # --- webhook mode -----------------------------------------------------------------------
    def _accept_delivery(self, event: JSON, webhook_id: str) -> bool:
        """Called on the receiver's request thread: takes the delivery (it is answered 204 at once) or,
        with the backlog full or the bot stopping, declines it (503; Skein sends it again later)."""
        loop, stopping = self._loop, self._stopping
        if loop is None or stopping is None or stopping.is_set():
            return False
        with self._lock:
            if self._accepted >= self.concurrency + WEBHOOK_BACKLOG:
                return False
            self._accepted += 1
        try:
            loop.call_soon_threadsafe(self._spawn_delivery, event, webhook_id)
        except RuntimeError:  # the loop has closed
            with self._lock:
                self._accepted -= 1
            return False
        return True

    def _spawn_delivery(self, event: JSON, webhook_id: str) -> None:
        self._spawn(self._handle_delivery(event, webhook_id))

    async def _handle_delivery(self, event: JSON, webhook_id: str) -> None:
        assert self._slots is not None
        try:
            messages = self._addressed(event)
            if messages:
                async with self._slots:
                    await self._call_handlers(event, messages, webhook_id)
        finally:
            with self._lock:
                self._accepted -= 1

    # --- shared -----------------------------------------------------------------------------
    def _addressed(self, event: JSON) -> list[JSON]:
        """The messages of the event that are new messages for the bot: not the bot's own."""
        if event.get("type") not in self.events:
            return []
        messages: list[JSON] = (event.get("content") or {}).get("messages") or []
        return [m for m in messages if (m.get("author") or {}).get("uid") != self.uid]

    async def _call_handlers(self, event: JSON, messages: list[JSON], event_key: str) -> None:
        for data in messages:
            message = Message(data, event, self, event_key)
            log.info("handling %s message %s from @%s", message.event_type, message.id, message.author_tag)
            shown = asyncio.get_running_loop().call_later(TYPING_DELAY, message._typing.start) if self.typing else None
            try:
                await self._run_handlers(message)
            finally:
                if shown is not None:
                    shown.cancel()
                await message._typing.stop()

    async def _run_handlers(self, message: Message) -> None:
        for handler in self._handlers:
            try:
                if inspect.iscoroutinefunction(handler):
                    await handler(message)
                else:
                    result = await asyncio.to_thread(handler, message)
                    if inspect.isawaitable(result):
                        await result
            except Exception:
                log.exception("the handler %s failed on message %s", getattr(handler, "__name__", handler), message.id)

    def _spawn(self, work: Awaitable[None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _begin(self, handle_signals: bool) -> asyncio.Event:
        if self._loop is not None:
            raise RuntimeError("this bot is already running")
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._stopping = asyncio.Event()
        self._slots = asyncio.Semaphore(self.concurrency)
        self._pending.clear()
        if self.client.is_closed:
            self.client = AsyncSkeinClient(self.base_url, token=self.token, api_key=self.api_key)
        if handle_signals:
            for sig in (signal.SIGINT, signal.SIGTERM):
                try:
                    loop.add_signal_handler(sig, self._on_signal, sig)
                    self._signals.append(sig)
                except (NotImplementedError, RuntimeError):  # not on this platform or thread
                    pass
        return self._stopping

    def _on_signal(self, sig: signal.Signals) -> None:
        log.info("%s: stopping once %d running handler(s) finish", sig.name, len(self._tasks))
        self.stop()

    async def _finish(self) -> None:
        """Lets the running handlers finish (at most ``shutdown_timeout`` seconds), then cancels the rest."""
        if self._tasks:
            _, late = await asyncio.wait(set(self._tasks), timeout=self.shutdown_timeout)
            for task in late:
                task.cancel()
            if late:
                log.warning("cancelled %d handler(s) still running after %.0f s", len(late), self.shutdown_timeout)
                await asyncio.wait(late)
        self._save_cursor()

    async def _end(self) -> None:
        loop = self._loop
        for sig in self._signals:
            if loop is not None:
                loop.remove_signal_handler(sig)
        self._signals.clear()
        self.webhook = None
        await self.client.aclose()
        self._loop = None

    # --- the cursor file --------------------------------------------------------------------
    def _load_cursor(self) -> str | None:
        if self.cursor_file is None or not self.cursor_file.exists():
            return None
        text = self.cursor_file.read_text(encoding="utf-8").strip()
        if text and not text.startswith("{"):
            return text  # the TypeScript SDK's form, the bare cursor: one file serves either language
        try:
            saved = json.loads(text)
            cursor = saved["cursor"]
            if not isinstance(cursor, str):
                raise TypeError("cursor is not a string")
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{self.cursor_file} is not a cursor file written by this bot ({error})") from error
        return cursor

    def _save_cursor(self) -> None:
        """Writes the cursor atomically: a new file, flushed to disk, then renamed over the old one."""
        if self.cursor_file is None or self.cursor is None:
            return
        path = self.cursor_file
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(temporary, "w", encoding="utf-8") as out:
                json.dump({"cursor": self.cursor}, out)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, path)
        except OSError:
            log.exception("cannot write the cursor to %s", path)


def _failed(future: asyncio.Future[Any]) -> bool:
    return future.done() and (future.cancelled() or future.exception() is not None)


def _configure_logging() -> None:
    """``run`` is a program's entry point: unless the program set up logging, log to stderr at INFO."""
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        logging.getLogger("httpx").setLevel(logging.WARNING)
