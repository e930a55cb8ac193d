"""A new or edited list is matched against the pages crawled recently, once, and mailed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from clipping.backfill import backfill_list
from clipping.models import Clip, Match
from tests.clipping.conftest import make_list, make_site, store_version
from tests.clipping.pages import RAIL, SOLAR, article

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def crawled():
    """A site with two recent articles and one fetched long ago."""
    site = make_site()
    store_version(site, "https://news.example.com/solar", article("Council backs solar", SOLAR))
    store_version(site, "https://news.example.com/rail", article("Rail strike", RAIL))
    old = timezone.now() - timedelta(days=30)
    store_version(
        site, "https://news.example.com/old", article("Old solar", SOLAR[1:]), fetched_at=old
    )
    return site


def test_a_new_list_gets_the_recent_matching_articles_by_mail(
    crawled, alice, smtp_server, eager_celery
):
    keyword_list = make_list(alice, "Energy", "subsidy")  # saved: the backfill runs on commit

    match = Match.objects.get(keyword_list=keyword_list)
    assert match.clip.url == "https://news.example.com/solar"  # not the rail story, not the old one
    assert "subsidies" in match.summary
    (mail,) = smtp_server.to("alice@example.com")
    assert mail["Subject"] == "Council backs solar"


def test_a_second_backfill_and_an_edit_that_changes_nothing_make_nothing_twice(
    crawled, alice, smtp_server, eager_celery
):
    keyword_list = make_list(alice, "Energy", "subsidy")
    assert backfill_list(keyword_list.id).matches == 0  # the page was matched already
    keyword_list.name = "Energy news"
    keyword_list.save()
    keyword_list.terms = "subsidy\nlevy"  # same page again: the list has its story
    keyword_list.save()
    assert Match.objects.filter(keyword_list=keyword_list).count() == 1
    assert len(smtp_server.to("alice@example.com")) == 1


def test_an_edit_that_widens_a_list_brings_the_newly_matching_articles(
    crawled, alice, smtp_server, eager_celery
):
    keyword_list = make_list(alice, "Energy", "subsidy")
    keyword_list.terms = "subsidy\nstrike"
    keyword_list.save()
    urls = set(Match.objects.filter(keyword_list=keyword_list).values_list("clip__url", flat=True))
    assert urls == {"https://news.example.com/solar", "https://news.example.com/rail"}
    assert Clip.objects.count() == 2


def test_the_backfill_respects_its_limits_and_can_be_switched_off(
    crawled, alice, settings, smtp_server, eager_celery
):
    settings.CLIPPING_BACKFILL_MAX_MATCHES = 1
    keyword_list = make_list(alice, "Both", "subsidy\nstrike")
    assert Match.objects.filter(keyword_list=keyword_list).count() == 1

    settings.CLIPPING_BACKFILL_DAYS = 0
    other = make_list(alice, "Off", "strike")
    assert not Match.objects.filter(keyword_list=other).exists()
    assert backfill_list(other.id).skipped == "Backfill is off."


def test_an_inactive_list_is_not_backfilled(crawled, alice, smtp_server, eager_celery):
    keyword_list = make_list(alice, "Energy", "subsidy", active=False)
    assert not Match.objects.filter(keyword_list=keyword_list).exists()
    keyword_list.active = True  # switched on: now it is
    keyword_list.save()
    assert Match.objects.filter(keyword_list=keyword_list).count() == 1


def test_a_page_ingested_before_the_workers_knew_the_list_is_caught_by_the_backfill(
    alice, smtp_server
):
    """The index refreshes every few seconds: the backfill runs after that and covers the gap."""
    from clipping.ingest import ingest_version
    from clipping.matching import KeywordIndex

    keyword_list = make_list(alice, "Energy", "subsidy")  # no eager Celery: the task waits
    version = store_version(make_site(), "https://news.example.com/solar", article("Solar", SOLAR))
    assert ingest_version(version.id, index=KeywordIndex()).matches == 0  # a stale index
    assert backfill_list(keyword_list.id).matches == 1
    assert Match.objects.get(keyword_list=keyword_list).clip.url.endswith("/solar")


def test_feeds_and_pages_the_crawler_did_not_hand_on_are_not_backfilled(
    alice, smtp_server, eager_celery
):
    site = make_site()
    feed = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Daily</title><item>'
        "<title>Solar subsidies</title><link>/solar</link>"
        f"<description>{SOLAR[0]}</description></item></channel></rss>"
    )
    store_version(
        site,
        "https://news.example.com/feed.xml",
        feed,
        content_type="application/rss+xml",
        has_information=False,
    )
    keyword_list = make_list(alice, "Energy", "subsidy")
    assert not Match.objects.filter(keyword_list=keyword_list).exists()
    assert smtp_server.to("alice@example.com") == []
