"""Politeness across processes: real Celery workers crawl four sites on one host, and the
host's own log shows one request at a time, the delays kept and a Retry-After obeyed by all.

The host's slot and times live in the shared cache (Redis), so the facts are checked on the
server's clock: when each request arrived and when its answer left.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

import pytest

from crawler.fetch import Fetcher, FetchPolicy, SiteRules, shared_slots
from crawler.fetch.sync import run_sync
from crawler.models import CrawlRun, Site
from tests.crawler.servers import RequestHandler, Response, SiteServer
from tests.e2e.processes import ROOT, Processes, service_env, wait_until

SITE_DELAY = 0.2  # each site's own crawl delay
CRAWL_DELAY = 0.4  # robots.txt asks for more: it wins
RETRY_AFTER = 2  # seconds the one 429 asks for
CLOCK_TOLERANCE = 0.01  # the server's clock and the workers' are one clock, read in two places
SITES = 4
PAGES = 5  # per site: 20 pages on the host, besides roots, robots.txt and sitemaps
# Other test runs on this Redis server clear its cache database at every test: the slots of
# these tests live in one of their own.
PRIVATE_REDIS_DB = 15
ALIAS = "politeness"


@pytest.fixture
def slots_cache(settings) -> str:
    """Return the location of a cache for this test's slots, named ALIAS in this process."""
    default = settings.CACHES["default"]
    private = dict(default)
    if default["BACKEND"].endswith("RedisCache"):
        private["LOCATION"] = default["LOCATION"].rsplit("/", 1)[0] + f"/{PRIVATE_REDIS_DB}"
    settings.CACHES = {**settings.CACHES, ALIAS: private}
    return private["LOCATION"]


@dataclass
class Visit:
    """One request as the server saw it, on the server's clock."""

    path: str
    status: int
    start: float
    end: float = 0.0


@dataclass
class Ledger:
    """Every request's arrival and departure, and the most requests ever in flight at once."""

    visits: list[Visit] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, response: Response, *, once: Response | None = None):
        """Return a handler that records the request and answers (`once` the first time)."""
        pending = [once] if once else []

        def handler(request: RequestHandler) -> None:
            with self.lock:
                reply = pending.pop() if pending else response
                visit = Visit(request.path, reply.status, time.time())
                self.visits.append(visit)
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
            time.sleep(0.05)  # long enough for an overlapping request to show
            with self.lock:
                self.in_flight -= 1
                visit.end = time.time()  # before the answer leaves: the client has not seen it
            request.reply(reply)

        return handler

    def ordered(self) -> list[Visit]:
        return sorted(self.visits, key=lambda v: v.start)


def page(body: str) -> Response:
    return Response(f"<html><body>{body}</body></html>")


def host_site(server: SiteServer, ledger: Ledger) -> list[str]:
    """Serve four sites under one host; return their root URLs."""
    robots = f"User-agent: *\nCrawl-delay: {CRAWL_DELAY}\n"
    server.route(
        "/robots.txt", ledger.answer(Response(robots, headers={"Content-Type": "text/plain"}))
    )
    server.route("/sitemap.xml", ledger.answer(Response("", status=404)))
    roots = []
    for s in range(SITES):
        links = "".join(f'<a href="/s{s}/p{n}">Article {n}</a>' for n in range(PAGES))
        server.route(f"/s{s}/", ledger.answer(page(f"<h1>Site {s}</h1>{links}")))
        for n in range(PAGES):
            article = page(f"<article><h1>Story {s}.{n}</h1><p>{'Words here. ' * 30}</p></article>")
            busy = Response("busy", status=429, headers={"Retry-After": str(RETRY_AFTER)})
            once = busy if (s, n) == (1, 2) else None
            server.route(f"/s{s}/p{n}", ledger.answer(article, once=once))
        roots.append(server.url(f"/s{s}/"))
    return roots


