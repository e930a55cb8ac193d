"""Crawl runs end to end against real local sites: storage, versions, revisits, traps, robots."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from crawler.fetch import ErrorKind, FetchError
from crawler.hooks import register_batch_handler, unregister_batch_handler
from crawler.models import CrawlRun, Link, Page, PageVersion
from crawler.run.loop import crawl
from tests.crawler.servers import Response, SiteServer
from tests.crawler.sites import DynamicRoutes, article, hub, make_site, news_site

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_hidden_web(settings):
    """These tests count requests; the hidden-web pass reads the seed pages again."""
    settings.DEEPWEB_ENABLED = False


@pytest.fixture
def server():
    with SiteServer() as site:
        yield site


@pytest.fixture
def handed_on():
    """Version ids handed to a batch handler registered for the test."""
    received: list[int] = []
    register_batch_handler(received.extend)
    yield received
    unregister_batch_handler(received.extend)


def make_due(site) -> None:
    Page.objects.filter(site=site).update(next_visit_at=timezone.now() - timedelta(seconds=1))


def test_a_site_is_crawled_breadth_first_and_stored(server):
    paths = news_site(server)
    site = make_site(server)
    run = crawl(site)
    assert run.status == CrawlRun.Status.FINISHED
    assert run.stop_reason == "exhausted"
    assert run.new == 1 + 2 + len(paths)
    assert (run.errors, run.misses) == (0, 1)  # /sitemap.xml is tried and missing: a miss
    fetched = [p for p in server.paths() if p not in {"/robots.txt", "/sitemap.xml"}]
    assert fetched[:3] == ["/", "/world", "/sport"]  # shallowest first
    assert sorted(fetched[3:]) == sorted(paths)
    story = Page.objects.get(site=site, url=server.url("/news/0"))
    assert story.depth == 2
    assert story.kind == Page.Kind.INFORMATION
    version = story.versions.get()
    assert b"about the harbour" in version.raw_body()
    assert version.has_information and version.analysis["kind"] == "information"
    world = Page.objects.get(site=site, url=server.url("/world"))
    assert world.kind == Page.Kind.HUB
    links = Link.objects.filter(from_page=world, target_page=story)
    assert links.count() == 1 and links[0].area_path and links[0].anchor == "Story /news/0"
    assert story.next_visit_at > timezone.now()


def test_a_trap_site_is_left_after_a_small_probe(server):
    def trap(path: str) -> Response | None:
        if path.startswith("/calendar/"):
            day = int(path.rsplit("/", 1)[1])
            return Response(
                hub(
                    f"Day {day}",
                    [(f"/calendar/{day + 1}", "next"), (f"/calendar/{day - 1}", "prev")],
                )
            )
        if path.startswith("/a/"):
            return Response(hub("Deeper", [(path + "a/", "deeper")]))
        if path.startswith("/s?"):
            return Response(
                hub("Session", [("/s?sid=" + str(hash(path) % 10**9) + "&page=1", "again")])
            )
        return None

    server.routes = DynamicRoutes(trap)
    server.html(
        "/", hub("Home", [("/calendar/1", "Calendar"), ("/a/", "A"), ("/s?sid=1&page=1", "S")])
    )
    site = make_site(server, page_budget=25, max_depth=50)
    run = crawl(site)
    # The calendar mints only more of itself: judged a trap after a probe, then refused.
    assert run.stop_reason == "exhausted", (run.learned, " ".join(server.paths()))
    assert run.fetched < 25 and run.trap_fetches >= 6
    requested = server.paths()
    assert len([p for p in requested if p.startswith("/calendar/")]) <= 8
    assert not any(p.count("/a") > 3 for p in requested)  # repeated segments are refused
    assert (
        len([p for p in requested if p.startswith("/s?")]) <= 1
    )  # session ids are canonicalised away


def test_a_304_stores_no_version(server):
    def conditional(request) -> None:
        if request.headers.get("If-None-Match") == '"v1"':
            request.reply(Response(b"", status=304, headers={"ETag": '"v1"'}))
        else:
            request.reply(
                Response(
                    article("Fixed", "Same words every day."),
                    headers={"Content-Type": "text/html", "ETag": '"v1"'},
                )
            )

    server.route("/", conditional)
    site = make_site(server)
    first = crawl(site)
    assert first.new == 1
    make_due(site)
    second = crawl(site)
    assert second.unchanged == 1 and second.new == 0 and second.changed == 0
    assert PageVersion.objects.filter(page__site=site).count() == 1
    conditional_requests = [
        r for r in server.requests if r.path == "/" and r.headers.get("if-none-match") == '"v1"'
    ]
    assert len(conditional_requests) == 1
    page = Page.objects.get(site=site, url=server.url("/"))
    assert page.revisit_history and page.revisit_history[-1][1] is False


def test_a_last_modified_page_is_asked_with_if_modified_since_and_a_304_is_unchanged(server):
    stamp = "Wed, 01 May 2024 10:00:00 GMT"

    def dated(request) -> None:
        if request.headers.get("If-Modified-Since") == stamp:
            request.reply(Response(b"", status=304))
        else:
            body = article("Dated", "Only the date tells a cache this page is fresh.")
            request.reply(
                Response(body, headers={"Content-Type": "text/html", "Last-Modified": stamp})
            )

    server.route("/", dated)
    site = make_site(server)
    crawl(site)
    page = Page.objects.get(site=site, url=server.url("/"))
    assert (page.last_modified, page.etag) == (stamp, "")
    make_due(site)
    second = crawl(site)
    assert (second.unchanged, second.changed, second.new) == (1, 0, 0)
    asked = [r.headers.get("if-modified-since") for r in server.requests if r.path == "/"]
    assert asked == [None, stamp]
    assert PageVersion.objects.filter(page=page).count() == 1


def test_the_same_content_served_again_stores_no_version_and_hands_nothing_on(
    server, handed_on, django_capture_on_commit_callbacks
):
    server.html("/", article("Steady", "No validators, and the words never change."))
    site = make_site(server)
    with django_capture_on_commit_callbacks(execute=True):
        crawl(site)
    page = Page.objects.get(site=site, url=server.url("/"))
    assert len(handed_on) == 1
    make_due(site)
    with django_capture_on_commit_callbacks(execute=True):
        second = crawl(site)
    assert (second.new, second.unchanged, second.changed) == (0, 1, 0)
    assert PageVersion.objects.filter(page=page).count() == 1
    assert len(handed_on) == 1  # nothing new to clip
    page.refresh_from_db()
    assert page.fetch_count == 2 and page.revisit_history[-1][1] is False


def test_a_changed_page_stores_a_second_version_and_hands_only_it_on(
    server, handed_on, django_capture_on_commit_callbacks
):
    paths = news_site(server, articles=4)
    site = make_site(server)
    with django_capture_on_commit_callbacks(execute=True):
        crawl(site)
    first_versions = set(PageVersion.objects.values_list("id", flat=True))
    with_information = set(
        PageVersion.objects.filter(has_information=True).values_list("id", flat=True)
    )
    articles = set(
        PageVersion.objects.filter(page__url__contains="/news/").values_list("id", flat=True)
    )
    assert sorted(handed_on) == sorted(with_information)
    assert articles <= with_information
    handed_on.clear()
    server.html(paths[1], article("Story updated", "The harbour reopened after the storm today."))
    make_due(site)
    with django_capture_on_commit_callbacks(execute=True):
        run = crawl(site)
    assert run.changed == 1
    story = Page.objects.get(site=site, url=server.url(paths[1]))
    assert story.versions.count() == 2
    newest = story.latest_version()
    assert handed_on == [newest.id]
    assert PageVersion.objects.count() == len(first_versions) + 1


def test_robots_disallowed_urls_are_counted_and_never_requested(server):
    server.robots("User-agent: *\nDisallow: /private\n")
    server.html(
        "/", hub("Home", [("/private/1", "secret"), ("/private/2", "secret"), ("/open", "open")])
    )
    server.html("/open", article("Open", "Anyone may read this page."))
    site = make_site(server)
    run = crawl(site)
    assert run.robots_skipped == 2
    assert not any(p.startswith("/private") for p in server.paths())
    skipped = Page.objects.get(site=site, url=server.url("/private/1"))
    assert skipped.error.startswith(
        "robots"
    ) and skipped.next_visit_at > timezone.now() + timedelta(days=1)


def test_the_strategy_sees_typed_errors_and_the_page_keeps_their_text(server):
    server.robots("User-agent: *\nDisallow: /private\n")
    server.html("/", hub("Home", [("/private/1", "secret"), ("/gone", "gone")]))
    site = make_site(server)
    seen = {}
    crawl(site, progress=lambda run, observation: seen.update({observation.url: observation}))
    robots = seen[server.url("/private/1")].error
    assert robots == FetchError(ErrorKind.ROBOTS, "disallowed by robots.txt")
    gone = seen[server.url("/gone")]
    assert gone.error.kind is ErrorKind.HTTP and gone.status == 404 and not gone.ok
    assert seen[server.url("/")].error is None
    stored = dict(Page.objects.filter(site=site).values_list("url", "error"))
    assert stored[server.url("/private/1")] == "robots: disallowed by robots.txt"
    assert stored[server.url("/gone")] == f"http: {gone.error.message}"


def test_sitemaps_and_feeds_are_read_as_hubs_of_new_urls(server):
    feed_head = '<link rel="alternate" type="application/rss+xml" href="/feed.xml">'
    server.robots(f"User-agent: *\nAllow: /\nSitemap: {server.url('/news-sitemap.xml')}\n")
    server.html("/", hub("Home", [("/seen", "Seen")], extra_head=feed_head))
    server.html("/seen", article("Seen", "Linked from the home page."))
    sitemap = f"<urlset><url><loc>{server.url('/only-in-sitemap')}</loc></url></urlset>"
    server.route(
        "/news-sitemap.xml", Response(sitemap, headers={"Content-Type": "application/xml"})
    )
    feed = f"<rss><channel><item><link>{server.url('/only-in-feed')}</link></item></channel></rss>"
    server.route("/feed.xml", Response(feed, headers={"Content-Type": "application/rss+xml"}))
    server.html("/only-in-sitemap", article("Sitemap", "Found through the sitemap."))
    server.html("/only-in-feed", article("Feed", "Found through the feed."))
    site = make_site(server)
    crawl(site)
    pages = {p.url: p for p in Page.objects.filter(site=site)}
    assert pages[server.url("/news-sitemap.xml")].role == Page.Role.SITEMAP
    assert pages[server.url("/feed.xml")].role == Page.Role.FEED
    assert pages[server.url("/only-in-sitemap")].versions.exists()
    assert pages[server.url("/only-in-feed")].versions.exists()


def test_each_run_revisits_hubs_first_then_new_urls_then_due_pages(server):
    paths = news_site(server, articles=4)
    site = make_site(server, min_page_revisit=timedelta(seconds=1))
    crawl(site)
    Page.objects.filter(site=site).update(last_fetched_at=timezone.now() - timedelta(minutes=5))
    Page.objects.filter(site=site, url=server.url(paths[0])).update(
        next_visit_at=timezone.now() - timedelta(seconds=1)
    )
    server.html("/world", hub("World", [(paths[0], "old"), ("/news/fresh", "Fresh story")]))
    server.html("/news/fresh", article("Fresh", "A new story appeared."))
    server.requests.clear()
    crawl(site)
    order = [p for p in server.paths() if p not in {"/robots.txt"}]
    assert order[:3] == ["/", "/world", "/sport"]
    assert order.index("/news/fresh") < order.index(paths[0])
    assert paths[2] not in order  # not due yet


def test_killing_a_run_midway_loses_nothing_and_the_next_run_continues(server):
    paths = news_site(server, articles=10)
    site = make_site(server)

    seen: list[str] = []

    def die_after_five(run, observation) -> None:
        seen.append(observation.url)
        if len(seen) == 5:
            raise KeyboardInterrupt  # what a worker's SIGINT or soft time limit does mid-run

    with pytest.raises(KeyboardInterrupt):
        crawl(site, progress=die_after_five)
    interrupted = CrawlRun.objects.get(site=site)
    assert interrupted.status == CrawlRun.Status.INTERRUPTED and interrupted.finished_at
    stored = set(
        Page.objects.filter(site=site, versions__isnull=False).values_list("url", flat=True)
    )
    # Pages are committed a refill's batch at a time: the batch being stored when the worker
    # died is lost whole (fetched again below), the ones before it are kept.
    assert stored and stored <= set(seen)
    server.requests.clear()
    run = crawl(site)
    assert run.stop_reason == "exhausted"
    again = {server.url(p) for p in server.paths()}
    assert not (again & stored)  # nothing stored by the first run is fetched twice
    assert Page.objects.filter(site=site, versions__isnull=False).count() == 3 + len(paths)


def test_a_stale_run_is_taken_over(server):
    news_site(server, articles=2)
    site = make_site(server)
    stale = CrawlRun.objects.create(
        site=site, strategy="bfs", heartbeat_at=timezone.now() - timedelta(hours=1)
    )
    run = crawl(site)
    stale.refresh_from_db()
    assert stale.status == CrawlRun.Status.INTERRUPTED and stale.stop_reason == "heartbeat-timeout"
    assert run.status == CrawlRun.Status.FINISHED


def test_each_run_searches_the_site_forms_with_the_users_keywords(server, settings):
    from crawler import topic as topic_module
    from crawler.topic import Topic, register_topic_provider

    settings.DEEPWEB_ENABLED = True
    settings.DEEPWEB_BROWSER_LABELS = False
    home = (
        "<!doctype html><html><head><title>Home</title></head><body>"
        "<form action='/search' method='get'><label for='q'>Search</label>"
        "<input type='text' name='q' id='q'><button type='submit'>Go</button></form>"
        "<p>Welcome to the archive. Nothing is linked from here.</p></body></html>"
    )
    server.html("/", home)

    def search(request) -> None:
        query = request.path.partition("q=")[2].split("&")[0]
        if query == "harbour":
            body = hub("Results", [("/hidden/1", "Harbour reopens"), ("/hidden/2", "Harbour fees")])
        else:
            body = hub("Results", [])
        request.reply(Response(body))

    server.route("/search", search)
    server.html("/hidden/1", article("Harbour reopens", "Only the search form leads here."))
    server.html("/hidden/2", article("Harbour fees", "Only the search form leads here too."))
    saved = topic_module._provider
    register_topic_provider(lambda site: Topic({"harbour": 1.0}, queries={"harbour": 1.0}))
    try:
        run = crawl(make_site(server))
    finally:
        register_topic_provider(saved)
    stored = set(Page.objects.filter(versions__isnull=False).values_list("url", flat=True))
    assert {server.url("/hidden/1"), server.url("/hidden/2")} <= stored
    assert run.new >= 3


def test_new_pages_are_analysed_as_they_arrive_off_the_thread_that_stores_them(server, monkeypatch):
    """A run analyses each new page on arrival, beside the other fetches in flight, and the
    thread storing pages only takes the result; a revisited page is analysed there."""
    import threading

    from crawler.extract import page as extract_module

    threads: list[str] = []
    analyze_page_and_read = extract_module.analyze_page_and_read

    def recorded(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return analyze_page_and_read(*args, **kwargs)

    monkeypatch.setattr(extract_module, "analyze_page_and_read", recorded)
    paths = news_site(server, articles=4)
    site = make_site(server)
    crawl(site)

    stored = PageVersion.objects.filter(page__site=site, page__content_type="text/html")
    assert len(threads) == stored.count() == len(paths) + 3  # with the home and 2 sections
    assert threading.main_thread().name not in threads

    threads.clear()
    server.html("/", hub("Front page, updated", [(p, p) for p in paths]))
    Page.objects.filter(site=site).update(next_visit_at=timezone.now())
    crawl(site)
    assert threads == [threading.main_thread().name]  # the changed front page, when stored
