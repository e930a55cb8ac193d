"""Where news appears, look often: hubs come back by the rate they gain links, articles rarely.

A hub's visit counts as a change only when it brought links it did not have before; hubs
that gained links last time are looked at first, then by that measured rate. The watch
dispatcher queues one watch per site whose next hub is due, and claims it.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from crawler import tasks
from crawler.models import Page, Site
from crawler.run.loop import crawl
from crawler.run.watch import watch
from crawler.store.revisit import visit_wait
from tests.crawler.sites import Published, article, hub, make_site

pytestmark = pytest.mark.django_db


def page(site: Site, path: str, **fields: object) -> Page:
    now = timezone.now()
    values = {
        "kind": Page.Kind.HUB,
        "last_fetched_at": now - timedelta(hours=1),
        "next_visit_at": now - timedelta(minutes=1),
        "depth": 2,
        **fields,
    }
    return Page.objects.create(site=site, url=f"https://news.example.com{path}", **values)


def test_due_hubs_come_feeds_first_then_where_news_appeared_then_by_change_rate():
    site = Site.objects.create(name="News", root_url="https://news.example.com/")
    now = timezone.now()
    page(site, "/quiet", change_rate=0.5)
    page(site, "/busy", change_rate=40.0)
    page(site, "/unmeasured", change_rate=None)
    page(site, "/gained-one", change_rate=2.0, gained_links=1)
    page(site, "/gained-three", change_rate=1.0, gained_links=3)
    page(site, "/busy-but-overdue", change_rate=40.0, next_visit_at=now - timedelta(hours=2))
    page(site, "/not-yet", change_rate=90.0, next_visit_at=now + timedelta(minutes=1))
    page(site, "/article", kind=Page.Kind.INFORMATION, change_rate=99.0)
    page(site, "/feed.xml", kind="", role=Page.Role.FEED, change_rate=None)
    page(site, "/shallow-unmeasured", change_rate=None, depth=0)

    due = Page.objects.filter(site=site).hubs_due(now).values_list("url", flat=True)

    assert [url.removeprefix("https://news.example.com") for url in due] == [
        "/feed.xml",  # one conditional request tells whether anything is new
        "/gained-three",
        "/gained-one",
        "/busy-but-overdue",
        "/busy",
        "/quiet",
        "/shallow-unmeasured",
        "/unmeasured",
    ]


def test_a_hub_that_gains_links_comes_back_at_its_minimum_and_a_quiet_one_waits_longer(server):
    busy = [f"/world/{n}" for n in range(2)]
    server.html("/", hub("Home", [("/world", "World"), ("/sport", "Sport")]))
    server.html("/sport", hub("Sport", [("/sport/0", "Match report")]))
    server.html("/sport/0", article("Match report", "The match ended in a draw."))

    def serve_world() -> None:
        server.html("/world", hub("World", [(p, f"Story {p}") for p in busy]))
        for path in busy:
            server.html(path, article(f"Story {path}", f"The story {path} in full."))

    serve_world()
    site = make_site(server, min_hub_revisit=timedelta(minutes=10))
    crawl(site)
    world = Page.objects.get(site=site, url=server.url("/world"))
    sport = Page.objects.get(site=site, url=server.url("/sport"))

    for _ in range(3):
        busy.append(f"/world/{len(busy)}")  # news on World, nothing on Sport
        serve_world()
        # Ten minutes since each hub's last visit, and both due now.
        Page.objects.filter(id__in=[world.id, sport.id]).update(
            last_fetched_at=timezone.now() - timedelta(minutes=10),
            next_visit_at=timezone.now() - timedelta(seconds=1),
        )
        done = watch(site)
        assert done.new_pages == 1  # the new story, fetched in the same watch

    world.refresh_from_db()
    sport.refresh_from_db()
    assert world.gained_links == 1 and sport.gained_links == 0
    assert [changed for _, changed in world.revisit_history] == [True, True, True]
    assert [changed for _, changed in sport.revisit_history] == [False, False, False]
    assert world.next_visit_at - world.last_fetched_at == timedelta(minutes=10)
    assert sport.next_visit_at - sport.last_fetched_at > timedelta(minutes=20)
    assert world.change_rate > sport.change_rate
    fetched = Page.objects.filter(site=site, url__contains="/world/").fetched().count()
    assert fetched == len(busy)


def test_feeds_keep_their_poll_interval_and_articles_start_at_the_crawl_interval():
    site = Site.objects.create(
        name="News",
        root_url="https://news.example.com/",
        feed_poll_interval=timedelta(seconds=45),
        revisit_interval=timedelta(hours=2),
    )
    feed = Page(site=site, url="https://news.example.com/feed.xml", role=Page.Role.FEED)
    feed.revisit_history = [[45.0, False]] * 10
    story = Page(site=site, url="https://news.example.com/a", kind=Page.Kind.INFORMATION)
    quiet_story = Page(site=site, url="https://news.example.com/b", kind=Page.Kind.INFORMATION)
    quiet_story.revisit_history = [[7200.0, False], [14400.0, False]]

    assert visit_wait(feed, site) == timedelta(seconds=45)
    assert visit_wait(story, site) == timedelta(hours=2)
    assert visit_wait(quiet_story, site) == timedelta(hours=6)  # as long as it was watched


def test_the_dispatcher_queues_one_watch_per_due_site_and_claims_it(
    django_capture_on_commit_callbacks,
):
    now = timezone.now()
    due = Site.objects.create(name="Due", root_url="https://due.example.com/")
    Site.objects.filter(id=due.id).update(next_watch_at=now - timedelta(seconds=5))
    Site.objects.create(
        name="Later", root_url="https://later.example.com/", next_watch_at=now + timedelta(hours=1)
    )
    Site.objects.create(name="Never watched", root_url="https://new.example.com/")

    with Published() as published, django_capture_on_commit_callbacks(execute=True):
        assert tasks.dispatch_due_watches() == 1
        assert tasks.dispatch_due_watches() == 0  # claimed while its watch is queued

    assert published == [("crawler.tasks.watch_site", "watch")]
    assert Site.objects.get(id=due.id).next_watch_at > now + timedelta(minutes=4)
