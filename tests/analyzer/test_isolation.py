"""Analysis under caps: a page that needs too much memory or time is refused, the analysing
process is replaced, and the next page of the same worker is analysed as usual."""

from __future__ import annotations

import os
import time

import pytest

from analyzer import NotHTMLError, analyze
from analyzer.isolation import (
    MIB,
    AnalysisMemoryError,
    AnalysisTimeoutError,
    Isolated,
    analyze_and_read_isolated,
    analyze_isolated,
)
from analyzer.kind import Averages
from tests.analyzer import readers
from tests.analyzer.pages import article_page


def many_attributes(count: int) -> str:
    """One element with `count` attributes: within every size cap of the analyzer, yet the
    parser allocates a node per attribute (450,000 take some 180 MiB and a second)."""
    attributes = "".join(f" a{i}=v" for i in range(count))
    return f"<html><body><div{attributes}>text</div></body></html>"


HEAVY = many_attributes(450_000)
ARTICLE = article_page()


@pytest.fixture
def isolated():
    made: list[Isolated] = []

    def make(memory_mb: int = 0, seconds: float = 0) -> Isolated:
        made.append(Isolated(memory_mb * MIB, seconds))
        return made[-1]

    yield make
    for each in made:
        each.close()


def test_a_page_needing_more_memory_than_the_cap_is_refused_and_the_next_is_analysed(isolated):
    guard = isolated(memory_mb=120)

    with pytest.raises(AnalysisMemoryError, match="120 MiB memory cap"):
        guard.analyze(HEAVY, "https://news.example.com/heavy")
    analysis = guard.analyze(ARTICLE, "https://news.example.com/story")

    assert analysis == analyze(ARTICLE, "https://news.example.com/story")
    assert analysis.kind == "information" and analysis.main_text


def test_the_same_page_is_analysed_under_a_cap_it_fits(isolated):
    guard = isolated(memory_mb=1024)

    analysis = guard.analyze(HEAVY, "https://news.example.com/heavy")

    assert analysis.text == "text"


def test_a_page_slower_than_the_time_cap_is_refused_and_the_next_is_analysed(isolated):
    guard = isolated(seconds=0.3)
    slow = many_attributes(900_000)  # over two seconds of parsing

    with pytest.raises(AnalysisTimeoutError, match="0.3 s time cap"):
        guard.analyze(slow, "https://news.example.com/slow")
    analysis = guard.analyze(ARTICLE, "https://news.example.com/story")

    assert analysis.kind == "information"


def test_the_analyzers_own_refusals_come_back_as_they_are(isolated):
    guard = isolated(memory_mb=512, seconds=10)

    with pytest.raises(NotHTMLError, match="binary data"):
        guard.analyze(b"%PDF-1.7 ...", "https://news.example.com/file.pdf")
    assert guard.analyze(ARTICLE).kind == "information"


def test_one_analysing_process_serves_page_after_page(isolated):
    guard = isolated(memory_mb=512, seconds=10)
    guard.analyze(ARTICLE)
    first = guard._child.pid

    for _ in range(3):
        guard.analyze(ARTICLE)

    assert guard._child.pid == first


def test_without_caps_the_page_is_analysed_in_this_process():
    analysis = analyze_isolated(ARTICLE, "https://x.example/", memory_bytes=0, seconds=0)

    assert analysis == analyze(ARTICLE, "https://x.example/")


def test_a_reader_reads_the_page_in_the_analysing_process_beside_its_analysis(isolated):
    guard = isolated(memory_mb=512, seconds=10)
    url = "https://news.example.com/story"

    analysis, read = guard.analyze_and_read(ARTICLE, url, reader=(readers.where_and_what, ("tag",)))

    assert analysis == analyze(ARTICLE, url)
    assert read == (guard._child.pid, len(ARTICLE), url, analysis.title, "tag")
    assert read[0] != os.getpid()


def test_a_failing_reader_costs_the_page_nothing_but_its_reading_and_says_why(isolated, capfd):
    guard = isolated(memory_mb=512, seconds=10)

    analysis, read = guard.analyze_and_read(ARTICLE, reader=(readers.broken, ()))

    assert read is None
    assert analysis.kind == "information"
    assert "a fault of the reader's own" in capfd.readouterr().err
    assert guard.analyze_and_read(ARTICLE, reader=(readers.where_and_what, ("next",)))[1]


