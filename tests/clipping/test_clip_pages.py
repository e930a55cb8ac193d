"""My clips and the dashboard: newest first, paginated, filters, search, highlights, read state, no N+1."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from clipping.models import Match
from tests.factories import make_clip, make_list, make_match, make_site

pytestmark = pytest.mark.django_db


def titles(response) -> list[str]:
    return [clip.title for clip in response.context["page"].object_list]


def aged(keyword_list, title: str, hours: int, **fields: object) -> Match:
    return make_match(
        keyword_list, title=title, seen_at=timezone.now() - timedelta(hours=hours), **fields
    )


def test_no_clips_yet_shows_a_clear_empty_state(client, alice):
    client.force_login(alice)
    for url in (reverse("clip_index"), reverse("dashboard")):
        page = client.get(url).content.decode()
        assert 'data-testid="no-clips"' in page and "No clips yet" in page


def test_clips_are_newest_first_paginated_and_highlighted(client, alice, settings):
    settings.CLIPPING_PAGE_SIZE = 2
    energy = make_list(alice, "Energy", "subsidy")
    for hours, title in [(5, "Oldest"), (1, "Newest"), (3, "Middle"), (4, "Older"), (2, "Newer")]:
        aged(energy, title, hours)
    client.force_login(alice)

    first = client.get(reverse("clip_index"))
    third = client.get(reverse("clip_index"), {"page": 3})

    assert titles(first) == ["Newest", "Newer"]
    assert titles(third) == ["Oldest"]
    page = first.content.decode()
    assert "solar <mark>subsidies</mark> for panels" in page
    assert 'href="https://news.example.com/news/solar"' in page and "Energy" in page
    assert "<li>Page 1</li>" in page and "page=2" in page
    assert "page=4" not in third.content.decode() and "page=2" in third.content.decode()


def test_clips_filter_by_list_and_site_and_search_titles_and_summaries(client, alice):
    other = make_site("Other Paper", "https://other.example.org/")
    energy, transport = (
        make_list(alice, "Energy", "subsidy"),
        make_list(alice, "Transport", "strike"),
    )
    aged(energy, "Solar subsidies", 1)
    aged(
        transport, "Rail strike", 2, summary="The rail strike began on Tuesday morning.", site=other
    )
    aged(transport, "Bus strike", 3, summary="Drivers of the city buses stopped work.")
    client.force_login(alice)
    index = reverse("clip_index")

    assert titles(client.get(index, {"list": transport.pk})) == ["Rail strike", "Bus strike"]
    assert titles(client.get(index, {"site": other.pk})) == ["Rail strike"]
    assert titles(client.get(index, {"q": "TUESDAY"})) == ["Rail strike"]  # summary, any case
    assert titles(client.get(index, {"q": "bus"})) == ["Bus strike"]  # title
    assert titles(client.get(index, {"q": "bus", "list": energy.pk})) == []
    empty = client.get(index, {"q": "volcano"}).content.decode()
    assert "No clips match these filters" in empty


def test_the_site_filter_lists_only_sites_with_my_clips(client, alice, bob):
    mine = make_site("Alice Daily", "https://alice.example.org/")
    theirs = make_site("Bob Weekly", "https://bob.example.org/")
    aged(make_list(alice, "Energy", "subsidy"), "Solar subsidies", 1, site=mine)
    aged(make_list(bob, "Secret", "merger"), "Quiet merger", 1, site=theirs)
    client.force_login(alice)

    response = client.get(reverse("clip_index"))

    assert [site.name for site in response.context["sites"]] == ["Alice Daily"]
    assert "Bob Weekly" not in response.content.decode()
    assert titles(client.get(reverse("clip_index"), {"site": theirs.pk})) == ["Solar subsidies"]


def test_marking_a_clip_read_and_all_read(client, alice):
    energy = make_list(alice, "Energy", "subsidy")
    first, second = aged(energy, "One", 1), aged(energy, "Two", 2)
    client.force_login(alice)

    response = client.post(
        reverse("clip_mark_read", args=[first.clip_id]), {"next": reverse("clip_index") + "?page=1"}
    )

    assert response.status_code == 302 and response["Location"] == "/clips/?page=1"
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.read_at is not None and second.read_at is None
    response = client.post(reverse("clip_mark_all_read"), {"next": "https://evil.example.net/"})
    assert response["Location"] == reverse("clip_index")  # no redirect to another site
    assert not Match.objects.unread().exists()


def test_another_users_clip_urls_give_404_and_change_nothing(client, alice, bob, charlie):
    alices_list = make_list(alice, "Energy", "subsidy")
    alices = aged(alices_list, "Alice's clip", 1)
    make_list(bob, "Bob's", "strike")
    for intruder in (bob, charlie):
        client.force_login(intruder)
        assert client.post(reverse("clip_mark_read", args=[alices.clip_id])).status_code == 404
        assert client.get(reverse("clip_mark_read", args=[alices.clip_id])).status_code == 405
        client.post(reverse("clip_mark_all_read"))
        assert titles(client.get(reverse("clip_index"))) == []
        assert titles(client.get(reverse("clip_index"), {"list": alices_list.pk})) == []
        assert "Alice&#x27;s clip" not in client.get(reverse("dashboard")).content.decode()
    alices.refresh_from_db()
    assert alices.read_at is None


def test_a_clip_two_of_my_lists_matched_is_shown_once_with_both_lists(client, alice):
    energy, solar = make_list(alice, "Energy", "subsidy"), make_list(alice, "Solar", "panels")
    clip = make_clip()
    make_match(energy, clip)
    make_match(solar, clip, term="panels")
    client.force_login(alice)

    response = client.get(reverse("clip_index"))

    assert titles(response) == ["Council backs solar subsidies"]
    page = response.content.decode()
    assert ">Energy</a>, <a" in page and ">Solar</a>" in page


def test_the_dashboard_shows_the_latest_clips(client, alice):
    energy = make_list(alice, "Energy", "subsidy")
    for hours in range(7):
        aged(energy, f"Story {hours}", hours)
    client.force_login(alice)

    response = client.get(reverse("dashboard"))

    assert [clip.title for clip in response.context["latest_clips"]] == [
        f"Story {n}" for n in range(5)
    ]
    assert "All my clips" in response.content.decode()


@pytest.mark.parametrize("url_name", ["clip_index", "dashboard"])
def test_the_number_of_queries_does_not_grow_with_the_clips(
    client, alice, settings, url_name, django_assert_max_num_queries
):
    settings.CLIPPING_PAGE_SIZE = 50
    site = make_site()
    lists = [make_list(alice, f"List {n}", "subsidy") for n in range(3)]
    client.force_login(alice)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(reverse(url_name)).status_code == 200
        return len(captured)

    clip = make_clip(site)
    make_match(lists[0], clip)
    one = queries()
    for n in range(49):
        clip = make_clip(site, title=f"Story {n}")
        for keyword_list in lists[: 1 + n % 3]:
            make_match(keyword_list, clip)
    with django_assert_max_num_queries(one):
        response = client.get(reverse(url_name))
    shown = (
        response.context["page"].object_list
        if url_name == "clip_index"
        else response.context["latest_clips"]
    )
    assert len(shown) == (50 if url_name == "clip_index" else 5)
