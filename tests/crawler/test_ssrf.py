"""The SSRF guard: internal addresses are refused before any connection, per hop and per answer.

Listeners on 127.0.0.1, 127.0.0.2 and ::1 count their connections, so "refused" means the
socket was never opened. Each refusal has a positive control: with the address allowed, the
same URL does reach the listener, so the zero really is the guard's doing.
"""

from __future__ import annotations

import asyncio
import ipaddress

import pytest

from crawler.fetch import (
    Fetcher,
    FetchPolicy,
    SiteRules,
    address_refusal,
    host_refusal,
    vetted_addresses,
)
from crawler.fetch.ssrf import SSRFRefused
from tests.crawler.servers import SiteServer

PAGE = "<html><body><p>internal secrets</p></body></html>"
QUICK = FetchPolicy(connect_timeout=1.0, read_timeout=1.0, total_timeout=2.0, retries=0)
STRICT = SiteRules(crawl_delay=0, obey_robots=False, allow_private_network=False)
OPEN = SiteRules(crawl_delay=0, obey_robots=False, allow_private_network=True)


# --- The address table ------------------------------------------------------------------------

REFUSED_ADDRESSES = [
    "127.0.0.1",
    "127.255.255.254",
    "::1",
    "0.0.0.0",
    "0.1.2.3",
    "::",
    "10.0.0.1",
    "10.255.255.255",
    "172.16.0.1",
    "172.31.255.254",
    "192.168.0.1",
    "192.168.255.255",
    "169.254.169.254",  # cloud metadata
    "169.254.1.1",
    "100.64.0.1",  # carrier-grade NAT
    "100.127.255.254",
    "fc00::1",
    "fd12:3456:789a::1",
    "fd00:ec2::254",  # AWS IPv6 metadata
    "fe80::1",
    "febf::1",
    "fec0::1",  # site-local (deprecated, still not public)
    "224.0.0.1",  # multicast
    "239.255.255.250",
    "ff02::1",
    "240.0.0.1",  # reserved
    "255.255.255.255",
    "192.0.2.1",  # documentation
    "198.18.0.1",  # benchmarking
    "192.0.0.8",  # IETF protocol assignments (IPv4 dummy address)
    "192.0.0.170",  # NAT64 discovery
    "3fff::1",  # IPv6 documentation (RFC 9637)
    "2001:2::1",  # IPv6 benchmarking
    "::ffff:0:7f00:1",  # IPv4-translated form of 127.0.0.1
    "::ffff:127.0.0.1",  # IPv4-mapped
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "::127.0.0.1",  # IPv4-compatible
    "2002:7f00:1::1",  # 6to4 of 127.0.0.1
    "2002:a00:1::1",  # 6to4 of 10.0.0.1
    "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
    "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
    "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
    "64:ff9b:1::a00:1",  # local-use NAT64
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
    "2001:db8::1",  # documentation
]

PUBLIC_ADDRESSES = [
    "93.184.216.34",
    "8.8.8.8",
    "1.1.1.1",
    "100.128.0.1",  # just past 100.64/10
    "172.32.0.1",  # just past 172.16/12
    "2606:4700::1111",
    "2002:5db8:d822::1",  # 6to4 of a public address
    "64:ff9b::808:808",  # NAT64 of 8.8.8.8
    "::ffff:8.8.8.8",
]


@pytest.mark.parametrize("address", REFUSED_ADDRESSES)
def test_internal_addresses_are_refused(address):
    reason = address_refusal(ipaddress.ip_address(address))

    assert reason, f"{address} should be refused"


@pytest.mark.parametrize("address", PUBLIC_ADDRESSES)
def test_public_addresses_are_allowed(address):
    assert address_refusal(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    "host", ["2130706433", "0x7f.1", "0177.0.0.1", "127.1", "0x7f000001", "017700000001", "10.1"]
)
def test_odd_numeric_spellings_are_refused_before_any_lookup(host):
    assert "odd numeric" in host_refusal(host)


@pytest.mark.parametrize("host", ["example.com", "0x.example.com", "123.example", "deadbeef"])
def test_names_go_on_to_the_resolver(host):
    assert host_refusal(host) is None


# --- Direct requests never reach the listener --------------------------------------------------


def fetch(url, rules, *, resolver=None, policy=QUICK):
    async def run():
        async with Fetcher(policy, resolver=resolver) as fetcher:
            return await fetcher.fetch(url, rules)

    return asyncio.run(run())


