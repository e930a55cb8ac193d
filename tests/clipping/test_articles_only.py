"""Only articles make clips and mail: hubs and site-search result pages never do (demo site)."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator

import pytest

from analyzer import analyze
from clipping.ingest import ingest
from clipping.models import Clip, Match
from crawler.models.sitesearch import SiteSearch
from crawler.sitesearch.template import looks_like_search
from demo.server import serve
from tests.clipping.pages import RAIL, article
from tests.factories import active_index, kept, make_list, make_site, store_version

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    server, _ = serve(port=0)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 (our own demo site)
        return response.read().decode()


def ingest_url(site, url: str):
    html = fetch(url)
    version = store_version(site, url, html)
    return ingest(version, kept(analyze(html, url), version), index=active_index())


def test_the_demo_sites_search_results_and_sections_make_no_clip(demo, alice):
    site = make_site("The Daily Demo", demo + "/")
    make_list(alice, "Transport", "strike\ntrains\nautomobile")
    listings = [
        f"{demo}/search?q=strike",  # results: teasers of matching articles
        f"{demo}/search?q=trains",
        f"{demo}/search?q=zeppelin",  # "No articles match “zeppelin”."
        f"{demo}/section/transport/",
        f"{demo}/section/transport/?page=2",
        f"{demo}/",
    ]
    for url in listings:
        result = ingest_url(site, url)
        assert (result.clips, result.matches) == (0, 0), url
    assert not Clip.objects.exists() and not Match.objects.exists()

    # The article the search found does make a clip.
    results = fetch(f"{demo}/search?q=strike")
    found = results[results.index("/article/") :].split('"', 1)[0]
    article_result = ingest_url(site, demo + found)
    assert article_result.clips == 1 and article_result.matches == 1


def test_a_search_page_of_a_form_the_site_is_known_for_makes_no_clip(site, alice):
    make_list(alice, "Transport", "strike")
    SiteSearch.objects.create(
        site=site,
        fingerprint="archive-lookup",
        action="https://news.example.com/archive/lookup",
        url_template="https://news.example.com/archive/lookup?term={query}",
    )
    url = "https://news.example.com/archive/lookup?term=strike"
    html = article("Rail strike ends after three days", RAIL)
    version = store_version(site, url, html)

    result = ingest(version, kept(analyze(html, url), version), index=active_index())

    assert result.clips == 0 and "search result page" in result.skipped
    same = store_version(site, "https://news.example.com/news/rail", html)
    assert ingest(same, kept(analyze(html, same.page.url), same), index=active_index()).clips == 1


def test_a_hub_page_is_never_an_article(site):
    html = article("Rail strike ends after three days", RAIL)
    version = store_version(site, "https://news.example.com/news/rail", html)
    analysis = analyze(html, "https://news.example.com/news/rail")
    assert kept(analysis, version).not_article == ""
    analysis.kind = "hub"
    assert "hub page" in kept(analysis, version).not_article


@pytest.mark.parametrize(
    ("url", "search"),
    [
        ("https://x.example/search?q=strike", True),
        ("https://x.example/en/search/strike", True),
        ("https://x.example/news?query=rail", True),
        ("https://x.example/?s=rail", True),
        ("https://x.example/news/rail-strike", False),
        ("https://x.example/news?page=2&s=", False),
        ("https://x.example/tag/s?s=x", False),
    ],
)
def test_search_result_urls_are_recognised_by_their_shape(url, search):
    assert looks_like_search(url) is search


def test_a_search_page_showing_one_hit_in_full_makes_no_clip(site, alice):
    # Some sites show the only result of a search in full: the text is an article's, the
    # page is still a search result page, and the article is clipped from its own URL.
    make_list(alice, "Transport", "strike")
    html = article("Rail strike ends after three days", RAIL)
    version = store_version(site, "https://news.example.com/search?q=rail+strike", html)

    result = ingest(version, kept(analyze(html, version.page.url), version), index=active_index())

    assert (result.clips, result.matches) == (0, 0)
    assert not Clip.objects.exists()
