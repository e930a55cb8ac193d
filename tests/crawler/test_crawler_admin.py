"""Admin: per-site crawl status, runs, pages with their versions, "crawl now"."""

from __future__ import annotations

from datetime import timedelta

import lxml.html
import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format

from crawler.admin.sites import RECENT_RUNS
from crawler.canonical import same_site
from crawler.models import CrawlRun, Page, PageVersion, Site
from crawler.run.loop import crawl
from tests.crawler import sites
from tests.crawler.servers import SiteServer
from tests.crawler.sites import make_site, news_site

pytestmark = pytest.mark.django_db


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


def runs_table(html: str) -> list[list[str]]:
    """Return the text of each row of the recent-runs table on a site's admin page."""
    document = lxml.html.document_fromstring(html)
    return [
        [cell.text_content().strip() for cell in row.xpath("./td")]
        for row in document.xpath("//table[@class='crawl-runs']/tbody/tr")
    ]


def test_a_site_page_lists_its_recent_runs_with_their_counters(staff_client, crawled):
    site, run = crawled
    response = staff_client.get(reverse("admin:crawler_site_change", args=[site.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Recent runs" in html
    [row] = runs_table(html)
    harvest = f"{100 * run.relevant / run.fetched:.0f}%"
    assert row[0] == date_format(timezone.localtime(run.started_at), "DATETIME_FORMAT")
    assert row[2:] == [
        "Finished",
        "bfs",
        str(run.fetched),
        str(run.new),
        str(run.changed),
        str(run.unchanged),
        str(run.errors),
        str(run.robots_skipped),
        harvest,
        "exhausted",
    ]
    assert reverse("admin:crawler_crawlrun_change", args=[run.pk]) in html
    runs_link = reverse("admin:crawler_crawlrun_changelist") + f"?site__id__exact={site.pk}"
    pages_link = reverse("admin:crawler_page_changelist") + f"?site__id__exact={site.pk}"
    assert f'href="{runs_link}"' in html and f'href="{pages_link}"' in html
    pages = Page.objects.filter(site=site).fetched().count()
    assert f"its {pages} fetched pages" in html


def test_a_site_page_shows_the_newest_runs_first_and_links_to_the_rest(staff_client, crawled):
    site, run = crawled
    now = timezone.now()
    for hours in range(1, 13):  # older runs, finished
        CrawlRun.objects.create(
            site=site,
            strategy="bfs",
            status=CrawlRun.Status.FINISHED,
            started_at=now - timedelta(hours=hours),
            finished_at=now - timedelta(hours=hours) + timedelta(seconds=90),
            fetched=hours,
            stop_reason="budget",
        )
    html = staff_client.get(reverse("admin:crawler_site_change", args=[site.pk])).content.decode()
    rows = runs_table(html)
    assert len(rows) == RECENT_RUNS
    assert rows[0][4] == str(run.fetched)  # the real run is the newest
    assert [r[4] for r in rows[1:]] == [str(h) for h in range(1, RECENT_RUNS)]
    assert rows[1][1] == "1 min 30 s"
    assert f"Showing the last {RECENT_RUNS} of 13 runs" in html
    listing = staff_client.get(
        reverse("admin:crawler_crawlrun_changelist"), {"site__id__exact": site.pk}
    )
    assert listing.status_code == 200 and len(listing.context["cl"].result_list) == 13


def test_a_new_site_has_no_runs_yet(staff_client):
    site = Site.objects.create(name="Quiet", root_url="http://127.0.0.1:9/")
    html = staff_client.get(reverse("admin:crawler_site_change", args=[site.pk])).content.decode()
    assert "No runs yet." in html and runs_table(html) == []


def test_a_run_page_lists_the_versions_it_stored(staff_client, crawled):
    site, run = crawled
    html = staff_client.get(reverse("admin:crawler_crawlrun_change", args=[run.pk])).content
    document = lxml.html.document_fromstring(html)
    listed = set(document.xpath("//div[contains(@class, 'field-stored_versions')]//td[1]/a/text()"))
    stored = set(PageVersion.objects.filter(run=run).values_list("page__url", flat=True))
    assert stored and listed == stored
    story = Page.objects.filter(site=site, kind=Page.Kind.INFORMATION).first()
    assert reverse("admin:crawler_page_change", args=[story.pk]) in html.decode()


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


def site_form(**overrides: str) -> dict[str, str]:
    """The site form for a local site (its root URL is loopback, so the flag stays on)."""
    return sites.site_form(**overrides)


@pytest.mark.parametrize(
    ("hosts", "seeds"),
    [
        ("127.0.0.1:8765", "http://127.0.0.1:8765/news/"),
        ("*.harbour.example\n127.0.0.1", "https://www.harbour.example/\nhttps://harbour.example/a"),
        (".harbour.example\n127.0.0.1", "https://news.harbour.example/"),
        ("[::1]:8000\n127.0.0.1", "http://[::1]:8000/"),
    ],
)
def test_the_site_form_takes_every_allowed_host_form_the_crawler_understands(
    staff_client, hosts, seeds
):
    response = staff_client.post(
        reverse("admin:crawler_site_add"), site_form(allowed_hosts=hosts, seed_urls=seeds)
    )

    assert response.status_code == 302, response.context["adminform"].form.errors
    site = Site.objects.get()
    assert all(same_site(url, site.host_list()) for url in site.seeds())


@pytest.mark.parametrize(
    ("hosts", "seeds", "field"),
    [
        ("127.0.0.1:8765", "http://127.0.0.1:9999/", "seed_urls"),
        ("*.harbour.example\n127.0.0.1", "https://harbour.example.evil/", "seed_urls"),
        ("*harbour.example", "", "allowed_hosts"),
        ("http://harbour.example/", "", "allowed_hosts"),
        ("harbour..example", "", "allowed_hosts"),
    ],
)
def test_the_site_form_refuses_hosts_and_seeds_the_crawler_would_not_visit(
    staff_client, hosts, seeds, field
):
    response = staff_client.post(
        reverse("admin:crawler_site_add"), site_form(allowed_hosts=hosts, seed_urls=seeds)
    )

    assert response.status_code == 200
    assert field in response.context["adminform"].form.errors
    assert not Site.objects.exists()
