"""Search providers against a real local server (a fake SearxNG API), and results pages read."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from crawler.strategies.xcrawl.search import (
    SearchError,
    SearxngProvider,
    parse_hit_count,
)
from tests.crawler.servers import FakeSearxng, Response, SiteServer


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


# --- A results page ----------------------------------------------------------------------


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
