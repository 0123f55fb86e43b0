"""A client of Skein's REST API (/v1) on httpx: ``SkeinClient`` (blocking) and ``AsyncSkeinClient``.

Both have the same methods with the same arguments and answers (the async one's are coroutines);
what each call sends is in ``_api.py``.
"""

from __future__ import annotations

from typing import Any, TypeVar

import httpx

from . import _api
from ._api import JSON, Call, MessageRejected, SkeinError

__all__ = ["JSON", "AsyncSkeinClient", "MessageRejected", "SkeinClient", "SkeinError"]

T = TypeVar("T")


class _Credentials:
    base_url: str
    token: str | None
    api_key: str | None

    def auth_headers(self) -> dict[str, str]:
        return _api.auth_headers(self.token, self.api_key)

    def _headers(self, extra: dict[str, str] | None) -> dict[str, str]:
        return {"accept": "application/json", **self.auth_headers(), **(extra or {})}


class SkeinClient(_Credentials):
    """Authenticates with a session token (``Authorization: Bearer``) or an API key (``x-api-key``).

    ``login`` and ``register`` switch the client to the session they return. A non-2xx answer raises
    ``SkeinError`` (``status``, ``code``, ``detail``).
    """

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.api_key = api_key
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout, transport=transport)

    def __enter__(self) -> SkeinClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # --- auth -------------------------------------------------------------------------------
    def register(self, user_tag: str, password: str, **fields: Any) -> JSON:
        """POST /v1/auth/register (``email``, ``display_name`` optional); the client then uses the session."""
        tokens = self._run(_api.register(user_tag, password, fields))
        self.token = tokens["access_token"]
        return tokens

    def login(self, password: str, *, user_tag: str | None = None, email: str | None = None) -> JSON:
        """POST /v1/auth/password/login with a user tag or an email; the client then uses the session."""
        tokens = self._run(_api.login(password, user_tag, email))
        self.token = tokens["access_token"]
        return tokens

    def me(self) -> JSON:
        return self._run(_api.me())

    def search_users(self, q: str, limit: int | None = None) -> list[JSON]:
        """GET /v1/users/search: someone to write to, by tag prefix (the exact tag first) or by the start of
        words of the display name; answers the users (at most ``limit``, 1-50, default 10)."""
        return self._run(_api.search_users(q, limit))

    # --- messages ---------------------------------------------------------------------------
    def post(self, content: str, *, idempotency_key: str | None = None, **fields: Any) -> JSON:
        """POST /v1/messages with one MessageInput; answers the MessageOutput or raises MessageRejected.
        The same ``idempotency_key`` within 24 hours answers the first result and creates nothing."""
        return self._run(_api.post(content, idempotency_key, fields))

    def reply(self, message: str | JSON, content: str, *, idempotency_key: str | None = None, **fields: Any) -> JSON:
        """Replies as a chat reply does: ``"audience": "parent"`` also reaches the parent's author,
        its CC recipients and the parent's channels you belong to."""
        return self._run(_api.reply(message, content, idempotency_key, fields))

    def get_message(self, message_id: str) -> JSON:
        return self._run(_api.get_message(message_id))

    def message_context(self, message_id: str, *, limit: int | None = None, max_chars: int | None = None) -> JSON:
        """GET /v1/messages/{message_id}/context: ``{"message_id", "entries", "truncated"}``, the conversation a
        message you may see belongs to, oldest first, as chat-model turns (``role`` ``assistant`` for what
        you wrote, ``user`` for the rest): your starting context when you are a bot with a
        ``context_origin_id``, the reply ancestors you may see from the root down, then the message.
        ``limit`` entries (1-500, default 100) and ``max_chars`` content characters (default 100000)."""
        return self._run(_api.message_context(message_id, limit, max_chars))

    def edit_message(self, message_id: str, content: str) -> JSON:
        """PATCH /v1/messages/{message_id}/content: the author (or its manager) edits the content;
        answers the MessageOutput, whose ``edited_at`` is set. The old content is kept."""
        return self._run(_api.edit_message(message_id, content))

    def message_edits(self, message_id: str) -> JSON:
        """GET /v1/messages/{message_id}/edits: ``{"message_id", "edits"}``, the contents edits replaced, oldest first."""
        return self._run(_api.message_edits(message_id))

    def notifications(self, since: str | None = None, limit: int | None = None) -> JSON:
        """GET /v1/notifications: ``{"notifications", "cursor", "has_more"}`` after ``since``."""
        return self._run(_api.notifications(since, limit))

    # --- saved messages and unread counts ---------------------------------------------------
    def bookmark(self, message_id: str) -> JSON:
        """PUT /v1/messages/{message_id}/bookmark: saves a message you can see; saving again keeps the
        first ``saved_at``. Answers ``{"message_id", "saved": True, "saved_at"}``."""
        return self._run(_api.bookmark(message_id))

    def unbookmark(self, message_id: str) -> JSON:
        """DELETE /v1/messages/{message_id}/bookmark: answers ``"saved": False``, also when it was not saved."""
        return self._run(_api.unbookmark(message_id))

    def bookmarks(self, skip: int | None = None, limit: int | None = None) -> JSON:
        """GET /v1/messages/bookmarks: your saved messages you can still see, newest bookmark first, as
        ``{"messages", "skip", "limit", "has_more"}``."""
        return self._run(_api.bookmarks(skip, limit))

    def unread_counts(self, skip: int | None = None, limit: int | None = None) -> JSON:
        """GET /v1/messages/unread: ``{"total_messages", "total_threads", "threads", "skip", "limit",
        "has_more"}``, one page of threads, newest unread first."""
        return self._run(_api.unread_counts(skip, limit))

    def mark_thread_read(self, message_id: str) -> JSON:
        """POST /v1/messages/{message_id}/thread/read: answers ``{"message_id", "marked_read"}``."""
        return self._run(_api.mark_thread_read(message_id))

    # --- a bot's managers and endpoints -----------------------------------------------------
    def update_managed_user(self, uid: str, **changes: Any) -> JSON:
        """PATCH /v1/managed/users/{uid}: edits a bot's profile and bot metadata; answers the UserOutput."""
        return self._run(_api.update_managed_user(uid, changes))

    def set_managed_user_active(self, uid: str, active: bool) -> JSON:
        """POST /v1/managed/users/{uid}/deactivate (or /reactivate)."""
        return self._run(_api.set_managed_user_active(uid, active))

    def rotate_endpoint_secret(self, uid: str, overlap_seconds: int | None = None) -> JSON:
        """POST /v1/managed/users/{uid}/endpoint/secret/rotate: ``{"secret", "previous_expires_at"}``."""
        return self._run(_api.rotate_endpoint_secret(uid, overlap_seconds))

    def set_endpoint_options(self, uid: str, *, include_context: bool) -> JSON:
        """PATCH /v1/managed/users/{uid}/endpoint: ``{"url", "include_context", "enabled"}``. With
        ``include_context`` each delivered message carries ``message_context``, its conversation context
        as ``message_context()`` reads it for the user (off by default)."""
        return self._run(_api.set_endpoint_options(uid, include_context))

    def redeliver(self, uid: str, webhook_id: str) -> JSON:
        """POST /v1/managed/users/{uid}/deliveries/{webhook_id}/redeliver: one more attempt of a failed delivery."""
        return self._run(_api.redeliver(uid, webhook_id))

    def verify_endpoint(self, url: str) -> JSON:
        """POST /v1/auth/contacts/endpoint/request, then /verify: Skein sends a nonce to ``url``, which
        must echo it (WebhookBot does). Answers the verified contact with its ``whsec_`` ``secret``."""
        self._run(_api.request_endpoint(url))
        return self._run(_api.verify_endpoint(url))

    # --- anything else ----------------------------------------------------------------------
    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Any:
        """Sends one request; answers the parsed JSON body, raises SkeinError on a non-2xx status."""
        return self._run(Call(method, path, body, params, headers))

    def _run(self, call: Call[T]) -> T:
        res = self._http.request(
            call.method, call.path, json=call.body, params=call.params, headers=self._headers(call.headers)
        )
        return call.read(_api.read_answer(res))


