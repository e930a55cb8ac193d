"""Teasers followed: a hub's link holding someone's keyword sends the crawl to its article."""

from __future__ import annotations

import pytest

from analyzer import analyze
from clipping.ingest import ingest_version
from clipping.models import Match
from crawler.models import CrawlRun, Page
from crawler.run.loop import crawl
from crawler.run.teasers import candidates
from tests.crawler.servers import SiteServer
from tests.crawler.sites import article, hub, make_site
from tests.factories import active_index, make_list

pytestmark = pytest.mark.django_db

STORIES = [(f"/news/{i}", f"Story number {i} of the day") for i in range(8)]
BRIDGE = ("/news/bridges", "Harbour bridges reopen after repairs")


@pytest.fixture(autouse=True)
def _no_hidden_web(settings):
    settings.DEEPWEB_ENABLED = False


@pytest.fixture
def server():
    with SiteServer() as site:
        site.html("/", hub("Home", [*STORIES, BRIDGE]))
        for path, title in [*STORIES, BRIDGE]:
            site.html(path, article(title, f"{title}: the council met.", [("/", "Home")]))
        yield site


def test_a_hub_link_holding_a_keyword_form_is_a_candidate() -> None:
    analysis = analyze(hub("Home", [*STORIES, BRIDGE]), "http://example.com/")

    def holds_bridge(texts: list[str]) -> list[bool]:
        return ["bridges" in text.lower() for text in texts]

    assert candidates(analysis, holds_bridge) == ["http://example.com/news/bridges"]
    assert candidates(analysis, lambda texts: [False] * len(texts)) == []


@pytest.mark.parametrize("strategy", ["bfs", "xcrawl"])
def test_the_article_a_teaser_announces_is_fetched_first_and_clipped(server, alice, strategy):
    make_list(alice, "Harbour", "bridge")  # the link says "bridges": a form of the keyword
    active_index()
    site = make_site(server, strategy=strategy)
    run = crawl(site, max_pages=3, seed=1)
    fetched = [p for p in server.paths() if p not in {"/robots.txt", "/sitemap.xml"}]
    assert BRIDGE[0] in fetched[:2]  # right after the home page, before the first story
    assert run.teaser_articles == 1
    story = Page.objects.get(site=site, url=server.url(BRIDGE[0]))
    home = Page.objects.get(site=site, url=server.url("/"))
    assert (story.kind, home.kind) == (Page.Kind.INFORMATION, Page.Kind.HUB)
    for page in (story, home):
        ingest_version(page.versions.get().id)
    matches = Match.objects.filter(keyword_list__owner=alice)
    assert [m.clip.page_id for m in matches] == [story.id]  # the article, never the hub
    assert CrawlRun.objects.get(id=run.id).teaser_articles == 1


def test_without_anyones_keyword_the_strategy_keeps_its_order(server, alice):
    make_list(alice, "Elsewhere", "volcano")
    active_index()
    site = make_site(server, strategy="bfs")
    run = crawl(site, max_pages=3, seed=1)
    fetched = [p for p in server.paths() if p not in {"/robots.txt", "/sitemap.xml"}]
    assert BRIDGE[0] not in fetched and run.teaser_articles == 0
