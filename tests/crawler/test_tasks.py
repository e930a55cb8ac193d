"""Celery tasks: thin, routed to the crawl and render queues."""

from __future__ import annotations

import pytest

from crawler.models import CrawlRun, Page
from crawler.tasks import crawl_site, enqueue_crawl, render_page
from tests.crawler.servers import SiteServer
from tests.crawler.sites import Published, make_site, news_site

pytestmark = pytest.mark.django_db


def test_the_crawl_task_runs_a_crawl_and_returns_its_run():
    with SiteServer() as server:
        news_site(server, articles=2)
        site = make_site(server)
        run_id = crawl_site(site.id)
    run = CrawlRun.objects.get(id=run_id)
    assert run.status == CrawlRun.Status.FINISHED and run.new == 5


def test_a_task_for_a_deleted_site_or_page_does_nothing():
    assert crawl_site(987654) is None
    assert render_page(987654) is None


def test_sites_that_need_a_browser_are_crawled_on_the_render_queue(
    django_capture_on_commit_callbacks,
):
    with SiteServer() as server:
        plain = make_site(server)
    with SiteServer() as server:
        browser = make_site(server, needs_browser=True)
    with Published() as published, django_capture_on_commit_callbacks(execute=True):
        enqueue_crawl(plain)
        enqueue_crawl(browser)
    assert published == [
        ("crawler.tasks.crawl_site", "crawl"),
        ("crawler.tasks.render_site", "render"),
    ]
    assert not Page.objects.exists()
