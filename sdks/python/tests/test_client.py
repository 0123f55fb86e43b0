"""SkeinClient against a running Skein: auth, posting, reading, replies that keep the audience, saved
messages and user search."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from skein_chat import MessageRejected, SkeinClient, SkeinError

from .conftest import PASSWORD, User, unique_tag


def test_when_a_user_registers_and_logs_in_then_the_client_uses_the_new_session(base_url: str) -> None:
    tag = unique_tag()
    with SkeinClient(base_url) as client:
        tokens = client.register(tag, PASSWORD)
        assert tokens["token_type"] == "Bearer"
        assert client.me()["user_tag"] == tag
    with SkeinClient(base_url) as again:
        again.login(PASSWORD, user_tag=tag)
        assert again.me()["user_tag"] == tag


def test_when_the_password_is_wrong_then_a_skein_error_carries_the_status_and_code(base_url: str) -> None:
    with SkeinClient(base_url) as client, pytest.raises(SkeinError) as caught:
        client.login("not-the-password-at-all", user_tag=unique_tag())
    assert caught.value.status == 401


def test_when_a_message_is_posted_then_its_recipient_can_read_it(new_writer: Callable[[], User]) -> None:
    alice, bob = new_writer(), new_writer()
    posted = alice.client.post("hello from python", recipients=[f"uid:{bob.uid}"])
    read = bob.client.get_message(posted["id"])
    assert read["content"] == "hello from python"
    assert read["author"]["uid"] == alice.uid


def test_when_an_item_fails_then_post_raises_message_rejected(new_writer: Callable[[], User]) -> None:
    alice = new_writer()
    with pytest.raises(MessageRejected) as caught:
        alice.client.post("to nobody", recipients=[f"uid:{'0' * 8}"])
    assert caught.value.status == 404


def test_when_a_user_replies_then_the_reply_reaches_the_parents_author_and_cc(
    new_writer: Callable[[], User],
) -> None:
    alice, bob, carol = new_writer(), new_writer(), new_writer()
    parent = alice.client.post("question", recipients=[f"uid:{bob.uid}", f"uid:{carol.uid}"])
    reply = bob.client.reply(parent, "answer")
    assert reply["parent_id"] == parent["id"]
    assert {r["uid"] for r in reply["recipients"]} >= {alice.uid, carol.uid}
    assert alice.client.get_message(reply["id"])["content"] == "answer"
    assert carol.client.get_message(reply["id"])["content"] == "answer"
    # Without the audience, a reply reaches only whom it names: the contrast shows reply() set it.
    bare = bob.client.post("aside", parent_id=parent["id"])
    with pytest.raises(SkeinError) as caught:
        alice.client.get_message(bare["id"])
    assert caught.value.status == 404


def test_when_notifications_are_read_from_a_cursor_then_only_later_events_come(
    new_writer: Callable[[], User],
) -> None:
    alice, bob = new_writer(), new_writer()
    start = bob.client.notifications()["cursor"]
    first = alice.client.post("one", recipients=[f"uid:{bob.uid}"])
    page = bob.client.notifications(since=start)
    ids = [m["id"] for n in page["notifications"] for m in n["event"]["content"]["messages"]]
    assert ids == [first["id"]]
    second = alice.client.post("two", recipients=[f"uid:{bob.uid}"])
    later = bob.client.notifications(since=page["cursor"])
    assert [m["id"] for n in later["notifications"] for m in n["event"]["content"]["messages"]] == [second["id"]]


def test_when_messages_are_saved_listed_and_unsaved_then_bookmarks_follow_the_saved_state(
    new_writer: Callable[[], User],
) -> None:
    alice, bob = new_writer(), new_writer()
    first = alice.client.post("keep this", recipients=[f"uid:{bob.uid}"])
    second = alice.client.post("and this", recipients=[f"uid:{bob.uid}"])
    saved = bob.client.bookmark(first["id"])
    assert saved["message_id"] == first["id"] and saved["saved"] is True
    assert bob.client.bookmark(first["id"])["saved_at"] == saved["saved_at"]
    bob.client.bookmark(second["id"])
    page = bob.client.bookmarks()
    assert sorted(m["id"] for m in page["messages"]) == sorted([first["id"], second["id"]])
    assert all(m["is_saved"] for m in page["messages"])
    assert bob.client.bookmarks(limit=1)["has_more"] is True
    assert bob.client.bookmarks(skip=1, limit=1)["has_more"] is False
    assert bob.client.unbookmark(second["id"]) == {"message_id": second["id"], "saved": False}
    assert [m["id"] for m in bob.client.bookmarks()["messages"]] == [first["id"]]
    with pytest.raises(SkeinError) as caught:
        alice.client.bookmark("0" * 8)
    assert caught.value.status == 404


def test_when_the_author_edits_a_message_then_the_history_keeps_the_old_content(
    new_writer: Callable[[], User],
) -> None:
    alice, bob = new_writer(), new_writer()
    posted = alice.client.post("first words", recipients=[f"uid:{bob.uid}"])
    edited = alice.client.edit_message(posted["id"], "second words")
    assert edited["content"] == "second words" and edited["edited_at"] is not None
    assert [e["content"] for e in bob.client.message_edits(posted["id"])["edits"]] == ["first words"]
    with pytest.raises(SkeinError) as caught:
        bob.client.edit_message(posted["id"], "not mine")
    assert caught.value.status == 403


def test_when_messages_addressed_to_a_user_arrive_then_unread_counts_count_them_and_a_thread_is_marked_read(
    new_writer: Callable[[], User],
) -> None:
    alice, bob = new_writer(), new_writer()
    root = alice.client.post("unread one", recipients=[f"uid:{bob.uid}"])
    reply = alice.client.post("unread two", parent_id=root["id"], recipients=[f"uid:{bob.uid}"])
    counts = bob.client.unread_counts()
    assert (counts["total_messages"], counts["total_threads"]) == (2, 1)
    assert counts["threads"][0]["latest_message_id"] == reply["id"]
    assert bob.client.mark_thread_read(reply["id"]) == {"message_id": reply["id"], "marked_read": 2}
    assert bob.client.unread_counts(limit=5)["total_messages"] == 0
    with pytest.raises(SkeinError) as caught:
        bob.client.mark_thread_read("0" * 8)
    assert caught.value.status == 404


def test_when_a_manager_edits_and_deactivates_a_bot_then_the_client_answers_its_profile(
    new_writer: Callable[[], User],
) -> None:
    manager = new_writer()
    bot = manager.client.request("POST", "/v1/managed/users", {"user_tag": unique_tag("pybot"), "is_bot": True})
    edited = manager.client.update_managed_user(bot["uid"], display_name="Renamed in Python")
    assert edited["display_name"] == "Renamed in Python" and edited["deactivated_at"] is None
    assert manager.client.set_managed_user_active(bot["uid"], False)["deactivated_at"] is not None
    assert manager.client.set_managed_user_active(bot["uid"], True)["deactivated_at"] is None
    # A bot without a verified endpoint has no secret to rotate, and no delivery to send again: the
    # calls reach their routes, which refuse them.
    with pytest.raises(SkeinError) as no_endpoint:
        manager.client.rotate_endpoint_secret(bot["uid"], overlap_seconds=0)
    assert (no_endpoint.value.status, no_endpoint.value.code) == (404, "endpoint_not_found")
    with pytest.raises(SkeinError) as no_delivery:
        manager.client.redeliver(bot["uid"], "msg_" + "0" * 32 + "_" + "0" * 8)
    assert (no_delivery.value.status, no_delivery.value.code) == (404, "delivery_not_found")


def test_when_users_are_searched_then_the_exact_tag_comes_first_then_display_names(base_url: str) -> None:
    stem = unique_tag("pysearch")
    with SkeinClient(base_url) as named, SkeinClient(base_url) as exact:
        named.register(unique_tag(), PASSWORD, display_name=f"Named {stem}")
        exact.register(stem, PASSWORD)
        found = named.search_users(stem.upper())
        assert [(u["user_tag"], u["display_name"]) for u in found] == [
            (stem, None),
            (found[1]["user_tag"], f"Named {stem}"),
        ]
        assert [u["user_tag"] for u in named.search_users(stem, limit=1)] == [stem]
        with pytest.raises(SkeinError) as caught:
            named.search_users("  ")
        assert caught.value.status == 422 and caught.value.code == "validation_error"
