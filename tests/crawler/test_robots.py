"""robots.txt per RFC 9309: matching rules, status handling, size cap, cache."""

from __future__ import annotations

import asyncio

import pytest

from crawler.fetch import Fetcher, FetchPolicy, SiteRules
from tests.crawler.servers import FakeClock, Response, SiteServer

RULES = SiteRules(crawl_delay=0, allow_private_network=True)
PAGE = "<html><body><p>page</p></body></html>"

ROBOTS = """\
# A comment
User-agent: *
Disallow: /shop
Allow: /shop/public
Allow: /page
Disallow: /page
Disallow: /*.pdf$
Disallow: /private*/secret
Disallow: /tmp/

User-agent: OtherBot
Disallow: /

Sitemap: http://example.com/sitemap.xml
Sitemap: http://example.com/news-sitemap.xml
"""


@pytest.fixture
def site():
    with SiteServer() as server:
        yield server


def robots_for(url, *, clock=None, policy=None):
    async def run():
        async with Fetcher(policy or FetchPolicy(), clock=clock) as fetcher:
            return await fetcher.robots(url, RULES)

    return asyncio.run(run())


@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        ("/shop", False),  # Disallow: /shop
        ("/shop/cart", False),
        ("/shop/public/offers", True),  # the longer Allow wins
        ("/page", True),  # Allow and Disallow of equal length: Allow wins
        ("/report.pdf", False),  # * and $
        ("/report.pdf?download=1", True),  # $ anchors the end
        ("/report.pdfx", True),
        ("/private-area/secret", False),  # * inside a path
        ("/private/open", True),
        ("/tmp", True),  # /tmp/ does not match /tmp
        ("/tmp/x", False),
        ("/", True),
    ],
)
def test_robots_rules_follow_rfc_9309_matching(site, path, allowed):
    site.robots(ROBOTS)

    rules = robots_for(site.url("/"))

    assert rules.allows(site.url(path)) is allowed


def test_a_byte_order_mark_does_not_hide_the_first_group(site):
    site.route(
        "/robots.txt",
        Response(
            "\ufeffUser-agent: *\r\nDisallow: /private\r\n".encode(),
            headers={"Content-Type": "text/plain; charset=utf-8"},
        ),
    )

    rules = robots_for(site.url("/"))

    assert not rules.allows(site.url("/private/x"))
    assert rules.allows(site.url("/public"))


def test_the_most_specific_user_agent_group_applies(site):
    site.robots("User-agent: *\nDisallow: /\n\nUser-agent: WebclipBot\nDisallow: /nobots\n")

    rules = robots_for(site.url("/"))

    assert rules.allows(site.url("/news"))
    assert not rules.allows(site.url("/nobots/x"))


def test_sitemaps_and_crawl_delay_are_exposed(site):
    site.robots(ROBOTS + "\nUser-agent: WebclipBot\nCrawl-delay: 4\nDisallow: /x\n")

    rules = robots_for(site.url("/"))

    assert rules.sitemaps == (
        "http://example.com/sitemap.xml",
        "http://example.com/news-sitemap.xml",
    )
    assert rules.crawl_delay == 4.0


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410])
def test_a_4xx_robots_txt_allows_everything(site, status):
    site.robots("User-agent: *\nDisallow: /\n", status=status)

    rules = robots_for(site.url("/"))

    assert rules.allows(site.url("/anything"))
    assert rules.unreachable == ""


@pytest.mark.parametrize("status", [500, 502, 503, 429])
def test_a_5xx_or_429_robots_txt_disallows_everything(site, status):
    site.robots("", status=status)

    rules = robots_for(site.url("/"), policy=FetchPolicy(retries=0))

    assert not rules.allows(site.url("/"))
    assert str(status) in rules.unreachable


@pytest.mark.parametrize("status", [500, 503, 429])
def test_pages_wait_while_robots_txt_is_unreachable_and_are_never_requested(site, status):
    site.robots("", status=status)
    site.html("/page", PAGE)
    policy = FetchPolicy(retries=0, robots_error_ttl=600)

    async def run():
        async with Fetcher(policy, clock=FakeClock()) as fetcher:
            return await fetcher.fetch(site.url("/page"), RULES)

    result = asyncio.run(run())

    assert result.error.kind == "backoff"
    assert f"HTTP {status}" in result.error.message
    assert result.error.retry_after == 600  # until robots.txt is asked again
    assert site.paths() == ["/robots.txt"]


