"""What each REST call of Skein's /v1 API sends and how its answer is read.

SkeinClient (httpx.Client) and AsyncSkeinClient (httpx.AsyncClient) send the same calls: each of
their methods builds one ``Call`` here and runs it, so a path, a body or an answer's shape is
written once for both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from datetime import datetime, timezone
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx

JSON = dict[str, Any]
T = TypeVar("T")


class SkeinError(Exception):
    """A non-2xx answer: the contract's ``{"detail", "code"}`` body with the status.

    ``retry_after`` holds the ``Retry-After`` header in seconds when the answer had one (429, 503).
    """

    def __init__(self, status: int, code: str, detail: Any, retry_after: float | None = None) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.retry_after = retry_after


class MessageRejected(SkeinError):
    """One item of a POST /v1/messages batch failed on its own (the batch answered 200)."""


def _same(answer: Any) -> Any:
    return answer


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request, and how its parsed JSON answer becomes the method's result."""

    method: str
    path: str
    body: Any = None
    params: dict[str, Any] | None = None
    headers: dict[str, str] | None = None
    read: Callable[[Any], T] = _same


def segment(value: str) -> str:
    """A path segment, escaped."""
    return quote(value, safe="")


def present(**params: Any) -> dict[str, Any]:
    """Query parameters or body fields without the ones left out (None)."""
    return {name: value for name, value in params.items() if value is not None}


def auth_headers(token: str | None, api_key: str | None) -> dict[str, str]:
    if token:
        return {"authorization": f"Bearer {token}"}
    if api_key:
        return {"x-api-key": api_key}
    return {}


def read_answer(res: httpx.Response) -> Any:
    """The parsed JSON body; raises SkeinError on a non-2xx status."""
    try:
        parsed = res.json() if res.content else None
    except ValueError:
        parsed = res.text
    if res.is_error:
        error = parsed if isinstance(parsed, dict) else {}
        raise SkeinError(
            res.status_code,
            str(error.get("code", "http_error")),
            error.get("detail", res.text),
            retry_after=_retry_after(res.headers.get("retry-after")),
        )
    return parsed


def _retry_after(value: str | None) -> float | None:
    """Retry-After as seconds: either a number of seconds or an HTTP date."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


# --- the calls --------------------------------------------------------------------------------
def register(user_tag: str, password: str, fields: JSON) -> Call[JSON]:
    return Call("POST", "/v1/auth/register", {"user_tag": user_tag, "password": password, **fields})


def login(password: str, user_tag: str | None, email: str | None) -> Call[JSON]:
    return Call("POST", "/v1/auth/password/login", {"password": password, **present(user_tag=user_tag, email=email)})


def me() -> Call[JSON]:
    return Call("GET", "/v1/users/me")


def search_users(q: str, limit: int | None) -> Call[list[JSON]]:
    return Call("GET", "/v1/users/search", params=present(q=q, limit=limit), read=_users)


def _users(answer: Any) -> list[JSON]:
    users: list[JSON] = answer["users"]
    return users


def post(content: str, idempotency_key: str | None, fields: JSON) -> Call[JSON]:
    headers = {"idempotency-key": idempotency_key} if idempotency_key else None
    return Call("POST", "/v1/messages", {"content": content, **fields}, headers=headers, read=_first_message)


def _first_message(results: Any) -> JSON:
    result = results[0]
    if not result["ok"]:
        error = result["error"]
        raise MessageRejected(error["status"], error["code"], error["detail"])
    message: JSON = result["message"]
    return message


def reply(message: str | JSON, content: str, idempotency_key: str | None, fields: JSON) -> Call[JSON]:
    """A chat reply: ``"audience": "parent"`` also reaches the parent's author, its CC recipients and
    the parent's channels the poster belongs to."""
    parent_id = message if isinstance(message, str) else message["id"]
    return post(content, idempotency_key, {"parent_id": parent_id, "audience": "parent", **fields})


def get_message(message_id: str) -> Call[JSON]:
    return Call("GET", f"/v1/messages/{segment(message_id)}")


def message_context(message_id: str, limit: int | None, max_chars: int | None) -> Call[JSON]:
    return Call(
        "GET", f"/v1/messages/{segment(message_id)}/context", params=present(limit=limit, max_chars=max_chars)
    )


def edit_message(message_id: str, content: str) -> Call[JSON]:
    return Call("PATCH", f"/v1/messages/{segment(message_id)}/content", {"content": content})


def message_edits(message_id: str) -> Call[JSON]:
    return Call("GET", f"/v1/messages/{segment(message_id)}/edits")


def notifications(since: str | None, limit: int | None) -> Call[JSON]:
    return Call("GET", "/v1/notifications", params=present(since=since, limit=limit))


def bookmark(message_id: str) -> Call[JSON]:
    return Call("PUT", f"/v1/messages/{segment(message_id)}/bookmark")


def unbookmark(message_id: str) -> Call[JSON]:
    return Call("DELETE", f"/v1/messages/{segment(message_id)}/bookmark")


def bookmarks(skip: int | None, limit: int | None) -> Call[JSON]:
    return Call("GET", "/v1/messages/bookmarks", params=present(skip=skip, limit=limit))


def unread_counts(skip: int | None, limit: int | None) -> Call[JSON]:
    return Call("GET", "/v1/messages/unread", params=present(skip=skip, limit=limit))


def mark_thread_read(message_id: str) -> Call[JSON]:
    return Call("POST", f"/v1/messages/{segment(message_id)}/thread/read")


def update_managed_user(uid: str, changes: JSON) -> Call[JSON]:
    return Call("PATCH", f"/v1/managed/users/{segment(uid)}", changes)


def set_managed_user_active(uid: str, active: bool) -> Call[JSON]:
    return Call("POST", f"/v1/managed/users/{segment(uid)}/{'reactivate' if active else 'deactivate'}")


def rotate_endpoint_secret(uid: str, overlap_seconds: int | None) -> Call[JSON]:
    body = present(overlap_seconds=overlap_seconds)
    return Call("POST", f"/v1/managed/users/{segment(uid)}/endpoint/secret/rotate", body)


def redeliver(uid: str, webhook_id: str) -> Call[JSON]:
    return Call("POST", f"/v1/managed/users/{segment(uid)}/deliveries/{segment(webhook_id)}/redeliver")


def set_endpoint_options(uid: str, include_context: bool) -> Call[JSON]:
    return Call("PATCH", f"/v1/managed/users/{segment(uid)}/endpoint", {"include_context": include_context})


def request_endpoint(url: str) -> Call[JSON]:
    return Call("POST", "/v1/auth/contacts/endpoint/request", {"url": url})


def verify_endpoint(url: str) -> Call[JSON]:
    return Call("POST", "/v1/auth/contacts/endpoint/verify", {"url": url})
