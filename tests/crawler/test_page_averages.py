"""Page averages learnt per site: each run weighs pages against its site's classified pages."""

from __future__ import annotations

import pytest
from django.utils import timezone

from analyzer import analyze
from analyzer.kind import DEV_AVERAGES, Averages
from crawler.models import CrawlRun, Page
from crawler.run.averages import KEY, site_averages
from crawler.run.loop import crawl
from tests.crawler.servers import SiteServer
from tests.crawler.sites import hub, make_site

pytestmark = pytest.mark.django_db

SENTENCE = "The harbour council met again and spoke about the bridges, ferries and budget. "
REPORTS = [(f"/reports/{i}", f"Long report {i}") for i in range(24)]


def page(title: str, paragraphs: list[str], links: list[tuple[str, str]]) -> str:
    menu = "".join(f'<li><a href="{href}">{label}</a></li>' for href, label in links)
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title></head><body>"
        f"<nav><ul>{menu}</ul></nav><article><h1>{title}</h1>{body}</article></body></html>"
    )


# Two sentences of prose under a menu of ten links: an article by the dev-set averages, a
# hub beside a site whose articles run to thousands of words with next to no links.
NOTE = page("A short note", [SENTENCE * 2], REPORTS[:10])


@pytest.fixture(autouse=True)
def _no_hidden_web(settings):
    settings.DEEPWEB_ENABLED = False


def test_the_borderline_note_is_an_article_by_the_dev_set_averages() -> None:
    assert analyze(NOTE, "http://example.com/note").kind == "information"


@pytest.mark.slow
def test_a_site_of_long_articles_makes_the_borderline_note_a_hub() -> None:
    with SiteServer() as server, SiteServer() as other:
        server.html("/", hub("Reports", REPORTS))
        for path, title in REPORTS:
            server.html(path, page(title, [SENTENCE * 12] * 16, [("/", "Home")]))
        server.html("/note", NOTE)
        site = make_site(server, strategy="bfs")
        first = crawl(site, max_pages=len(REPORTS) + 3, seed=1)
        learnt = Averages.from_data(first.learned[KEY])
        assert learnt.info_text > 2 * DEV_AVERAGES.info_text
        articles = Page.objects.filter(site=site, kind=Page.Kind.INFORMATION).count()
        assert articles == len(REPORTS)
        assert learnt.info_pages == DEV_AVERAGES.info_pages + articles
        assert site_averages(site) == learnt  # the next run starts from them

        site.seed_urls = server.url("/note")
        site.save()
        crawl(site, max_pages=3, seed=1)
        note = Page.objects.get(site=site, url=server.url("/note"))
        assert note.kind == Page.Kind.HUB

        other.html("/", NOTE)  # the same page on a site nothing was learnt from
        fresh = make_site(other, strategy="bfs")
        crawl(fresh, max_pages=1, seed=1)
        assert Page.objects.get(site=fresh, url=other.url("/")).kind == Page.Kind.INFORMATION


def test_a_damaged_record_falls_back_to_the_dev_set_averages() -> None:
    with SiteServer() as server:
        site = make_site(server)
        for bad in ({"info_text": "lots"}, {**DEV_AVERAGES.to_data(), "hub_ltr": -1}, [1, 2]):
            CrawlRun.objects.create(site=site, finished_at=timezone.now(), learned={KEY: bad})
            assert site_averages(site) == DEV_AVERAGES
