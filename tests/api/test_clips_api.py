"""Clips and deliveries over the API: filters, paging, read and unread."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from clipping.models import Delivery, Match
from tests.factories import make_clip, make_list, make_match, make_site

pytestmark = pytest.mark.django_db


def _found(match: Match, hours_ago: float) -> Match:
    Match.objects.filter(pk=match.pk).update(found_at=timezone.now() - timedelta(hours=hours_ago))
    return match


@pytest.fixture
def clips(alice, bob):
    """Alice's lists and clips at known times; one of Bob's clip of Alice's site."""
    daily, weekly = (
        make_site("Daily", "https://daily.example/"),
        make_site("Weekly", "https://weekly.example/"),
    )
    energy, cars = make_list(alice, "Energy", "subsidies"), make_list(alice, "Cars", "car")
    old = _found(make_match(energy, site=daily, title="Old", url="https://daily.example/old"), 48)
    new = _found(make_match(energy, site=weekly, title="New", url="https://weekly.example/new"), 1)
    both = make_match(cars, new.clip)  # the same clip found by a second list
    _found(both, 1)
    make_match(make_list(bob, "Bob's", "subsidies"), site=daily, title="Bob's")
    return {
        "daily": daily,
        "weekly": weekly,
        "energy": energy,
        "cars": cars,
        "old": old,
        "new": new,
    }


def titles(response) -> list[str]:
    assert response.status_code == 200
    return [item["title"] for item in response.json()["items"]]


def test_my_clips_come_newest_found_first_with_their_lists(alice_api, clips):
    items = alice_api.get("/api/clips").json()["items"]

    assert [item["title"] for item in items] == ["New", "Old"]
    assert items[0]["lists"] == sorted([clips["energy"].pk, clips["cars"].pk])
    assert items[0]["site_id"] == clips["weekly"].pk and items[0]["read"] is False


def test_clips_are_filtered_by_list_site_and_time(alice_api, clips):
    assert titles(alice_api.get("/api/clips", {"list": clips["cars"].pk})) == ["New"]
    assert titles(alice_api.get("/api/clips", {"site": clips["daily"].pk})) == ["Old"]
    since = (timezone.now() - timedelta(hours=5)).isoformat()
    assert titles(alice_api.get("/api/clips", {"since": since})) == ["New"]


def test_read_and_unread_are_marked_and_filtered(alice_api, clips):
    clip_id = clips["new"].clip_id

    marked = alice_api.send("POST", f"/api/clips/{clip_id}/read").json()

    assert marked["read"] is True
    assert not Match.objects.filter(clip_id=clip_id, read_at__isnull=True).exists()
    assert titles(alice_api.get("/api/clips", {"read": "true"})) == ["New"]
    assert titles(alice_api.get("/api/clips", {"read": "false"})) == ["Old"]

    assert alice_api.send("POST", f"/api/clips/{clip_id}/unread").json()["read"] is False
    assert titles(alice_api.get("/api/clips", {"read": "false"})) == ["New", "Old"]


def test_a_clip_is_read_only_when_every_one_of_my_matches_is(alice_api, clips):
    Match.objects.filter(pk=clips["new"].pk).update(read_at=timezone.now())

    assert alice_api.get(f"/api/clips/{clips['new'].clip_id}").json()["read"] is False


def test_pages_follow_one_another_by_offset(alice_api, alice):
    energy = make_list(alice, "Energy", "subsidies")
    for number in range(5):
        clip = make_clip(title=f"Clip {number}", url=f"https://news.example.com/{number}")
        _found(make_match(energy, clip), hours_ago=number)

    first = alice_api.get("/api/clips", {"limit": 2}).json()
    last = alice_api.get("/api/clips", {"limit": 2, "offset": 4}).json()

    assert [item["title"] for item in first["items"]] == ["Clip 0", "Clip 1"]
    assert first["next_offset"] == 2
    assert [item["title"] for item in last["items"]] == ["Clip 4"] and last["next_offset"] is None
    assert alice_api.get("/api/clips", {"limit": 1000}).status_code == 422


def test_my_deliveries_are_listed_newest_first_and_filtered_by_status(alice_api, alice, bob):
    match = make_match(make_list(alice, "Energy", "subsidies"))
    sent = Delivery.objects.create(user=alice, kind="instant", match=match, address=alice.email)
    sent.succeed("<id@example.com>")
    failed = Delivery.objects.create(user=alice, kind="instant", match=match, address=alice.email)
    failed.fail("550 no such user", permanent=True)
    Delivery.objects.create(user=bob, kind="instant", address=bob.email)

    everything = alice_api.get("/api/deliveries").json()["items"]
    only_failed = alice_api.get("/api/deliveries", {"status": "failed"}).json()["items"]

    assert [item["id"] for item in everything] == [failed.pk, sent.pk]
    assert everything[0]["clip_id"] == match.clip_id and everything[0]["permanent"] is True
    assert [item["id"] for item in only_failed] == [failed.pk]
    assert alice_api.get(f"/api/deliveries/{sent.pk}").json()["status"] == "sent"