@pytest.fixture
def listener():
    with SiteServer("127.0.0.1") as server:
        server.html("/", PAGE)
        yield server


@pytest.fixture
def listener6():
    with SiteServer("::1") as server:
        server.html("/", PAGE)
        yield server


LOOPBACK_SPELLINGS = [
    "127.0.0.1",
    "localhost",
    "0.0.0.0",
    "2130706433",
    "0x7f.1",
    "0177.0.0.1",
    "127.1",
    "0x7f.0.0.1",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "①②⑦.⓪.⓪.①",  # IDNA folds these to 127.0.0.1, an IP literal no resolver sees
    "127。0。0。1",
    "１２７.０.０.１",
]


@pytest.mark.parametrize("host", LOOPBACK_SPELLINGS)
def test_loopback_in_any_spelling_is_refused_and_never_connected(listener, host):
    result = fetch(f"http://{host}:{listener.port}/", STRICT)

    assert result.error is not None and result.error.kind == "ssrf", result.error
    assert listener.connections == 0


@pytest.mark.parametrize(
    "host",
    [h for h in LOOPBACK_SPELLINGS if not h.isdigit() and h != "0177.0.0.1" and h != "127.1"],
)
def test_the_same_spellings_connect_when_private_networks_are_allowed(listener, host):
    result = fetch(f"http://{host}:{listener.port}/", OPEN)

    assert result.error is None, result.error
    assert listener.connections >= 1


@pytest.mark.parametrize("host", ["2130706433", "0177.0.0.1", "127.1"])
def test_numeric_spellings_the_http_library_rejects_stay_unreachable(listener, host):
    # yarl refuses non-canonical numeric IPv4 hosts even when private networks are allowed.
    result = fetch(f"http://{host}:{listener.port}/", OPEN)

    assert result.error.kind == "url"
    assert listener.connections == 0


def test_ipv6_loopback_is_refused_and_never_connected(listener6):
    refused = fetch(f"http://[::1]:{listener6.port}/", STRICT)
    assert refused.error.kind == "ssrf"
    assert listener6.connections == 0

    allowed = fetch(f"http://[::1]:{listener6.port}/", OPEN)
    assert allowed.error is None and listener6.connections == 1


@pytest.mark.parametrize(
    "address",
    [
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "[fc00::1]",
        "[fe80::1]",
        "[fd00:ec2::254]",
        "0.0.0.0",
        "[::]",
    ],
)
def test_private_literals_are_refused_without_a_lookup_or_a_connection(address):
    asked = []

    async def resolver(host):
        asked.append(host)
        return ["93.184.216.34"]

    result = fetch(f"http://{address}/latest/meta-data/", STRICT, resolver=resolver)

    assert result.error.kind == "ssrf"
    assert asked == []


@pytest.mark.parametrize(
    "answer",
    [
        ["10.0.0.1"],
        ["172.16.0.1"],
        ["192.168.0.1"],
        ["169.254.169.254"],
        ["100.64.0.1"],
        ["fc00::1"],
        ["fe80::1"],
        ["::ffff:127.0.0.1"],
        ["127.0.0.1"],
        ["::1"],
    ],
)
def test_names_resolving_to_internal_addresses_are_refused(listener, answer):
    async def resolver(host):
        return answer

    result = fetch(f"http://intranet.test:{listener.port}/", STRICT, resolver=resolver)

    assert result.error.kind == "ssrf"
    assert str(ipaddress.ip_address(answer[0])) in result.error.message
    assert listener.connections == 0


@pytest.mark.parametrize("answer", [["93.184.216.34", "127.0.0.1"], ["127.0.0.1", "93.184.216.34"]])
def test_a_dns_answer_mixing_public_and_private_addresses_is_refused(listener, answer):
    async def resolver(host):
        return answer

    result = fetch(f"http://rebind.test:{listener.port}/", STRICT, resolver=resolver)

    assert result.error.kind == "ssrf"
    assert listener.connections == 0


def test_a_resolver_answering_public_then_private_is_asked_once_and_never_reaches_inside(
    listener,
):
    answers = [["93.184.216.34"], ["127.0.0.1"]]
    asked = []

    async def rebinding(host):
        asked.append(host)
        return answers[min(len(asked), 2) - 1]

    result = fetch(f"http://rebind.test:{listener.port}/", STRICT, resolver=rebinding)

    # The vetted public address is where the connection went (unreachable offline); the
    # second, private answer is never asked for.
    assert result.error.kind in {"connection", "timeout"}
    assert asked == ["rebind.test"]
    assert listener.connections == 0