def test_a_robots_txt_that_times_out_disallows_everything(site):
    site.route("/robots.txt", site.never_answers)
    quick = FetchPolicy(read_timeout=0.5, total_timeout=1.0, retries=0)

    rules = robots_for(site.url("/"), policy=quick)

    assert not rules.allows(site.url("/page"))
    assert rules.error_kind == "timeout"


def test_only_the_first_500_kib_of_robots_txt_is_parsed(site):
    padding = "# padding to push the next rule past 500 KiB\n" * 12_000
    assert len(padding) > 500 * 1024
    site.robots("User-agent: *\nDisallow: /early\n" + padding + "Disallow: /late\n")

    rules = robots_for(site.url("/"))

    assert not rules.allows(site.url("/early"))
    assert rules.allows(site.url("/late"))


def test_a_redirected_robots_txt_is_followed(site):
    site.redirect("/robots.txt", "/real-robots.txt", 301)
    site.route(
        "/real-robots.txt",
        Response("User-agent: *\nDisallow: /x\n", headers={"Content-Type": "text/plain"}),
    )

    rules = robots_for(site.url("/"))

    assert not rules.allows(site.url("/x"))
    assert rules.allows(site.url("/y"))


def test_a_disallowed_page_is_never_requested(site):
    site.robots("User-agent: *\nDisallow: /secret\n")
    site.html("/secret", PAGE)

    async def run():
        async with Fetcher() as fetcher:
            return await fetcher.fetch(site.url("/secret"), RULES)

    result = asyncio.run(run())

    assert result.error.kind == "robots"
    assert site.paths() == ["/robots.txt"]


def test_a_redirect_into_a_disallowed_path_is_refused_at_that_hop(site):
    site.robots("User-agent: *\nDisallow: /secret\n")
    site.redirect("/open", "/secret/page")
    site.html("/secret/page", PAGE)

    async def run():
        async with Fetcher() as fetcher:
            return await fetcher.fetch(site.url("/open"), RULES)

    result = asyncio.run(run())

    assert result.error.kind == "robots"
    assert result.final_url == site.url("/secret/page")
    assert "/secret/page" not in site.paths()


def test_robots_txt_is_skipped_when_the_site_does_not_obey_it(site):
    site.robots("User-agent: *\nDisallow: /\n")
    site.html("/", PAGE)
    rules = SiteRules(crawl_delay=0, obey_robots=False, allow_private_network=True)

    async def run():
        async with Fetcher() as fetcher:
            return await fetcher.fetch(site.url("/"), rules)

    result = asyncio.run(run())

    assert result.error is None
    assert site.paths() == ["/"]


def test_robots_txt_is_cached_for_at_most_24_hours(site):
    site.robots("User-agent: *\nDisallow: /x\n")
    for n in range(3):
        site.html(f"/p{n}", PAGE)
    clock = FakeClock()

    async def run():
        async with Fetcher(clock=clock) as fetcher:
            for n in range(3):
                await fetcher.fetch(site.url(f"/p{n}"), RULES)
            clock.now += 24 * 3600 - 1
            await fetcher.fetch(site.url("/p0"), RULES)
            clock.now += 2
            await fetcher.fetch(site.url("/p1"), RULES)

    asyncio.run(run())

    assert site.paths().count("/robots.txt") == 2


def test_an_unreachable_robots_txt_is_asked_again_sooner(site):
    site.robots("", status=503)
    clock = FakeClock()
    policy = FetchPolicy(retries=0, robots_error_ttl=600)

    async def run():
        async with Fetcher(policy, clock=clock) as fetcher:
            first = await fetcher.robots(site.url("/"), RULES)
            clock.now += 3600  # past any 503 backoff as well
            site.robots("User-agent: *\nDisallow:\n")
            second = await fetcher.robots(site.url("/"), RULES)
            return first, second

    first, second = asyncio.run(run())

    assert not first.allows(site.url("/a"))
    assert second.allows(site.url("/a"))


def test_each_origin_has_its_own_robots_txt():
    with SiteServer() as one, SiteServer() as two:
        one.robots("User-agent: *\nDisallow: /\n")
        two.robots("User-agent: *\nAllow: /\n")

        assert not robots_for(one.url("/")).allows(one.url("/a"))
        assert robots_for(two.url("/")).allows(two.url("/a"))