@pytest.fixture
def workers(tmp_path, slots_cache):
    queue = f"polite-{os.getpid()}"
    env = service_env(
        smtp_port=1,
        site_url="http://127.0.0.1",
        CACHE_URL=slots_cache,
        # Pages stored by the crawl are ingested in the worker itself, not sent to queues that
        # other test runs' workers read.
        CELERY_TASK_ALWAYS_EAGER="1",
    )
    processes = Processes(env, tmp_path)
    for n in range(SITES):
        processes.worker(f"polite{n}", queue)
    yield processes, queue
    processes.stop_all()


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_four_workers_crawling_one_host_take_turns_and_obey_its_retry_after(workers):
    processes, queue = workers
    from config.celery_app import app

    ledger = Ledger()
    with SiteServer() as server:
        roots = host_site(server, ledger)
        sites = [
            Site.objects.create(
                name=f"Site {n}",
                root_url=root,
                crawl_delay=SITE_DELAY,
                allow_private_network=True,
                page_budget=20,
            )
            for n, root in enumerate(roots)
        ]
        for n in range(SITES):
            wait_until(lambda n=n: "ready." in processes.log(f"polite{n}"), 60, f"worker {n}")
        for site in sites:
            app.send_task("crawler.tasks.crawl_site", args=[site.id], queue=queue)

        def finished() -> bool:
            return CrawlRun.objects.filter(finished_at__isnull=False).count() == SITES

        wait_until(finished, 120, "the four crawls to finish")

    visits = ledger.ordered()
    assert len(visits) == len(server.requests)  # every request went through the ledger
    pages = [v for v in visits if "/p" in v.path]
    assert len(pages) == SITES * PAGES + 1  # each article, and the 429'd one twice
    # The four crawls overlapped in time, in different processes...
    starts = {site.id: CrawlRun.objects.get(site=site).started_at for site in sites}
    ends = {site.id: CrawlRun.objects.get(site=site).finished_at for site in sites}
    assert max(starts.values()) < min(ends.values())
    # ...and yet the host never saw two requests at once,
    assert ledger.max_in_flight == 1
    # every request waited the site's delay after the previous one, and every request but
    # robots.txt (asked before its Crawl-delay is known) the longer Crawl-delay,
    for before, after in zip(visits, visits[1:], strict=False):
        delay = SITE_DELAY if after.path == "/robots.txt" else CRAWL_DELAY
        assert after.start >= before.end + delay - CLOCK_TOLERANCE, (before, after)
    # and after the 429 nobody asked before its Retry-After had passed.
    [busy] = [n for n, v in enumerate(visits) if v.status == 429]
    assert visits[busy + 1].start >= visits[busy].end + RETRY_AFTER - CLOCK_TOLERANCE
    assert visits[busy + 1].status == 200


HOLDER = """
import asyncio, sys
import django
django.setup()
from crawler.fetch import Fetcher, SiteRules, policy_from_settings, shared_slots

async def main():
    rules = SiteRules(crawl_delay=0, obey_robots=False, allow_private_network=True)
    async with Fetcher(policy_from_settings(), slots=shared_slots()) as fetcher:
        await fetcher.fetch(sys.argv[1], rules)

asyncio.run(main())
"""


