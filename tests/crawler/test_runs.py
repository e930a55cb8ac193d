"""A site never crawls twice at once: the claim lives in the database."""

from __future__ import annotations

import threading

import pytest
from django.db import IntegrityError, connection, transaction

from crawler.models import CrawlRun
from crawler.run.claims import CrawlAlreadyRunning, start_run
from crawler.run.loop import crawl
from crawler.tasks import crawl_site
from tests.crawler.servers import SiteServer
from tests.crawler.sites import article, hub, make_site


@pytest.mark.django_db
def test_the_database_refuses_a_second_unfinished_run_of_a_site():
    with SiteServer() as server:
        site = make_site(server)
    CrawlRun.objects.create(site=site, strategy="bfs")
    with pytest.raises(IntegrityError), transaction.atomic():
        CrawlRun.objects.create(site=site, strategy="bfs")
    with pytest.raises(CrawlAlreadyRunning, match="already being crawled"):
        start_run(site, "bfs", 10)


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_crawls_of_one_site_one_refuses():
    release = threading.Event()
    entered = threading.Event()

    def slow_page(request) -> None:
        entered.set()
        release.wait(20)
        from tests.crawler.servers import Response

        request.reply(Response(article("Slow", "It took a while to write this page.")))

    with SiteServer() as server:
        server.html("/", hub("Home", [("/slow", "Slow")]))
        server.route("/slow", slow_page)
        site = make_site(server)
        outcome: dict[str, object] = {}

        def first() -> None:
            try:
                outcome["run"] = crawl(site.id)
            finally:
                connection.close()

        worker = threading.Thread(target=first)
        worker.start()
        try:
            assert entered.wait(20), "the first crawl never reached the slow page"
            with pytest.raises(CrawlAlreadyRunning):
                crawl(site.id)
            assert crawl_site(site.id) is None  # the Celery task refuses quietly
        finally:
            release.set()
            worker.join(30)
    run = outcome["run"]
    assert isinstance(run, CrawlRun) and run.status == CrawlRun.Status.FINISHED
    assert CrawlRun.objects.filter(site=site).count() == 1
