"""The Atom feeds are valid Atom (RFC 4287) as a feed reader reads them: id, updated, authors."""

from __future__ import annotations

import feedparser
import pytest
from django.urls import reverse

from clipping.feeds import list_feed_url
from tests.factories import make_list, make_match, make_site, make_user

pytestmark = pytest.mark.django_db


def read(client, url: str):
    response = client.get(url)
    assert response.status_code == 200
    return feedparser.parse(response.content)


def test_the_personal_feed_names_its_author_id_and_update_time(client, settings):
    alice = make_user("alice@example.com")
    energy = make_list(alice, "Energy", "subsidy")
    clip = make_match(energy, title="Council backs solar subsidies").clip
    clip.site = make_site("The Daily Demo")
    clip.save()

    feed = read(client, reverse("clip_feed", args=[alice.feed_token]))

    assert feed.bozo == 0 and feed.version == "atom10"
    assert feed.feed.author_detail.name == settings.SITE_NAME
    assert feed.feed.id and feed.feed.updated_parsed
    (entry,) = feed.entries
    assert entry.id.startswith("tag:") and entry.updated_parsed
    assert entry.author == "The Daily Demo"
    assert "The Daily Demo" in entry.summary


def test_a_list_feed_speaks_its_owners_language(client):
    alice = make_user("alice@example.com", language="de")
    energy = make_list(alice, "Energie", "subsidy")
    make_match(energy)

    feed = read(client, list_feed_url(energy).removeprefix("http://127.0.0.1:8000"))

    assert feed.bozo == 0
    assert feed.feed.subtitle == "Artikel, die zur Stichwortliste „Energie“ passen."
    assert feed.feed.author_detail.name == "Webclip" and feed.entries[0].author
