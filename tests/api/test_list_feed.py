"""One Atom feed per keyword list, at a secret URL of its own, read by a feed reader."""

from __future__ import annotations

import feedparser
import pytest
from django.urls import reverse

from clipping.feeds import list_feed_token, list_feed_url
from tests.factories import make_list, make_match

pytestmark = pytest.mark.django_db


def test_a_lists_feed_holds_that_lists_clips_only(client, alice, bob):
    energy = make_list(alice, "Energy", "subsidies")
    cars = make_list(alice, "Cars", "car")
    make_match(energy, title="Solar subsidies", url="https://news.example.com/solar")
    make_match(cars, title="Car news", url="https://news.example.com/cars", term="car")
    make_match(
        make_list(bob, "Bob's", "subsidies"), title="Bob's", url="https://news.example.com/bob"
    )

    response = client.get(list_feed_url(energy).removeprefix("http://127.0.0.1:8000"))

    assert response.status_code == 200
    parsed = feedparser.parse(response.content)
    assert not parsed.bozo and parsed.version == "atom10"
    assert parsed.feed.title.endswith(": Energy")
    assert [entry.title for entry in parsed.entries] == ["Solar subsidies"]
    assert parsed.entries[0].link == "https://news.example.com/solar"
    assert "solar subsidies for panels" in parsed.entries[0].summary  # feedparser drops <mark>


def test_a_wrong_token_or_another_lists_token_gets_404(client, alice, bob):
    energy = make_list(alice, "Energy", "subsidies")
    cars = make_list(alice, "Cars", "car")
    bobs = make_list(bob, "Bob's", "subsidies")
    token = list_feed_token(energy)

    for pk, secret in [
        (energy.pk, token[:-1]),
        (energy.pk, token + "0"),
        (energy.pk, alice.feed_token),
        (cars.pk, token),
        (bobs.pk, token),
    ]:
        assert client.get(reverse("list_feed", args=[pk, secret])).status_code == 404


def test_a_new_personal_feed_address_revokes_the_list_feeds_too(client, alice):
    energy = make_list(alice, "Energy", "subsidies")
    old = reverse("list_feed", args=[energy.pk, list_feed_token(energy)])
    assert client.get(old).status_code == 200

    client.force_login(alice)
    client.post(reverse("account_rotate_feed_token"))
    energy.refresh_from_db()
    alice.refresh_from_db()

    assert client.get(old).status_code == 404
    assert (
        client.get(reverse("list_feed", args=[energy.pk, list_feed_token(energy)])).status_code
        == 200
    )


def test_the_list_page_shows_its_feed_url(client, alice):
    energy = make_list(alice, "Energy", "subsidies")
    client.force_login(alice)

    body = client.get(reverse("list_detail", args=[energy.pk])).content.decode()

    assert list_feed_url(energy) in body
