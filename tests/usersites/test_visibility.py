"""A person's private site: its clips reach its followers only, until an admin shares it."""

from __future__ import annotations

import pytest

from clipping.backfill import backfill_list
from clipping.models import Match
from crawler.models import Site
from tests.crawler.sites import article
from tests.factories import ingest_html, make_list, store_version

pytestmark = pytest.mark.django_db

STORY = article("Harbour reopens", "The harbour reopens after the storm damaged the piers.")


@pytest.fixture
def private_site(alice) -> Site:
    site = Site.objects.create(
        name="Alice's gazette",
        root_url="https://gazette.example.org/",
        added_by=alice,
        visibility=Site.Visibility.PRIVATE,
    )
    site.subscribers.add(alice)
    return site


def test_clips_of_a_private_site_go_only_to_its_followers(alice, bob, private_site):
    mine, theirs = make_list(alice, "Port", "harbour"), make_list(bob, "Port", "harbour")

    result = ingest_html(private_site, "https://gazette.example.org/news/1", STORY)

    assert result.matches == 1
    assert list(Match.objects.values_list("keyword_list", flat=True)) == [mine.id]
    assert not Match.objects.filter(keyword_list=theirs).exists()


def test_a_follower_and_a_shared_site_reach_everyone_concerned(alice, bob, charlie, private_site):
    make_list(alice, "Port", "harbour")
    make_list(bob, "Port", "harbour")
    make_list(charlie, "Port", "harbour")
    private_site.subscribers.add(bob)
    ingest_html(private_site, "https://gazette.example.org/news/1", STORY)
    assert set(Match.objects.values_list("owner__email", flat=True)) == {
        "alice@example.com",
        "bob@example.com",
    }

    Site.objects.filter(id=private_site.id).update(visibility=Site.Visibility.SHARED)
    ingest_html(
        private_site,
        "https://gazette.example.org/news/2",
        article("Ferry strike", "The harbour ferry crews strike on Monday morning."),
    )
    assert Match.objects.filter(owner=charlie).count() == 1


def test_a_backfill_never_brings_someone_elses_private_pages(alice, bob, private_site):
    store_version(private_site, "https://gazette.example.org/news/1", STORY)

    assert backfill_list(make_list(bob, "Port", "harbour").id).matches == 0
    assert backfill_list(make_list(alice, "Port", "harbour").id).matches == 1