class AsyncSkeinClient(_Credentials):
    """SkeinClient on ``httpx.AsyncClient``: the same methods, as coroutines.

    ``async with AsyncSkeinClient(url, token=...) as client: await client.post(...)``
    """

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.api_key = api_key
        self._http = httpx.AsyncClient(base_url=self.base_url, timeout=timeout, transport=transport)

    async def __aenter__(self) -> AsyncSkeinClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    @property
    def is_closed(self) -> bool:
        return self._http.is_closed

    async def register(self, user_tag: str, password: str, **fields: Any) -> JSON:
        """POST /v1/auth/register; the client then uses the session."""
        tokens = await self._run(_api.register(user_tag, password, fields))
        self.token = tokens["access_token"]
        return tokens

    async def login(self, password: str, *, user_tag: str | None = None, email: str | None = None) -> JSON:
        """POST /v1/auth/password/login; the client then uses the session."""
        tokens = await self._run(_api.login(password, user_tag, email))
        self.token = tokens["access_token"]
        return tokens

    async def me(self) -> JSON:
        return await self._run(_api.me())

    async def search_users(self, q: str, limit: int | None = None) -> list[JSON]:
        return await self._run(_api.search_users(q, limit))

    async def post(self, content: str, *, idempotency_key: str | None = None, **fields: Any) -> JSON:
        return await self._run(_api.post(content, idempotency_key, fields))

    async def reply(
        self, message: str | JSON, content: str, *, idempotency_key: str | None = None, **fields: Any
    ) -> JSON:
        return await self._run(_api.reply(message, content, idempotency_key, fields))

    async def get_message(self, message_id: str) -> JSON:
        return await self._run(_api.get_message(message_id))

    async def message_context(
        self, message_id: str, *, limit: int | None = None, max_chars: int | None = None
    ) -> JSON:
        return await self._run(_api.message_context(message_id, limit, max_chars))

    async def edit_message(self, message_id: str, content: str) -> JSON:
        return await self._run(_api.edit_message(message_id, content))

    async def message_edits(self, message_id: str) -> JSON:
        return await self._run(_api.message_edits(message_id))

    async def notifications(self, since: str | None = None, limit: int | None = None) -> JSON:
        return await self._run(_api.notifications(since, limit))

    async def bookmark(self, message_id: str) -> JSON:
        return await self._run(_api.bookmark(message_id))

    async def unbookmark(self, message_id: str) -> JSON:
        return await self._run(_api.unbookmark(message_id))

    async def bookmarks(self, skip: int | None = None, limit: int | None = None) -> JSON:
        return await self._run(_api.bookmarks(skip, limit))

    async def unread_counts(self, skip: int | None = None, limit: int | None = None) -> JSON:
        return await self._run(_api.unread_counts(skip, limit))

    async def mark_thread_read(self, message_id: str) -> JSON:
        return await self._run(_api.mark_thread_read(message_id))

    async def update_managed_user(self, uid: str, **changes: Any) -> JSON:
        return await self._run(_api.update_managed_user(uid, changes))

    async def set_managed_user_active(self, uid: str, active: bool) -> JSON:
        return await self._run(_api.set_managed_user_active(uid, active))

    async def rotate_endpoint_secret(self, uid: str, overlap_seconds: int | None = None) -> JSON:
        return await self._run(_api.rotate_endpoint_secret(uid, overlap_seconds))

    async def set_endpoint_options(self, uid: str, *, include_context: bool) -> JSON:
        return await self._run(_api.set_endpoint_options(uid, include_context))

    async def redeliver(self, uid: str, webhook_id: str) -> JSON:
        return await self._run(_api.redeliver(uid, webhook_id))

    async def verify_endpoint(self, url: str) -> JSON:
        await self._run(_api.request_endpoint(url))
        return await self._run(_api.verify_endpoint(url))

    async def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Any:
        return await self._run(Call(method, path, body, params, headers))

    async def _run(self, call: Call[T]) -> T:
        res = await self._http.request(
            call.method, call.path, json=call.body, params=call.params, headers=self._headers(call.headers)
        )
        return call.read(_api.read_answer(res))
