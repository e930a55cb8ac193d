"""Admin: per-site crawl status, runs, pages with their versions, "crawl now"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from crawler.crawl import crawl
from crawler.models import CrawlRun, Page
from tests.conftest import make_user
from tests.crawler.servers import SiteServer
from tests.crawler.sites import make_site, news_site

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    client.force_login(make_user("admin@example.com", is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def crawled():
    with SiteServer() as server:
        news_site(server, articles=4)
        site = make_site(server, name="Harbour news")
        run = crawl(site)
    return site, run


def test_the_site_list_shows_the_last_run_and_its_counters(staff_client, crawled):
    site, run = crawled
    response = staff_client.get(reverse("admin:crawler_site_changelist"))
    assert response.status_code == 200
    row = next(r for r in response.context["cl"].result_list if r.pk == site.pk)
    assert row.page_count == Page.objects.filter(site=site, last_fetched_at__isnull=False).count()
    assert (row.last_new, row.last_errors, row.last_robots_skipped) == (
        run.new,
        run.errors,
        run.robots_skipped,
    )
    html = response.content.decode()
    assert reverse("admin:crawler_crawlrun_change", args=[run.pk]) in html
    assert (
        f"{100 * run.relevant // run.fetched}%" in html
        or f"{100 * run.relevant / run.fetched:.0f}%" in html
    )


def test_a_site_page_lists_its_recent_runs(staff_client, crawled):
    site, run = crawled
    response = staff_client.get(reverse("admin:crawler_site_change", args=[site.pk]))
    assert response.status_code == 200
    assert "Recent runs" in response.content.decode()
    assert "exhausted" in response.content.decode()


def test_runs_and_pages_with_their_versions_are_shown(staff_client, crawled):
    site, run = crawled
    assert staff_client.get(reverse("admin:crawler_crawlrun_changelist")).status_code == 200
    assert (
        staff_client.get(reverse("admin:crawler_crawlrun_change", args=[run.pk])).status_code == 200
    )
    page = Page.objects.filter(site=site, kind=Page.Kind.INFORMATION).first()
    response = staff_client.get(reverse("admin:crawler_page_change", args=[page.pk]))
    assert response.status_code == 200
    version = page.latest_version()
    assert version.content_hash in response.content.decode()
    listing = staff_client.get(
        reverse("admin:crawler_page_changelist"), {"site__id__exact": site.pk}
    )
    assert listing.status_code == 200 and page.url in listing.content.decode()


def test_runs_cannot_be_added_by_hand(staff_client):
    assert staff_client.get(reverse("admin:crawler_crawlrun_add")).status_code == 403
    assert CrawlRun.objects.count() == 0
