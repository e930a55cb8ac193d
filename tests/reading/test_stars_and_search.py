"""Stars on clips (page, API, feed) and search by words, site and list."""

from __future__ import annotations

import feedparser
import pytest
from django.urls import reverse

from clipping.models import Star
from tests.api.clients import ApiClient, token_for
from tests.factories import make_clip, make_list, make_match, make_site

pytestmark = pytest.mark.django_db


@pytest.fixture
def clips(alice, bob):
    energy = make_list(alice, "Energy", "subsidies")
    harbour = make_site("Harbour Gazette", "https://gazette.example.org/")
    solar = make_match(energy, title="Council backs solar subsidies").clip
    ferry = make_match(
        energy,
        make_clip(harbour, title="Ferry crews", url="https://gazette.example.org/2"),
        term="subsidies",
    ).clip
    make_match(make_list(bob, "Bob's", "subsidies"), solar)
    return solar, ferry


def titles(client, **query) -> list[str]:
    response = client.get(reverse("clip_index"), query)
    assert response.status_code == 200
    return [clip.title for clip in response.context["page"].object_list]


def test_starring_keeps_a_clip_in_the_starred_filter_and_unstarring_removes_it(
    client, alice, clips
):
    solar, _ferry = clips
    client.force_login(alice)
    url = reverse("clip_star", args=[solar.pk])
    assert client.post(url, {"starred": "1"}).status_code == 302
    assert titles(client, starred="1") == ["Council backs solar subsidies"]
    page = client.get(reverse("clip_index")).content.decode()
    assert 'aria-pressed="true"' in page
    client.post(url, {"starred": "0"})
    assert titles(client, starred="1") == []


def test_a_star_is_personal(client, alice, bob, clips):
    solar, _ = clips
    client.force_login(alice)
    client.post(reverse("clip_star", args=[solar.pk]), {"starred": "1"})
    client.force_login(bob)
    assert titles(client, starred="1") == []
    # And nobody stars a clip that is not theirs.
    _, ferry = clips
    assert client.post(reverse("clip_star", args=[ferry.pk]), {"starred": "1"}).status_code == 404
    assert not Star.objects.filter(owner=bob).exists()


def test_search_finds_clips_by_site_name_and_by_list_name(client, alice, clips):
    client.force_login(alice)
    assert titles(client, q="harbour gazette") == ["Ferry crews"]
    assert sorted(titles(client, q="energy")) == ["Council backs solar subsidies", "Ferry crews"]
    assert titles(client, q="bob's") == []  # another person's list names find nothing


def test_the_api_stars_filters_and_searches(client, alice, clips):
    solar, ferry = clips
    api = ApiClient(client, token_for(alice))
    starred = api.send("PUT", f"/api/clips/{solar.pk}/star")
    assert starred.status_code == 200 and starred.json()["starred"] is True
    listed = api.get("/api/clips", {"starred": "true"}).json()["items"]
    assert [item["id"] for item in listed] == [solar.pk]
    found = api.get("/api/clips", {"q": "harbour gazette"}).json()["items"]
    assert [item["id"] for item in found] == [ferry.pk]
    unstarred = api.send("DELETE", f"/api/clips/{solar.pk}/star")
    assert unstarred.status_code == 200 and unstarred.json()["starred"] is False
    assert api.get("/api/clips", {"starred": "true"}).json()["items"] == []


def test_the_starred_feed_holds_only_starred_clips(client, alice, clips):
    solar, _ = clips
    Star.objects.create(owner=alice, clip=solar)
    response = client.get(reverse("starred_feed", args=[alice.feed_token]))
    assert response.status_code == 200
    feed = feedparser.parse(response.content)
    assert [entry.title for entry in feed.entries] == ["Council backs solar subsidies"]
    assert client.get(reverse("starred_feed", args=["wrong"])).status_code == 404
