"""Politeness: per-host delay (site or Crawl-delay), Retry-After, backoff, concurrency caps."""

from __future__ import annotations

import asyncio
import threading
import time
from email.utils import formatdate

import pytest

from crawler.fetch import Fetcher, FetchPolicy, SiteRules
from tests.crawler.servers import FakeClock, Response, SiteServer

PAGE = "<html><body><p>page</p></body></html>"


@pytest.fixture
def site():
    with SiteServer() as server:
        for n in range(4):
            server.html(f"/p{n}", PAGE)
        yield server


def fetch_all(urls, rules, *, clock=None, policy=None, resolver=None):
    """Fetch `urls` one after another with one Fetcher; return the results."""

    async def run():
        async with Fetcher(policy or FetchPolicy(), clock=clock, resolver=resolver) as fetcher:
            return [await fetcher.fetch(url, rules) for url in urls]

    return asyncio.run(run())


def sequence(statuses_and_headers):
    """Return a handler answering each call with the next (status, headers) pair."""
    answers = list(statuses_and_headers)

    def handler(request):
        status, headers = answers.pop(0) if len(answers) > 1 else answers[0]
        request.reply(Response(PAGE, status, {"Content-Type": "text/html", **headers}))

    return handler


def test_the_site_delay_spaces_requests_to_one_host(site):
    clock = FakeClock()
    rules = SiteRules(crawl_delay=2.0, allow_private_network=True)

    results = fetch_all([site.url(f"/p{n}") for n in range(3)], rules, clock=clock)

    assert all(r.error is None for r in results)
    # robots.txt, then three pages: each request waits for the previous one plus 2 s.
    assert clock.sleeps == [2.0, 2.0, 2.0]


def test_a_longer_robots_crawl_delay_wins_over_the_site_delay(site):
    site.robots("User-agent: *\nCrawl-delay: 5\n")
    clock = FakeClock()
    rules = SiteRules(crawl_delay=1.0, allow_private_network=True)

    fetch_all([site.url(f"/p{n}") for n in range(3)], rules, clock=clock)

    assert clock.sleeps == [5.0, 5.0, 5.0]


def test_a_shorter_robots_crawl_delay_does_not_shorten_the_site_delay(site):
    site.robots("User-agent: *\nCrawl-delay: 0.5\n")
    clock = FakeClock()
    rules = SiteRules(crawl_delay=3.0, allow_private_network=True)

    fetch_all([site.url("/p0"), site.url("/p1")], rules, clock=clock)

    assert clock.sleeps == [3.0, 3.0]


def test_an_absurd_crawl_delay_is_capped(site):
    site.robots("User-agent: *\nCrawl-delay: 86400\n")
    clock = FakeClock()
    rules = SiteRules(crawl_delay=0, allow_private_network=True)

    fetch_all([site.url("/p0")], rules, clock=clock, policy=FetchPolicy(max_crawl_delay=30))

    assert clock.sleeps == [30.0]


def test_a_503_with_retry_after_seconds_is_waited_out_and_retried(site):
    site.route("/busy", sequence([(503, {"Retry-After": "7"}), (200, {})]))
    clock = FakeClock()
    rules = SiteRules(crawl_delay=0, allow_private_network=True)

    [result] = fetch_all([site.url("/busy")], rules, clock=clock)

    assert result.error is None and result.status == 200
    assert site.paths().count("/busy") == 2
    assert clock.sleeps == [7.0]


def test_a_429_with_an_http_date_retry_after_is_waited_out(site):
    clock = FakeClock()
    later = formatdate(clock.time() + 20, usegmt=True)
    site.route("/busy", sequence([(429, {"Retry-After": later}), (200, {})]))
    rules = SiteRules(crawl_delay=0, allow_private_network=True)

    [result] = fetch_all([site.url("/busy")], rules, clock=clock)

    assert result.status == 200
    assert clock.sleeps == [pytest.approx(20.0, abs=1.0)]


def test_without_retry_after_the_backoff_doubles_then_the_error_is_recorded(site):
    site.route("/busy", sequence([(429, {})]))
    clock = FakeClock()
    rules = SiteRules(crawl_delay=0, allow_private_network=True)
    policy = FetchPolicy(retries=2, backoff_base=5.0)

    [result] = fetch_all([site.url("/busy")], rules, clock=clock, policy=policy)

    assert result.error.kind == "http" and result.status == 429
    assert clock.sleeps == [5.0, 10.0]
    assert result.error.retry_after == 20.0
    assert site.paths().count("/busy") == 3