@pytest.mark.redis
@pytest.mark.slow
def test_a_worker_killed_mid_request_frees_the_host_when_its_lease_runs_out(slots_cache):
    lease = 1.5
    ledger = Ledger()
    hung = threading.Event()

    def never_answers(request: RequestHandler) -> None:
        with ledger.lock:
            ledger.visits.append(Visit(request.path, 0, time.time()))
        hung.set()
        server.stopping.wait(60)

    with SiteServer() as server:
        server.route("/hang", never_answers)
        server.route("/after", ledger.answer(page("after")))
        env = service_env(
            smtp_port=1,
            site_url="http://127.0.0.1",
            CACHE_URL=slots_cache,
            CRAWLER_HOST_LEASE=str(lease),
        )
        holder = subprocess.Popen(  # noqa: S603
            [sys.executable, "-c", HOLDER, server.url("/hang")],
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )
        try:
            assert hung.wait(30), "the holder never asked"
            os.killpg(holder.pid, signal.SIGKILL)
        finally:
            holder.wait(10)

        async def ask_after() -> int | None:
            rules = SiteRules(crawl_delay=0, obey_robots=False, allow_private_network=True)
            policy = FetchPolicy(host_lease=lease)
            async with Fetcher(policy, slots=shared_slots(ALIAS)) as fetcher:
                result = await asyncio.wait_for(fetcher.fetch(server.url("/after"), rules), 20)
            return result.status

        assert run_sync(ask_after()) == 200

    hang, after = ledger.ordered()
    assert hang.path == "/hang" and after.path == "/after"
    # The dead holder's turn lasted until its lease ran out (and no longer: /after was
    # answered within the 20 s the fetch was given).
    assert after.start >= hang.start + lease - CLOCK_TOLERANCE


def test_fetchers_sharing_the_cache_take_turns_with_a_host_from_two_threads(slots_cache):
    """The same rule on whatever cache the settings name (local memory in the fast tier)."""
    ledger = Ledger()
    rules = SiteRules(crawl_delay=0.05, obey_robots=False, allow_private_network=True)

    def crawl(urls: list[str]) -> list[int | None]:
        async def run() -> list[int | None]:
            async with Fetcher(FetchPolicy(), slots=shared_slots(ALIAS)) as fetcher:
                return [(await fetcher.fetch(url, rules)).status for url in urls]

        return asyncio.run(run())

    with SiteServer() as server:
        for n in range(8):
            server.route(f"/p{n}", ledger.answer(page(f"page {n}")))
        halves = [[server.url(f"/p{n}") for n in range(k, 8, 2)] for k in (0, 1)]
        statuses: list[list[int | None]] = []
        threads = [threading.Thread(target=lambda h=h: statuses.append(crawl(h))) for h in halves]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)

    assert sorted(sum(statuses, [])) == [200] * 8
    assert ledger.max_in_flight == 1
    visits = ledger.ordered()
    for before, after in zip(visits, visits[1:], strict=False):
        assert after.start >= before.end + 0.05 - CLOCK_TOLERANCE


@pytest.mark.redis
def test_slots_on_redis_are_taken_from_the_event_loop_without_a_worker_thread(slots_cache):
    """Each fetch claims and frees its host's slot: on Redis that happens on the loop's own
    connection, so no fetch waits for a thread of the loop's executor."""
    from concurrent.futures import ThreadPoolExecutor

    submitted: list[str] = []

    class Watched(ThreadPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            # asyncio.to_thread hands over partial(context.run, the function, its arguments).
            called = (fn, *getattr(fn, "args", ()), *args)
            submitted.extend(getattr(a, "__qualname__", "") for a in called)
            return super().submit(fn, *args, **kwargs)

    ledger = Ledger()
    rules = SiteRules(crawl_delay=0, obey_robots=False, allow_private_network=True)

    async def run(urls: list[str]) -> list[int | None]:
        asyncio.get_running_loop().set_default_executor(Watched(2))
        async with Fetcher(FetchPolicy(), slots=shared_slots(ALIAS)) as fetcher:
            return [(await fetcher.fetch(url, rules)).status for url in urls]

    with SiteServer() as server:
        for n in range(3):
            server.route(f"/p{n}", ledger.answer(page(f"page {n}")))
        statuses: list[int | None] = []
        urls = [server.url(f"/p{n}") for n in range(3)]
        # A thread of its own, as a crawl's fetching loop runs (this one may have a loop).
        thread = threading.Thread(target=lambda: statuses.extend(asyncio.run(run(urls))))
        thread.start()
        thread.join(30)
    assert statuses == [200, 200, 200]
    assert not [name for name in submitted if "Slots" in name], submitted
