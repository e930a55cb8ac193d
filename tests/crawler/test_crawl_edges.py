"""Crawl runs at the edges: retention, redirects, failures, time caps, strategy contracts."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from analyzer.text import stems
from crawler.models import CrawlRun, Page, PageVersion
from crawler.run.loop import crawl
from crawler.strategies import PageObservation, Strategy, register
from crawler.topic import Topic, register_topic_provider
from tests.crawler.servers import Response, SiteServer, gzip_bomb
from tests.crawler.sites import article, hub, make_site, news_site

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_hidden_web(settings):
    """These tests count requests; the hidden-web pass reads the seed pages again."""
    settings.DEEPWEB_ENABLED = False


@pytest.fixture
def server():
    with SiteServer() as site:
        yield site


def make_due(site) -> None:
    Page.objects.filter(site=site).update(next_visit_at=timezone.now() - timedelta(seconds=1))


def test_old_versions_lose_their_body_beyond_the_retention_setting(server, settings):
    settings.CRAWLER_VERSIONS_KEPT = 2
    site = make_site(server)
    for edition in range(4):
        server.html("/", article(f"Edition {edition}", f"Words of edition number {edition}."))
        make_due(site)
        crawl(site)
    versions = list(PageVersion.objects.filter(page__site=site).order_by("fetched_at", "id"))
    assert len(versions) == 4
    assert [v.body is None for v in versions] == [True, True, False, False]
    assert versions[0].content_hash and versions[0].analysis  # the row and its summary stay
    assert b"edition number 3" in versions[-1].raw_body()


def test_a_redirect_stores_the_content_under_its_target(server):
    server.html("/", hub("Home", [("/old", "Old"), ("/away", "Away")]))
    server.redirect("/old", "/new", status=301)
    server.html("/new", article("New", "The page moved here."))
    # Fetchable, but excluded from the crawl (another host would be refused by the SSRF guard).
    server.html("/private/new", article("Private", "Not for the crawl."))
    server.redirect("/away", server.url("/private/new"))
    site = make_site(server, exclude_patterns="/private/")
    run = crawl(site)
    old = Page.objects.get(site=site, url=server.url("/old"))
    new = Page.objects.get(site=site, url=server.url("/new"))
    assert old.status == 301 and not old.versions.exists()
    assert new.versions.count() == 1 and new.depth == old.depth
    away = Page.objects.get(site=site, url=server.url("/away"))
    assert away.error.startswith("redirects:") and "outside the crawl" in away.error
    assert not away.versions.exists()
    assert run.errors >= 1
    via_site = [
        r for r in server.requests if r.path == "/new" and r.headers["host"].startswith("127.")
    ]
    assert len(via_site) == 1  # not fetched again as a page of its own


@pytest.mark.parametrize("strategy", ["bfs", "xcrawl"])
def test_a_redirect_to_a_page_the_run_fetched_is_not_followed(server, strategy):
    words = "The solar panel on the roof feeds the solar battery."
    server.html("/", hub("Solar news", [("/solar/", "Solar roofs"), ("/more/", "More solar")]))
    server.html("/solar/", article("Solar roofs", words))
    # A second article links the first without its slash; the site redirects it.
    server.html("/more/", article("More solar", words, [("/solar", "Solar roofs")]))
    server.redirect("/solar", "/solar/", status=301)
    register_topic_provider(lambda site: Topic(terms={s: 1.0 for s in stems(["solar"])}))
    try:
        run = crawl(make_site(server), strategy=strategy, render_shells="off")
    finally:
        register_topic_provider(None)
    assert server.paths().count("/solar/") == 1  # the redirect's target is not asked again
    assert server.paths().count("/solar") == 1
    alias = Page.objects.get(url=server.url("/solar"))
    assert alias.status == 301 and alias.error == "" and not alias.versions.exists()
    assert Page.objects.get(url=server.url("/solar/")).versions.count() == 1
    assert run.errors == 0 and run.fetched == 5  # with /sitemap.xml (404)


def test_a_redirect_to_its_own_address_with_a_tracking_parameter_is_followed(server):
    server.html("/", hub("Home", [("/story/", "A story")]))
    # The site adds a tracking parameter by redirect; the address is the page's own.
    server.route("/story/", lambda request: request.reply(_tagged(request)))
    site = make_site(server)
    crawl(site, render_shells="off")
    story = Page.objects.get(url=server.url("/story/"))
    assert story.versions.count() == 1 and story.status == 200


def _tagged(request) -> Response:
    if "utm_source" in request.path:
        return Response(
            article("A story", "The story itself."), headers={"Content-Type": "text/html"}
        )
    return Response(b"", 302, {"Location": "/story/?utm_source=feed"})


def test_a_failing_page_is_retried_later_and_later(server):
    server.route("/", Response("broken", status=500, headers={"Content-Type": "text/html"}))
    site = make_site(server, min_page_revisit=timedelta(minutes=10))
    run = crawl(site)
    page = Page.objects.get(site=site, url=server.url("/"))
    assert run.errors >= 1 and page.failures == 1 and page.status == 500
    first_wait = page.next_visit_at - page.last_fetched_at
    assert first_wait == timedelta(minutes=10)
    make_due(site)
    Page.objects.filter(id=page.id).update(last_fetched_at=timezone.now() - timedelta(hours=1))
    crawl(site)
    page.refresh_from_db()
    assert page.failures == 2
    assert page.next_visit_at - page.last_fetched_at == timedelta(minutes=20)


def test_a_run_stops_at_its_time_cap(server, settings):
    settings.CRAWLER_RUN_SECONDS = 0
    server.html("/", hub("Home", [("/a", "A")]))
    run = crawl(make_site(server))
    assert run.stop_reason == "time-limit"
    assert run.fetched == 0


@register
class StopsAfterHome(Strategy):
    """A test strategy: offers an unknown URL, then the home page, then asks to stop."""

    name = "test-stop-early"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[PageObservation] = []

    def next_urls(self, limit: int) -> list[str]:
        if self.seen:
            return []
        return ["http://127.0.0.1:9/not-in-the-frontier", self.site.root_url]

    def observe(self, observation: PageObservation) -> None:
        self.seen.append(observation)

    def stop_reason(self) -> str | None:
        return "no-new-hubs" if self.seen else None


def test_a_strategy_can_stop_the_run_and_unknown_urls_are_skipped(server):
    server.html("/", hub("Home", [("/a", "A")]))
    run = crawl(make_site(server), strategy="test-stop-early")
    assert run.stop_reason == "no-new-hubs"
    assert run.fetched == 1 and run.strategy == "test-stop-early"
    assert [p for p in server.paths() if p != "/robots.txt"] == ["/"]


def test_a_run_closed_by_another_worker_stops(server):
    server.html("/", hub("Home", [(f"/p{i}", str(i)) for i in range(30)]))
    for i in range(30):
        server.html(f"/p{i}", article(f"P{i}", "Some words."))
    site = make_site(server)

    def take_over(run, observation) -> None:
        CrawlRun.objects.filter(id=run.id).update(
            finished_at=timezone.now(),
            status=CrawlRun.Status.INTERRUPTED,
            stop_reason="heartbeat-timeout",
        )

    run = crawl(site, progress=take_over)
    assert run.status == CrawlRun.Status.INTERRUPTED and run.stop_reason == "heartbeat-timeout"
    assert run.fetched < 31


@pytest.mark.slow
def test_hostile_pages_end_with_a_recorded_error_and_the_run_goes_on(server, settings):
    # Small caps keep the test quick; the 5 MiB and 30 s defaults take the same code path.
    settings.CRAWLER_MAX_BODY_BYTES = 256 * 1024
    settings.CRAWLER_CONNECT_TIMEOUT = 1.0
    settings.CRAWLER_READ_TIMEOUT = 1.0
    settings.CRAWLER_TOTAL_TIMEOUT = 2.0
    settings.CRAWLER_RETRIES = 0
    hostile = {
        "/big": server.huge(1024 * 1024),
        "/bomb": gzip_bomb(64 * 1024 * 1024),
        "/silent": server.never_answers,
        "/drip": server.trickle(interval=0.5, size=1000),
    }
    for path, answer in hostile.items():
        server.route(path, answer)
    server.html("/fine", article("Fine", "An ordinary page beside the hostile ones."))
    server.html("/", hub("Home", [(path, path) for path in [*hostile, "/fine"]]))

    run = crawl(make_site(server))

    assert run.status == CrawlRun.Status.FINISHED and run.stop_reason == "exhausted"
    errors = {
        path: Page.objects.get(url=server.url(path)).error.split(":", 1)[0] for path in hostile
    }
    assert errors == {
        "/big": "too_large",
        "/bomb": "too_large",
        "/silent": "timeout",
        "/drip": "timeout",
    }
    assert run.errors >= len(hostile)
    assert not PageVersion.objects.filter(page__url__in=[server.url(p) for p in hostile]).exists()
    assert Page.objects.get(url=server.url("/fine")).versions.count() == 1


def test_a_long_retry_after_ends_the_run_and_charges_no_page_it_kept_us_from(server):
    paths = news_site(server, articles=6)
    for path in paths:
        server.route(
            path,
            Response(
                "slow down",
                status=429,
                headers={"Retry-After": "1800", "Content-Type": "text/html"},
            ),
        )
    site = make_site(server)
    before = timezone.now()

    run = crawl(site)

    assert run.status == CrawlRun.Status.FINISHED and run.stop_reason == "backoff"
    asked = [p for p in server.paths() if p.startswith("/news/")]
    assert len(asked) == 1  # the host said 429 once; nothing more was sent its way
    refused = Page.objects.get(url=server.url(asked[0]))
    assert refused.status == 429 and refused.failures == 1
    assert refused.next_visit_at >= before + timedelta(seconds=1800)
    untouched = Page.objects.filter(site=site, url__in=[server.url(p) for p in paths]).exclude(
        id=refused.id
    )
    assert untouched.exists()
    assert all(p.last_fetched_at is None and p.failures == 0 for p in untouched)
    site.refresh_from_db()
    assert site.next_crawl_at >= before + timedelta(seconds=1800)
    assert run.fetched == 1 + 2 + 1 + 1  # home, two sections, /sitemap.xml (404), the 429


def test_an_unreachable_robots_txt_ends_the_run_without_charging_or_skipping_pages(
    server, settings
):
    settings.CRAWLER_RETRIES = 0
    news_site(server, articles=2)
    server.robots("", status=503)
    site = make_site(server)
    before = timezone.now()

    run = crawl(site)

    assert run.stop_reason == "backoff" and "robots.txt unreachable" in run.error
    assert (run.fetched, run.errors, run.robots_skipped) == (0, 0, 0)
    assert server.paths() == ["/robots.txt"]
    # The frontier waits whole for the next run: nothing was marked visited or skipped.
    assert not Page.objects.filter(site=site, last_fetched_at__isnull=False).exists()
    site.refresh_from_db()
    assert site.next_crawl_at >= before + timedelta(seconds=500)

    server.robots("User-agent: *\nAllow: /\n")  # back up: the next run takes everything
    cache.clear()  # the next run comes after the host's shared backoff has passed
    again = crawl(site)
    assert again.stop_reason == "exhausted" and again.new == 5
