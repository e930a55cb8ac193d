"""One pass per page: what the crawler works out of a body once is what everyone else reads."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from clipping.ingest import ingest_version
from clipping.models import Clip
from crawler import canonical
from crawler.extract import feeds as feed_module
from crawler.fetch import result as result_module
from crawler.fetch.result import FetchResult
from crawler.fetch.robots import RobotsCache, RobotsRules
from crawler.models import Page, PageVersion
from crawler.models.pages import pack_body
from crawler.models.sitesearch import SiteSearch, is_search_result
from crawler.run.loop import crawl
from tests.crawler.servers import Response, SiteServer
from tests.crawler.sites import article, hub, make_site
from tests.factories import active_index, make_list
from tests.factories import make_site as make_watched_site

pytestmark = pytest.mark.django_db

DECLARED = '<meta property="article:published_time" content="2025-03-03T08:30:00Z">'


@pytest.fixture(autouse=True)
def _no_hidden_web(settings):
    settings.DEEPWEB_ENABLED = False


@pytest.fixture
def server():
    with SiteServer() as site:
        yield site


def test_clipping_reads_what_the_crawler_kept_and_never_parses_the_body_again(server, alice):
    make_list(alice, "Harbour", "harbour")
    server.html("/", hub("Home", [("/news/harbour", "Harbour news")]))
    server.html(
        "/news/harbour",
        article("Harbour reopens", "The harbour reopens after the storm.", extra_head=DECLARED),
    )
    site = make_site(server)
    crawl(site)
    version = PageVersion.objects.get(page__url=server.url("/news/harbour"))
    kept = version.article_text()
    assert kept is not None and kept.not_article == ""
    assert kept.title == "Harbour reopens" and kept.language == "en"
    assert kept.published == (datetime(2025, 3, 3, 8, 30, tzinfo=UTC),)
    assert any("harbour reopens after the storm" in area.text for area in kept.areas)
    # The body as stored is no longer read: a body that says nothing still gives the clip.
    PageVersion.objects.filter(id=version.id).update(body=pack_body(b"<p>other text</p>"))

    result = ingest_version(version.id, index=active_index())

    assert result.clips == 1
    clip = Clip.objects.get()
    assert clip.title == "Harbour reopens"
    assert clip.published_at == datetime(2025, 3, 3, 8, 30, tzinfo=UTC)
    home = PageVersion.objects.get(page__url=server.url("/"))
    assert home.article_text() is None or home.article_text().not_article


def test_a_search_result_page_is_a_hub_for_the_crawler_and_never_handed_on(server):
    results = article("Results for harbour", "The harbour story as the only result shown.")
    server.html("/", hub("Home", [("/search?q=harbour", "Search"), ("/lookup?term=x", "Find")]))
    server.html("/search", results)
    server.html("/lookup", results)
    site = make_site(server)
    SiteSearch.objects.create(
        site=site,
        fingerprint="lookup",
        action=server.url("/lookup"),
        url_template=server.url("/lookup?term={query}"),
    )

    crawl(site)

    for path in ("/search?q=harbour", "/lookup?term=x"):
        page = Page.objects.get(site=site, url=server.url(path))
        assert page.kind == Page.Kind.HUB, path
        version = page.versions.get()
        assert not version.has_information and version.article is None
        assert "hub page" in version.article_text().not_article


def test_the_one_search_rule_reads_url_shapes_and_the_sites_own_forms():
    site = make_watched_site()
    SiteSearch.objects.create(
        site=site,
        fingerprint="archive",
        action="https://news.example.com/archive/lookup",
        url_template="https://news.example.com/archive/lookup?term={query}",
    )
    assert is_search_result(site.id, "https://news.example.com/search?q=rail")
    assert is_search_result(site.id, "https://news.example.com/archive/lookup?term=rail")
    assert not is_search_result(site.id, "https://news.example.com/archive/lookup")
    assert not is_search_result(site.id, "https://news.example.com/news/rail?page=2")
    assert not is_search_result(None, "https://news.example.com/archive/lookup?term=rail")


def counted(monkeypatch, name: str) -> list[str]:
    """Count the calls of one of the feeds module's parsers where extraction calls it."""
    calls: list[str] = []
    real = getattr(feed_module, name)

    def counting(body, base):
        calls.append(base)
        return real(body, base)

    monkeypatch.setattr(f"crawler.extract.page.{name}", counting)
    return calls


