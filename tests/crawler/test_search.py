"""Search providers against real local servers: a fake SearxNG API and a site's own search."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from crawler.fetch import SiteRules
from crawler.strategies.xcrawl.search import (
    SearchError,
    SearxngProvider,
    TemplateSearchProvider,
    http_fetch,
    parse_hit_count,
)
from tests.crawler.servers import FakeSearxng, Response, SiteServer
from tests.crawler.sites import article, hub

LOCAL = SiteRules(crawl_delay=0, allow_private_network=True)


@pytest.fixture
def engine():
    with SiteServer() as server:
        yield FakeSearxng(server)


def result(url: str, title: str = "A result") -> dict[str, object]:
    return {"url": url, "title": title, "content": "snippet", "engine": "fake"}


def test_searxng_results_are_read_across_pages_up_to_the_limit(engine):
    engine.results["camera sensor"] = [result(f"https://shop{i}.test/p") for i in range(12)]
    engine.totals["camera sensor"] = 48_200
    provider = SearxngProvider(engine.server.url("/"))
    found = provider.search("camera sensor", limit=7)
    assert [hit.url for hit in found.hits] == [f"https://shop{i}.test/p" for i in range(7)]
    assert found.total == 48_200 and found.hit_count == 48_200
    pages = [parse_qs(urlsplit(p).query)["pageno"] for p in engine.server.paths()]
    assert pages == [["1"], ["2"]]


def test_searxng_without_a_total_counts_the_results_and_skips_unusable_ones(engine):
    engine.results["zoom"] = [
        result("https://a.test/1"),
        {"title": "no url"},
        result("javascript:alert(1)"),
        result("https://a.test/1"),
        "not an object",
        result("https://b.test/2"),
    ]
    found = SearxngProvider(engine.server.url("/")).search("zoom", limit=10)
    assert [hit.url for hit in found.hits] == ["https://a.test/1", "https://b.test/2"]
    assert found.total is None and found.hit_count == 2


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (Response("oops", status=500), "HTTP 500"),
        (Response("<html>not json</html>"), "did not answer JSON"),
        (Response("[1, 2]", headers={"Content-Type": "application/json"}), "not an object"),
    ],
)
def test_a_broken_searxng_answer_is_a_search_error(answer, message):
    with SiteServer() as server:
        server.route("/search", answer)
        with pytest.raises(SearchError, match=message):
            SearxngProvider(server.url("/")).search("camera")


def test_an_unreachable_engine_is_a_search_error():
    with SiteServer() as server:
        url = server.url("/")
    with pytest.raises(SearchError):
        SearxngProvider(url, timeout=2).search("camera")


def test_a_searxng_address_must_be_http():
    with pytest.raises(ValueError, match="http"):
        SearxngProvider("ftp://search.test/")


# --- The site's own search ---------------------------------------------------------------


def results_page(query: str, links: list[tuple[str, str]], total: int) -> str:
    menu = "<nav><ul><li><a href='/'>Home</a></li><li><a href='/about'>About</a></li></ul></nav>"
    items = "".join(
        f"<li><h2><a href='{href}'>{label}</a></h2><p>Matched {query}.</p></li>"
        for href, label in links
    )
    more = f"<p><a href='/find?q={query}&page=2'>Next results</a></p>"
    return (
        "<!doctype html><html lang='en'><head><title>Search</title></head><body>"
        f"{menu}<main><h1>Search</h1><p>{total:,} results for {query}</p>"
        f"<ul>{items}</ul>{more}</main></body></html>"
    )


def test_site_search_reads_result_links_and_the_stated_hit_count():
    with SiteServer() as server:
        links = [(f"/p/{i}", f"Camera {i}") for i in range(4)]
        server.html("/find", results_page("zoom", links, 1234))
        for href, label in links:
            server.html(href, article(label, "A camera with a zoom lens and a sensor."))
        provider = TemplateSearchProvider(server.url("/find?q={query}"), http_fetch(LOCAL))
        found = provider.search("zoom", limit=3)
    assert [hit.url for hit in found.hits] == [server.url(f"/p/{i}") for i in range(3)]
    assert found.total == 1234
    assert "/find?q=zoom" in server.paths()


def test_site_search_refuses_a_template_without_a_slot_and_reports_fetch_errors():
    with pytest.raises(ValueError, match="query"):
        TemplateSearchProvider("http://shop.test/find?q=", http_fetch(LOCAL))
    with SiteServer() as server:
        server.route("/find", Response("gone", status=410))
        provider = TemplateSearchProvider(server.url("/find?q={query}"), http_fetch(LOCAL))
        with pytest.raises(SearchError, match="410"):
            provider.search("zoom")


def test_site_search_respects_robots_txt():
    with SiteServer() as server:
        server.robots("User-agent: *\nDisallow: /find\n")
        server.html("/find", hub("Results", [("/p/1", "One")]))
        provider = TemplateSearchProvider(server.url("/find?q={query}"), http_fetch(LOCAL))
        with pytest.raises(SearchError, match="robots"):
            provider.search("zoom")
        assert "/find?q=zoom" not in server.paths()


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("1,234 results for zoom", 1234),
        ("Showing 12 products", 12),
        ("About 48 200 matches", 48200),
        ("42 Treffer", 42),
        ("No results found", None),
        ("", None),
    ],
)
def test_hit_counts_are_read_from_the_results_page(text, count):
    assert parse_hit_count(text) == count