def test_a_long_retry_after_ends_the_fetch_and_defers_the_host(site):
    site.route("/busy", sequence([(503, {"Retry-After": "3600"}), (200, {})]))
    clock = FakeClock()
    rules = SiteRules(crawl_delay=0, allow_private_network=True)

    busy, later = fetch_all([site.url("/busy"), site.url("/p0")], rules, clock=clock)

    assert busy.error.kind == "http" and busy.error.retry_after == 3600.0
    assert later.error.kind == "backoff"
    assert later.error.retry_after == pytest.approx(3600.0)
    assert "/p0" not in site.paths()  # the host was not asked again
    assert clock.sleeps == []


def test_requests_to_one_host_never_overlap_and_the_global_cap_holds():
    active = {"all": 0, "max_all": 0}
    per_host: dict[str, int] = {}
    max_per_host: dict[str, int] = {}
    lock = threading.Lock()

    def slow(request):
        host = request.headers["Host"].split(":")[0]
        with lock:
            active["all"] += 1
            active["max_all"] = max(active["max_all"], active["all"])
            per_host[host] = per_host.get(host, 0) + 1
            max_per_host[host] = max(max_per_host.get(host, 0), per_host[host])
        time.sleep(0.2)
        with lock:
            active["all"] -= 1
            per_host[host] -= 1
        request.reply(Response(PAGE))

    async def local(host):
        return ["127.0.0.1"]

    with SiteServer() as server:
        server.route("/slow", slow)
        hosts = [f"h{n}.test" for n in range(4)]
        urls = [f"http://{h}:{server.port}/slow?{i}" for h in hosts for i in range(2)]
        rules = SiteRules(crawl_delay=0, obey_robots=False, allow_private_network=True)

        async def run():
            async with Fetcher(FetchPolicy(concurrency=2), resolver=local) as fetcher:
                return await asyncio.gather(*(fetcher.fetch(u, rules) for u in urls))

        results = asyncio.run(run())

    assert all(r.error is None for r in results)
    assert max(max_per_host.values()) == 1
    assert active["max_all"] == 2


def test_a_hosts_strikes_are_cleared_after_a_normal_answer_and_only_when_it_has_some(site):
    """A 429 counts a strike; the next normal answer clears it in the store, so the backoff
    starts from the base again; answers with no strike to clear cost the store no call."""
    from crawler.fetch.slots import MemorySlots

    class Counting(MemorySlots):
        def __init__(self) -> None:
            super().__init__()
            self.clears = 0

        async def clear(self, key: str) -> None:
            self.clears += 1
            await super().clear(key)

    site.route("/busy", sequence([(429, {}), (200, {})]))
    slots = Counting()
    clock = FakeClock()
    rules = SiteRules(crawl_delay=0, allow_private_network=True)

    async def run():
        policy = FetchPolicy(retries=0, backoff_base=5.0)
        async with Fetcher(policy, clock=clock, slots=slots) as fetcher:
            first = [await fetcher.fetch(site.url(f"/p{n}"), rules) for n in range(3)]
            busy = await fetcher.fetch(site.url("/busy"), rules)
            strikes = (await slots.times("127.0.0.1:" + str(site.port))).strikes
            after = await fetcher.fetch(site.url("/busy"), rules)
            return first, busy, strikes, after

    first, busy, strikes, after = asyncio.run(run())

    assert all(result.status == 200 for result in first) and busy.status == 429
    assert strikes == 1 and after.status == 200
    assert slots.clears == 1
    assert asyncio.run(slots.times("127.0.0.1:" + str(site.port))).strikes == 0


def test_a_request_longer_than_the_lease_keeps_its_slot_and_a_short_one_never_renews():
    """The lease of a slot held past a third of it is renewed until the request ends, so
    another worker never takes the host meanwhile; a short request never renews it."""
    from crawler.fetch.politeness import HostGate, SystemClock
    from crawler.fetch.slots import MemorySlots

    class Counting(MemorySlots):
        renewals = 0

        async def renew(self, key: str, token: str, lease: float) -> bool:
            Counting.renewals += 1
            return await super().renew(key, token, lease)

    slots = Counting()
    mine, theirs = HostGate(SystemClock(), slots, lease=0.3), HostGate(SystemClock(), slots)

    async def run() -> tuple[bool, bool]:
        async with mine.slot("host", 0.0, 5.0):
            pass
        short = Counting.renewals
        async with mine.slot("host", 0.0, 5.0):
            await asyncio.sleep(0.6)  # twice the lease
            taken, _ = await theirs.slots.claim("host", "another worker", 0.3)
        return short == 0, taken

    short_never_renews, taken_meanwhile = asyncio.run(run())
    assert short_never_renews and not taken_meanwhile and Counting.renewals >= 2