def test_a_feed_is_parsed_once_for_its_links_and_its_items_words(server, monkeypatch):
    real = feed_module.parse_feed
    calls = counted(monkeypatch, "parse_feed")
    feed = (
        "<rss><channel><item><title>Harbour reopens</title>"
        f"<link>{server.url('/news/1')}</link>"
        "<description>&lt;b&gt;Ships&lt;/b&gt; are back</description></item></channel></rss>"
    )
    server.route("/feed.xml", Response(feed, headers={"Content-Type": "application/rss+xml"}))
    server.html("/", hub("Home", [("/feed.xml", "Feed")]))
    server.html("/news/1", article("Harbour reopens", "Ships are back."))
    site = make_site(server)

    crawl(site)

    assert calls == [server.url("/feed.xml")]
    found = real(feed.encode(), server.url("/feed.xml"))
    assert found.texts == {server.url("/news/1"): "Harbour reopens Ships are back"}


def test_a_sitemap_is_parsed_once_for_its_aliases_and_its_links(server, monkeypatch):
    calls = counted(monkeypatch, "parse_sitemap")
    sitemap = f"<urlset><url><loc>{server.url('/only-in-sitemap')}</loc></url></urlset>"
    server.robots(f"User-agent: *\nAllow: /\nSitemap: {server.url('/map.xml')}\n")
    server.route("/map.xml", Response(sitemap, headers={"Content-Type": "application/xml"}))
    server.html("/", hub("Home", []))
    server.html("/only-in-sitemap", article("Sitemap", "Found through the sitemap."))
    site = make_site(server)

    crawl(site)

    assert calls.count(server.url("/map.xml")) == 1
    assert Page.objects.get(site=site, url=server.url("/only-in-sitemap")).versions.exists()


def test_a_bodys_content_kind_is_worked_out_once_until_the_body_changes(monkeypatch):
    calls = []
    real = result_module.content_kind
    monkeypatch.setattr(
        result_module, "content_kind", lambda *args: calls.append(args) or real(*args)
    )
    fetched = FetchResult(
        url="https://x.example/", final_url="https://x.example/", status=200,
        body=b"<!doctype html><p>x</p>", content_type="text/html",
    )  # fmt: skip
    assert [fetched.kind, fetched.body_kind, fetched.kind] == ["html", "html", "html"]
    assert len(calls) == 1
    fetched.body = b"<rss><channel></channel></rss>"
    fetched.content_type = "application/rss+xml"
    assert fetched.body_kind == "feed" and len(calls) == 2


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://Example.COM./news/1", "https://example.com"),
        ("https://example.com:443/", "https://example.com"),
        ("HTTP://example.com:8080/a?b", "http://example.com:8080"),
        ("http://[::1]:80/", "http://[::1]"),
    ],
)
def test_one_origin_spells_every_host_and_port_the_same(url, expected):
    assert canonical.origin(url) == expected


def test_a_trailing_dot_host_shares_its_robots_rules_with_the_plain_host():
    cache = RobotsCache(ttl=60, error_ttl=60)
    rules = RobotsRules(origin=canonical.origin("https://example.com./robots.txt"), token="x")
    cache.put(rules, 0.0)
    assert cache.get(canonical.origin("https://EXAMPLE.com/page"), 1.0) is not None


def test_an_undated_article_takes_the_date_its_feed_gives_and_old_news_is_not_mailed(server, alice):
    make_list(alice, "Harbour", "harbour")
    feed = (
        "<rss><channel><item><title>Harbour history</title>"
        f"<link>{server.url('/news/1')}</link>"
        "<pubDate>Mon, 21 Nov 2016 08:00:00 +0000</pubDate></item>"
        f"<item><title>Harbour today</title><link>{server.url('/news/2')}</link></item>"
        "</channel></rss>"
    )
    server.route("/feed.xml", Response(feed, headers={"Content-Type": "application/rss+xml"}))
    server.html("/", hub("Home", [("/feed.xml", "Feed")]))
    server.html("/news/1", article("Harbour history", "How the harbour strike of 1989 ended."))
    server.html("/news/2", article("Harbour today", "The harbour reopens after the storm."))
    site = make_site(server)

    crawl(site)
    for version in PageVersion.objects.filter(page__url__startswith=server.url("/news/")):
        ingest_version(version.id, index=active_index())

    history = Clip.objects.get(url=server.url("/news/1"))
    assert history.published_at == datetime(2016, 11, 21, 8, 0, tzinfo=UTC)
    assert history.matches.get().old
    today = Clip.objects.get(url=server.url("/news/2"))
    assert today.published_at is None and not today.matches.get().old
    assert Page.objects.get(url=server.url("/news/1")).listed_published_at == history.published_at
