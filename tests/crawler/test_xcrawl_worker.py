"""xCrawl under a real Celery worker (Redis broker), queued the way breadth-first crawls are."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from django.db import transaction

from analyzer.text import stems
from crawler.models import CrawlRun, Site
from crawler.models.xcrawl import PageVerdict
from crawler.tasks import enqueue_crawl
from crawler.topic import Topic, register_topic_provider
from tests.crawler.servers import SiteServer
from tests.crawler.sites import make_site
from tests.crawler.xcrawl_site import TOPIC_WORDS, build_shop
from tests.servers import queue_worker

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def worker() -> Iterator[None]:
    """A worker thread consuming this test run's own crawl queue on the real broker."""
    with queue_worker("crawler.tasks.*", "crawl-test"):
        yield


@pytest.mark.slow
def test_a_site_set_to_xcrawl_is_crawled_by_the_worker_like_a_breadth_first_site(worker):
    register_topic_provider(lambda site: Topic(terms=dict.fromkeys(stems(TOPIC_WORDS), 1.0)))
    try:
        shop = build_shop(products_per_brand=(3, 4), categories=["cameras", "printers"])
        with SiteServer() as server, SiteServer() as twin:
            shop.serve(server)
            shop.serve(twin)
            xcrawl = make_site(server, page_budget=30, strategy=Site.Strategy.XCRAWL)
            bfs = make_site(twin, page_budget=30)
            with transaction.atomic():
                enqueue_crawl(xcrawl)
                enqueue_crawl(bfs)
            deadline = time.monotonic() + 120
            while CrawlRun.objects.filter(status=CrawlRun.Status.FINISHED).count() < 2:
                assert time.monotonic() < deadline, "the worker did not finish both crawls"
                time.sleep(0.3)
    finally:
        register_topic_provider(None)
    assert CrawlRun.objects.get(site=xcrawl).strategy == "xcrawl"
    assert CrawlRun.objects.get(site=bfs).strategy == "bfs"
    assert PageVerdict.objects.filter(page__site=xcrawl, accepted=True).exists()
    assert not PageVerdict.objects.filter(page__site=bfs).exists()  # verdicts are xCrawl's
