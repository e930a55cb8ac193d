"""The private-network exemption covers a site's own origins, never metadata or link-local.

A flagged site lives on one 127.0.0.1 listener; a second listener on another port of the same
host and a third on 127.0.0.2 stand for the rest of the private network. They count their
connections, so "refused" means the socket was never opened.
"""

from __future__ import annotations

import asyncio

import pytest

from crawler.fetch import Fetcher, FetchPolicy, SiteRules, check_url
from crawler.fetch.ssrf import system_resolve
from crawler.models import Site
from crawler.render.relay import Refused, Relay
from tests.crawler.servers import SiteServer

PAGE = "<html><body><p>internal secrets</p></body></html>"
QUICK = FetchPolicy(connect_timeout=1.0, read_timeout=1.0, total_timeout=2.0, retries=0)
OPEN = SiteRules(crawl_delay=0, obey_robots=False, allow_private_network=True)


def fetch(url, rules, *, resolver=None):
    async def run():
        async with Fetcher(QUICK, resolver=resolver) as fetcher:
            return await fetcher.fetch(url, rules)

    return asyncio.run(run())


def rules_of(server, **fields) -> SiteRules:
    site = Site(root_url=server.url("/"), allow_private_network=True, crawl_delay=0, **fields)
    return SiteRules.of(site)


@pytest.fixture
def site():
    with SiteServer("127.0.0.1") as server:
        server.html("/", PAGE)
        server.robots("User-agent: *\nAllow: /\n")
        yield server


@pytest.fixture
def other_port():
    with SiteServer("127.0.0.1") as server:
        server.html("/", PAGE)
        yield server


@pytest.fixture
def other_host():
    with SiteServer("127.0.0.2") as server:
        server.html("/", PAGE)
        yield server


def test_a_flagged_site_reaches_its_own_origin(site):
    result = fetch(site.url("/"), rules_of(site))

    assert result.error is None and result.status == 200
    assert site.paths() == ["/robots.txt", "/"]


def test_a_flagged_site_may_not_reach_another_port_of_its_host(site, other_port):
    result = fetch(other_port.url("/"), rules_of(site))

    assert result.error.kind == "ssrf", result.error
    assert other_port.connections == 0


def test_a_seed_on_another_port_is_one_of_the_sites_origins(site, other_port):
    result = fetch(other_port.url("/"), rules_of(site, seed_urls=other_port.url("/")))

    assert result.error is None and other_port.connections >= 1


@pytest.mark.parametrize("where", ["other_port", "other_host"])
def test_a_redirect_leaving_the_sites_origin_is_judged_without_the_flag(
    site, other_port, other_host, where
):
    target = {"other_port": other_port, "other_host": other_host}[where]
    site.redirect("/go", target.url("/"))

    result = fetch(site.url("/go"), rules_of(site))

    assert result.error.kind == "ssrf", result.error
    assert result.final_url == target.url("/")
    assert result.redirects == [site.url("/go")]
    assert target.connections == 0


def test_a_redirect_within_the_sites_origin_is_followed(site):
    site.redirect("/go", "/")

    result = fetch(site.url("/go"), rules_of(site))

    assert result.error is None and result.final_url == site.url("/")


def test_rules_without_origins_exempt_only_the_origin_a_fetch_starts_from(site, other_port):
    site.redirect("/go", other_port.url("/"))

    assert fetch(other_port.url("/"), OPEN).error is None  # positive control
    connected = other_port.connections
    result = fetch(site.url("/go"), OPEN)

    assert result.error.kind == "ssrf", result.error
    assert other_port.connections == connected


# --- Metadata and link-local: refused whatever the flag says, before any connection ----------

NEVER = [
    "http://169.254.169.254/latest/meta-data/",
    "http://169.254.1.1/",
    "http://[fe80::1]/",
    "http://[::ffff:169.254.169.254]/",
    "http://[fd00:ec2::254]/",
    "http://0xa9fea9fe/",  # 169.254.169.254 spelled as one hex number
    "http://0251.0376.0251.0376/",  # and in octal
]


@pytest.mark.parametrize("url", NEVER)
def test_metadata_and_link_local_urls_are_refused_with_the_flag_on(url):
    site = Site(root_url=url, seed_urls="", allow_private_network=True, crawl_delay=0)
    rules = SiteRules.of(site)
    asked: list[str] = []

    async def resolver(host):
        asked.append(host)
        raise AssertionError("the guard must refuse before resolving")

    assert rules.exempts(url)  # the URL is the site's own origin, and still:
    assert check_url(url, rules).kind == "ssrf"
    result = fetch(url, rules, resolver=resolver)
    assert result.error.kind == "ssrf", result.error
    assert asked == []


def test_a_name_resolving_to_the_metadata_address_is_refused_with_the_flag_on():
    rules = SiteRules(
        crawl_delay=0,
        obey_robots=False,
        allow_private_network=True,
        allowed_networks=("169.254.0.0/16",),
    )

    async def resolver(host):
        return ["169.254.169.254"]

    result = fetch("http://metadata.test/latest/meta-data/", rules, resolver=resolver)

    assert result.error.kind == "ssrf"
    assert "cloud metadata" in result.error.message


# --- The render relay consults the same rules --------------------------------------------------


def test_the_relay_refuses_another_port_though_the_host_list_names_only_the_host(site, other_port):
    async def run():
        relay = Relay(QUICK, system_resolve, rules_of(site), ["127.0.0.1"])
        try:
            assert relay.refusal(site.url("/")) is None
            assert relay.refusal(other_port.url("/")).kind == "ssrf"
            site.redirect("/go", other_port.url("/"))
            with pytest.raises(Refused) as refused:
                await relay.exchange("GET", site.url("/go"), {}, None, follow=True)
            return refused.value.error
        finally:
            await relay.close()

    error = asyncio.run(run())

    assert error.kind == "ssrf"
    assert other_port.connections == 0
