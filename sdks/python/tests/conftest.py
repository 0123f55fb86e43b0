"""Fixtures for the SDK's tests against a real running Skein.

Needs SKEIN_URL, SKEIN_ADMIN_TAG and SKEIN_ADMIN_PASSWORD (test/sdks/sdks.int.test.ts sets them for
the service it starts). The bot tests also need the service to deliver webhooks to loopback
(SKEIN_WEBHOOK_ALLOW_PRIVATE=true) with its webhook dispatcher running.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from skein_chat import SkeinClient

PASSWORD = "plenty-long-passphrase-42"
WRITER_SCOPES = ["messages.read", "messages.write", "realtime.connect", "channels.create"]


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: these tests run against a running Skein (see sdks/python/README.md)")
    return value


@pytest.fixture(scope="session")
def base_url() -> str:
    return _env("SKEIN_URL")


@pytest.fixture(scope="session")
def admin(base_url: str) -> Iterator[SkeinClient]:
    client = SkeinClient(base_url)
    client.login(_env("SKEIN_ADMIN_PASSWORD"), user_tag=_env("SKEIN_ADMIN_TAG"))
    yield client
    client.close()


@dataclass
class User:
    uid: str
    tag: str
    client: SkeinClient


def unique_tag(prefix: str = "py") -> str:
    return f"{prefix}{secrets.token_hex(5)}"


@pytest.fixture
def new_writer(base_url: str, admin: SkeinClient) -> Iterator[Callable[[], User]]:
    """Registers users holding the writer scopes (granted by the admin), each with a fresh session."""
    made: list[SkeinClient] = []

    def make() -> User:
        tag = unique_tag()
        client = SkeinClient(base_url)
        made.append(client)
        client.register(tag, PASSWORD)
        uid = client.me()["uid"]
        admin.request("PATCH", f"/v1/admin/users/{uid}", {"scopes": WRITER_SCOPES})
        client.login(PASSWORD, user_tag=tag)  # a session minted after the grant carries the scopes
        return User(uid=uid, tag=tag, client=client)

    yield make
    for client in made:
        client.close()


@pytest.fixture
def new_bot(base_url: str) -> Iterator[Callable[[User], User]]:
    """A bot managed by the given user, with a delegated session of its own."""
    made: list[SkeinClient] = []

    def make(manager: User) -> User:
        bot = manager.client.request(
            "POST", "/v1/managed/users", {"user_tag": unique_tag("pybot"), "is_bot": True}
        )
        tokens = manager.client.request("POST", "/v1/managed/auth/delegate", {"managed_uid": bot["uid"]})
        client = SkeinClient(base_url, token=tokens["access_token"])
        made.append(client)
        return User(uid=bot["uid"], tag=bot["user_tag"], client=client)

    yield make
    for client in made:
        client.close()