def test_the_resolver_is_the_one_that_picks_the_connected_address(listener):
    async def resolver(host):
        return ["127.0.0.1"]

    result = fetch(f"http://anything.test:{listener.port}/", OPEN, resolver=resolver)

    assert result.error is None and listener.connections == 1
    assert listener.requests[0].headers["host"] == f"anything.test:{listener.port}"


# --- Redirects are vetted hop by hop ------------------------------------------------------------


@pytest.fixture
def inside():
    """A listener on 127.0.0.2 standing for the internal network."""
    with SiteServer("127.0.0.2") as server:
        server.html("/", PAGE)
        server.html("/latest/meta-data/", PAGE)
        yield server


# The outside server (127.0.0.1) is this test's stand-in for the public web.
PUBLIC_STAND_IN = SiteRules(crawl_delay=0, obey_robots=False, allowed_networks=("127.0.0.1/32",))


def redirect_targets(port):
    return [
        f"http://127.0.0.2:{port}/",
        f"http://2130706434:{port}/",  # 127.0.0.2
        f"http://0x7f.0.0.2:{port}/",
        f"http://0177.0.0.2:{port}/",
        f"http://127.0.2:{port}/",
        f"http://[::ffff:127.0.0.2]:{port}/",
        f"http://internal.test:{port}/",
        f"http://169.254.169.254:{port}/latest/meta-data/",
        f"http://10.0.0.1:{port}/",
        f"http://[::1]:{port}/",
        f"http://localhost:{port}/",
    ]


async def stand_in_resolver(host):
    return {"internal.test": ["127.0.0.2"], "localhost": ["127.0.0.1", "::1"]}.get(
        host, ["127.0.0.1"]
    )


@pytest.mark.parametrize("index", range(11))
def test_a_redirect_to_an_internal_address_is_refused_at_that_hop(listener, inside, index):
    target = redirect_targets(inside.port)[index]
    listener.redirect("/go", target)

    result = fetch(listener.url("/go"), PUBLIC_STAND_IN, resolver=stand_in_resolver)

    assert result.error.kind == "ssrf", result.error
    assert result.final_url == target
    assert result.redirects == [listener.url("/go")]
    assert listener.paths() == ["/go"]
    assert inside.connections == 0


def test_a_redirect_inside_is_followed_when_that_network_is_allowed(listener, inside):
    listener.redirect("/go", f"http://internal.test:{inside.port}/")
    rules = SiteRules(
        crawl_delay=0, obey_robots=False, allowed_networks=("127.0.0.1/32", "127.0.0.2/32")
    )

    result = fetch(listener.url("/go"), rules, resolver=stand_in_resolver)

    assert result.error is None
    assert inside.connections == 1


def test_robots_txt_goes_through_the_same_guard(listener):
    async def resolver(host):
        return ["127.0.0.1"]

    rules = SiteRules(crawl_delay=0, obey_robots=True, allow_private_network=False)
    result = fetch(f"http://intranet.test:{listener.port}/", rules, resolver=resolver)

    assert result.error.kind == "ssrf"
    assert listener.connections == 0


def test_vetted_addresses_returns_every_address_of_a_public_answer():
    async def resolver(host):
        return ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]

    addresses = asyncio.run(vetted_addresses("example.com", resolver, allow_private=False))

    assert [str(a) for a in addresses] == ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]


def test_vetted_addresses_raises_a_typed_refusal():
    async def resolver(host):
        return ["10.0.0.1"]

    with pytest.raises(SSRFRefused, match="10.0.0.1"):
        asyncio.run(vetted_addresses("intranet.example", resolver, allow_private=False))


@pytest.mark.parametrize(
    "host",
    ["169.254.169.254", "169.254.1.1", "[fe80::1]", "[::ffff:169.254.169.254]", "0xa9fea9fe"],
)
def test_metadata_and_link_local_hosts_are_refused_even_where_private_ones_are_allowed(host):
    assert host_refusal(host, ("169.254.0.0/16", "fe80::/10"), allow_private=True)
    assert host_refusal("127.0.0.1", allow_private=True) is None  # the flag's own reach


def test_vetted_addresses_refuse_a_metadata_answer_whatever_the_flag():
    async def resolver(host):
        return ["10.0.0.1", "169.254.169.254"]

    with pytest.raises(SSRFRefused, match="cloud metadata"):
        asyncio.run(vetted_addresses("meta.example", resolver, allow_private=True))