def test_a_reader_is_held_to_the_memory_cap_like_the_analysis(isolated):
    guard = isolated(memory_mb=200)

    with pytest.raises(AnalysisMemoryError):
        guard.analyze_and_read(ARTICLE, reader=(readers.greedy, (400,)))
    analysis, read = guard.analyze_and_read(ARTICLE, reader=(readers.greedy, (1,)))

    assert analysis.kind == "information" and read == MIB


def test_without_caps_the_reader_reads_in_this_process():
    analysis, read = analyze_and_read_isolated(
        ARTICLE,
        "https://x.example/",
        reader=(readers.where_and_what, ("here",)),
        memory_bytes=0,
        seconds=0,
    )

    assert read == (os.getpid(), len(ARTICLE), "https://x.example/", analysis.title, "here")


# --- Through the crawl task in a real Celery worker ------------------------------------------


@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_crawl_worker_records_a_page_over_the_cap_and_analyses_the_pages_after_it(settings):
    from django.db import transaction

    from crawler.models import CrawlRun, PageVersion
    from crawler.tasks import enqueue_crawl
    from tests.crawler.servers import SiteServer
    from tests.crawler.sites import hub, make_site
    from tests.servers import queue_worker

    settings.CRAWLER_ANALYSIS_MEMORY_MB = 120
    settings.CRAWLER_ANALYSIS_SECONDS = 20
    with SiteServer() as server, queue_worker("crawler.tasks.*", "isolation-test"):
        links = [("/heavy", "Heavy"), ("/story/1", "Story one"), ("/story/2", "Story two")]
        server.html("/", hub("Home", links))
        server.html("/heavy", HEAVY)
        server.html("/story/1", article_page(headline="Council approves solar plan"))
        server.html("/story/2", article_page(headline="Installers expect demand to double"))
        site = make_site(server)
        with transaction.atomic():
            enqueue_crawl(site)
        deadline = time.monotonic() + 120
        while not CrawlRun.objects.filter(site=site, status=CrawlRun.Status.FINISHED).exists():
            assert time.monotonic() < deadline, "the worker did not finish the crawl"
            time.sleep(0.3)

    versions = {v.page.url: v for v in PageVersion.objects.filter(page__site=site)}
    heavy = versions[server.url("/heavy")]
    assert heavy.analysis["error"].startswith("AnalysisMemoryError: ")
    assert "120 MiB memory cap" in heavy.analysis["error"]
    assert not heavy.has_information
    for path in ("/story/1", "/story/2"):
        story = versions[server.url(path)]
        assert story.kind == "information" and story.has_information
        assert "error" not in story.analysis


def test_a_pool_analyses_a_second_page_in_a_second_process_while_the_first_is_busy():
    import threading

    from analyzer.isolation import Pool

    pool = Pool(1024 * MIB, 30, size=2)
    try:
        busy = threading.Thread(target=pool.analyze, args=(HEAVY, "https://x.example/heavy"))
        busy.start()
        deadline = time.monotonic() + 10
        while not (pool._started == 1 and not pool._idle):
            assert time.monotonic() < deadline
            time.sleep(0.001)
        analysis = pool.analyze(ARTICLE, "https://x.example/story")
        busy.join(30)

        assert analysis == analyze(ARTICLE, "https://x.example/story")
        assert pool._started == 2
        assert len({each._child.pid for each in pool._idle}) == 2
    finally:
        pool.close()


def test_a_pool_used_one_page_at_a_time_keeps_one_process():
    from analyzer.isolation import Pool

    pool = Pool(512 * MIB, 10, size=4)
    try:
        for _ in range(3):
            pool.analyze(ARTICLE)
        assert pool._started == 1
    finally:
        pool.close()


def test_the_analysing_process_weighs_the_page_against_the_averages_it_is_sent(isolated):
    guard = isolated(memory_mb=512, seconds=10)
    url = "https://news.example.com/story"
    dev = analyze(ARTICLE, url)
    prose, ltr = dev.measures
    # A site whose articles hold ten times this one's prose, at ten times its LTR.
    averages = Averages(info_text=prose * 10.0, info_ltr=ltr * 10.0)

    analysis = guard.analyze_and_read(ARTICLE, url, averages=averages)[0]

    assert analysis == analyze(ARTICLE, url, averages=averages)
    assert analysis.kind_score < dev.kind_score
    assert guard.analyze(ARTICLE, url) == dev  # nothing of it stays behind in the process
