"""N+1 guard: the personal page, the feed and the dashboard make as many queries for 50 clips as for 5."""

from __future__ import annotations

from datetime import timedelta
from xml.etree import ElementTree

import pytest
from django.contrib.sites.models import Site as CurrentSite
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.factories import make_clip, make_list, make_match, make_site

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


def add_clips(owner, lists, sites, count: int, start: int) -> None:
    """Add clips matched by one to three of the owner's lists, spread over the sites."""
    for n in range(start, start + count):
        clip = make_clip(
            sites[n % len(sites)],
            title=f"Solar story {n}",
            url=f"https://news.example.com/news/{n}",
            seen_at=timezone.now() - timedelta(minutes=n),
        )
        for keyword_list in lists[: 1 + n % len(lists)]:
            make_match(keyword_list, clip)


def shown(client, url: str) -> tuple[int, int]:
    """Return (queries made, clips shown) for one GET of the page."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    if "feed" in url:
        rows = len(ElementTree.fromstring(response.content).findall(f"{ATOM}entry"))  # noqa: S314
    elif "latest_clips" in response.context:
        rows = len(response.context["latest_clips"])
    else:
        rows = len(response.context["page"].object_list)
    return len(captured), rows


@pytest.mark.parametrize(
    "page",
    ["clips", "clips_by_list", "clips_by_site", "clips_searched", "clips_page_2", "feed"],
)
def test_a_page_of_50_clips_makes_as_many_queries_as_a_page_of_5(
    client, alice, bob, settings, page
):
    settings.CLIPPING_PAGE_SIZE = 50
    settings.CLIPPING_FEED_ITEMS = 50
    sites = [make_site("Daily Example"), make_site("Other Paper", "https://other.example.org/")]
    lists = [make_list(alice, f"Energy {n}", "subsidy") for n in range(3)]
    make_match(make_list(bob, "Bob's", "subsidy"), title="Bob's solar story")
    client.force_login(alice)
    url = {
        "clips": reverse("clip_index"),
        "clips_by_list": f"{reverse('clip_index')}?list={lists[0].pk}",
        "clips_by_site": f"{reverse('clip_index')}?site={sites[0].pk}",
        "clips_searched": f"{reverse('clip_index')}?q=solar",
        "clips_page_2": f"{reverse('clip_index')}?page=2",
        "feed": reverse("clip_feed", args=[alice.feed_token]),
    }[page]
    # Page 2 needs a full first page before it; the filters keep about half or all clips.
    first = 50 if page == "clips_page_2" else 0
    add_clips(alice, lists, sites, first + 10, 0)
    # The feed's links name the current Site, read once per process (pytest-django clears it).
    CurrentSite.objects.get_current()
    few_queries, few_rows = shown(client, url)
    add_clips(alice, lists, sites, 100, first + 10)
    many_queries, many_rows = shown(client, url)

    assert few_rows in (5, 10) and many_rows == 50
    assert many_queries == few_queries


def test_the_dashboard_makes_as_many_queries_for_many_clips_and_lists_as_for_one(client, alice):
    site = make_site()
    lists = [make_list(alice, f"Energy {n}", "subsidy") for n in range(4)]
    client.force_login(alice)
    add_clips(alice, lists[:1], [site], 1, 0)
    few_queries, few_rows = shown(client, reverse("dashboard"))
    add_clips(alice, lists, [site], 40, 1)
    many_queries, many_rows = shown(client, reverse("dashboard"))

    assert (few_rows, many_rows) == (1, 5)
    assert many_queries == few_queries
