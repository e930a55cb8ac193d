"""Feeds are polled on their own schedule with conditional requests, against a real server.

A watch (crawler.run.watch) asks the feed with If-None-Match; an unchanged feed answers 304
and costs nothing more, a changed one brings its new article, fetched in the same watch and
handed on at once.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from crawler.models import Page, PageVersion, Site
from crawler.run.loop import crawl
from crawler.run.watch import watch
from tests.crawler.sites import make_site
from tests.freshness.sites import NewsWithFeed

pytestmark = pytest.mark.django_db(transaction=True)


def make_due(page: Page) -> None:
    Page.objects.filter(id=page.id).update(next_visit_at=timezone.now() - timedelta(seconds=1))


def test_an_unchanged_feed_answers_304_and_nothing_else_is_fetched(server):
    news = NewsWithFeed(server)
    site = make_site(server, feed_poll_interval=timedelta(minutes=2))
    crawl(site)
    feed = Page.objects.get(site=site, url=server.url("/feed.xml"))
    assert feed.role == Page.Role.FEED and feed.etag == news.etag
    # The feed comes back on the site's poll interval, and the site's next watch with it.
    assert feed.next_visit_at - feed.last_fetched_at == timedelta(minutes=2)
    assert Site.objects.get(id=site.id).next_watch_at <= feed.next_visit_at
    before = len(server.requests)

    make_due(feed)
    done = watch(site)

    assert (done.hubs, done.unchanged, done.new_pages, done.versions) == (1, 1, 0, [])
    assert news.feed_requests()[-1]["if-none-match"] == news.etag
    # This worker's first watch reads robots.txt; later watches keep it, as a run does.
    assert [r.path for r in server.requests[before:]] == ["/robots.txt", "/feed.xml"]
    feed.refresh_from_db()
    assert feed.status == 304 and feed.etag == news.etag
    assert PageVersion.objects.filter(page=feed).count() == 1

    before = len(server.requests)
    make_due(feed)
    assert watch(site).unchanged == 1
    assert [r.path for r in server.requests[before:]] == ["/feed.xml"]


def test_a_changed_feed_brings_its_new_article_in_the_same_watch(server, handed_on):
    news = NewsWithFeed(server)
    site = make_site(server)
    crawl(site)
    feed = Page.objects.get(site=site, url=server.url("/feed.xml"))
    old_etag = news.etag
    handed_on.clear()

    fresh = news.publish(on_home=False)  # only the feed knows it yet
    make_due(feed)
    done = watch(site)

    assert news.feed_requests()[-1]["if-none-match"] == old_etag  # asked conditionally
    assert done.new_pages == 1
    story = Page.objects.get(site=site, url=server.url(fresh))
    assert story.last_fetched_at is not None and story.kind == Page.Kind.INFORMATION
    (version,) = story.versions.all()
    assert version.id in handed_on and version.id in done.versions
    feed.refresh_from_db()
    assert feed.etag == news.etag and feed.gained_links == 1


def test_a_watch_sets_the_sites_next_watch_to_its_earliest_hub(server):
    NewsWithFeed(server)
    site = make_site(server, feed_poll_interval=timedelta(minutes=3))
    crawl(site)
    make_due(Page.objects.get(site=site, url=server.url("/feed.xml")))

    watch(site)

    hubs = Page.objects.filter(site=site).hubs().fetched()
    earliest = min(page.next_visit_at for page in hubs)
    assert Site.objects.get(id=site.id).next_watch_at == earliest
    assert earliest > timezone.now()


def test_a_feed_among_the_sites_seeds_is_polled_on_the_feed_schedule_not_as_a_hub(server):
    # A person's site lists its feed among its seeds: the feed keeps the seed's role.
    NewsWithFeed(server)
    site = make_site(
        server,
        seed_urls=server.url("/feed.xml"),
        feed_poll_interval=timedelta(minutes=2),
        min_hub_revisit=timedelta(minutes=5),
    )
    crawl(site)
    feed = Page.objects.get(site=site, url=server.url("/feed.xml"))
    assert feed.role == Page.Role.SEED

    assert feed.next_visit_at - feed.last_fetched_at == timedelta(minutes=2)
    make_due(feed)
    Page.objects.filter(site=site).exclude(id=feed.id).update(next_visit_at=timezone.now())
    assert Page.objects.filter(site=site).hubs_due(timezone.now()).first() == feed
