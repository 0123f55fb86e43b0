"""A small client of Skein's REST API (/v1), on httpx."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

JSON = dict[str, Any]


def _present(**params: Any) -> dict[str, Any]:
    """Query parameters without the ones left out (None)."""
    return {name: value for name, value in params.items() if value is not None}


class SkeinError(Exception):
    """A non-2xx answer: the contract's ``{"detail", "code"}`` body with the status."""

    def __init__(self, status: int, code: str, detail: Any) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail


class MessageRejected(SkeinError):
    """One item of a POST /v1/messages batch failed on its own (the batch answered 200)."""


class SkeinClient:
    """Authenticates with a session token (``Authorization: Bearer``) or an API key (``x-api-key``).

    ``login`` and ``register`` switch the client to the session they return.
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
        """POST /v1/auth/register (``email``, ``display_name`` optional)."""
        tokens = self.request("POST", "/v1/auth/register", {"user_tag": user_tag, "password": password, **fields})
        self.token = tokens["access_token"]
        return tokens

    def login(self, password: str, *, user_tag: str | None = None, email: str | None = None) -> JSON:
        """POST /v1/auth/password/login with a user tag or an email."""
        body: JSON = {"password": password}
        if user_tag is not None:
            body["user_tag"] = user_tag
        if email is not None:
            body["email"] = email
        tokens = self.request("POST", "/v1/auth/password/login", body)
        self.token = tokens["access_token"]
        return tokens

    def me(self) -> JSON:
        return self.request("GET", "/v1/users/me")

    def search_users(self, q: str, limit: int | None = None) -> list[JSON]:
        """GET /v1/users/search: someone to write to, by tag prefix (the exact tag first) or by the start of
        words of the display name; answers the users (at most ``limit``, 1-50, default 10)."""
        return self.request("GET", "/v1/users/search", params=_present(q=q, limit=limit))["users"]

    # --- messages ---------------------------------------------------------------------------
    def post(self, content: str, *, idempotency_key: str | None = None, **fields: Any) -> JSON:
        """POST /v1/messages with one MessageInput; answers the MessageOutput or raises MessageRejected."""
        headers = {"idempotency-key": idempotency_key} if idempotency_key else {}
        results = self.request("POST", "/v1/messages", {"content": content, **fields}, headers=headers)
        result = results[0]
        if not result["ok"]:
            error = result["error"]
            raise MessageRejected(error["status"], error["code"], error["detail"])
        return result["message"]

    def reply(self, message: str | JSON, content: str, **fields: Any) -> JSON:
        """Replies as a chat reply does: ``"audience": "parent"`` also reaches the parent's author,
        its CC recipients and the parent's channels you belong to."""
        parent_id = message if isinstance(message, str) else message["id"]
        return self.post(content, parent_id=parent_id, audience="parent", **fields)

    def get_message(self, message_id: str) -> JSON:
        return self.request("GET", f"/v1/messages/{message_id}")

    def edit_message(self, message_id: str, content: str) -> JSON:
        """PATCH /v1/messages/{message_id}/content: the author (or its manager) edits the content;
        answers the MessageOutput, whose ``edited_at`` is set. The old content is kept."""
        return self.request("PATCH", f"/v1/messages/{quote(message_id, safe='')}/content", {"content": content})

    def message_edits(self, message_id: str) -> JSON:
        """GET /v1/messages/{message_id}/edits: ``{"message_id", "edits"}``, the contents edits
        replaced, oldest first."""
        return self.request("GET", f"/v1/messages/{quote(message_id, safe='')}/edits")

    def notifications(self, since: str | None = None, limit: int | None = None) -> JSON:
        """GET /v1/notifications: ``{"notifications", "cursor", "has_more"}`` after ``since``."""
        return self.request("GET", "/v1/notifications", params=_present(since=since, limit=limit))

    # --- saved messages ---------------------------------------------------------------------
    def bookmark(self, message_id: str) -> JSON:
        """PUT /v1/messages/{message_id}/bookmark: saves a message you can see; saving again keeps the
        first ``saved_at``. Answers ``{"message_id", "saved": True, "saved_at"}``."""
        return self.request("PUT", f"/v1/messages/{quote(message_id, safe='')}/bookmark")

    def unbookmark(self, message_id: str) -> JSON:
        """DELETE /v1/messages/{message_id}/bookmark: answers ``"saved": False``, also when it was not saved."""
        return self.request("DELETE", f"/v1/messages/{quote(message_id, safe='')}/bookmark")

    def bookmarks(self, skip: int | None = None, limit: int | None = None) -> JSON:
        """GET /v1/messages/bookmarks: your saved messages you can still see, newest bookmark first, as
        ``{"messages", "skip", "limit", "has_more"}``."""
        return self.request("GET", "/v1/messages/bookmarks", params=_present(skip=skip, limit=limit))

    def unread_counts(self, skip: int | None = None, limit: int | None = None) -> JSON:
        """GET /v1/messages/unread: how many messages addressed to you are unread, as
        ``{"total_messages", "total_threads", "threads", "skip", "limit", "has_more"}`` (one page of
        threads, newest unread first, each ``{"root_id", "unread_count", "latest_message_id", "latest_at"}``)."""
        return self.request("GET", "/v1/messages/unread", params=_present(skip=skip, limit=limit))

    def mark_thread_read(self, message_id: str) -> JSON:
        """POST /v1/messages/{message_id}/thread/read: marks read everything addressed to you in that
        message's thread; answers ``{"message_id", "marked_read"}``."""
        return self.request("POST", f"/v1/messages/{quote(message_id, safe='')}/thread/read")

    def update_managed_user(self, uid: str, **changes: Any) -> JSON:
        """PATCH /v1/managed/users/{uid}: a manager edits a bot's profile and bot metadata
        (``display_name``, ``bio``, ``is_bot``, ``bot``); answers the UserOutput."""
        return self.request("PATCH", f"/v1/managed/users/{quote(uid, safe='')}", changes)

    def set_managed_user_active(self, uid: str, active: bool) -> JSON:
        """POST /v1/managed/users/{uid}/deactivate (or /reactivate): while deactivated its keys and
        sessions fail and its webhooks stop."""
        action = "reactivate" if active else "deactivate"
        return self.request("POST", f"/v1/managed/users/{quote(uid, safe='')}/{action}")

    def rotate_endpoint_secret(self, uid: str, overlap_seconds: int | None = None) -> JSON:
        """POST /v1/managed/users/{uid}/endpoint/secret/rotate: ``{"secret", "previous_expires_at"}``;
        the old secret also signs for ``overlap_seconds`` (default a day, 0 ends it at once)."""
        body = _present(overlap_seconds=overlap_seconds)
        return self.request("POST", f"/v1/managed/users/{quote(uid, safe='')}/endpoint/secret/rotate", body)

    def redeliver(self, uid: str, webhook_id: str) -> JSON:
        """POST /v1/managed/users/{uid}/deliveries/{webhook_id}/redeliver: one more attempt of a
        failed delivery with the same ``webhook-id``; answers the delivery as the log shows it."""
        path = f"/v1/managed/users/{quote(uid, safe='')}/deliveries/{quote(webhook_id, safe='')}/redeliver"
        return self.request("POST", path)

    # --- anything else ----------------------------------------------------------------------
    def auth_headers(self) -> dict[str, str]:
        if self.token:
            return {"authorization": f"Bearer {self.token}"}
        if self.api_key:
            return {"x-api-key": self.api_key}
        return {}

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
        all_headers = {"accept": "application/json", **self.auth_headers(), **(headers or {})}
        res = self._http.request(
            method, path, json=body if body is not None else None, params=params, headers=all_headers
        )
        try:
            parsed = res.json() if res.content else None
        except ValueError:
            parsed = res.text
        if res.is_error:
            error = parsed if isinstance(parsed, dict) else {}
            raise SkeinError(res.status_code, error.get("code", "http_error"), error.get("detail", res.text))
        return parsed
