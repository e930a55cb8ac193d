"""Rendering opens no TCP connection the fetcher would refuse, whatever the page tries.

The browser tests render real pages in the process's Chromium through the crawler's render
path (`tests/crawler/egress_probe.py`) and count the connections plain TCP listeners accept on
127.0.0.2, 127.0.0.3 and other ports of 127.0.0.1, for a site allowed private addresses on
its own origin only. The proxy tests speak HTTP to the egress proxy itself.
"""

from __future__ import annotations

import asyncio

import pytest

from crawler.fetch import FetchPolicy, SiteRules
from crawler.fetch.result import ErrorKind
from crawler.render import HOST, Renderer
from crawler.render.egress import EgressProxy, site_proxy
from tests.crawler.egress_probe import (
    NAVIGATIONS,
    OWN_MARKER,
    SUBRESOURCES,
    VECTORS,
    EgressReport,
    run_egress_probe,
)
from tests.crawler.servers import SiteServer

POLICY = FetchPolicy(render_timeout=15.0, render_settle=1.5, connect_timeout=2.0)


def own_origin(site: SiteServer) -> SiteRules:
    """Return the rules of a site allowed private addresses on its own origin only."""
    return SiteRules(
        crawl_delay=0, obey_robots=False, allow_private_network=True, private_origins=(site.origin,)
    )


# --- Chromium, through the render path ---------------------------------------------------------


@pytest.fixture(scope="module")
def report() -> EgressReport:
    return run_egress_probe(Renderer(POLICY))


@pytest.mark.browser
@pytest.mark.parametrize("vector", VECTORS)
def test_no_way_out_of_a_page_connects_where_the_fetcher_would_refuse(report, vector):
    assert report.connections[vector]
    assert report.connections[vector] == dict.fromkeys(report.connections[vector], 0)


@pytest.mark.browser
@pytest.mark.parametrize("vector", VECTORS)
def test_the_sites_own_script_and_data_still_load_on_every_probe_page(report, vector):
    assert report.own_loaded(vector)


@pytest.mark.browser
@pytest.mark.parametrize("vector", SUBRESOURCES)
def test_a_page_with_blocked_requests_still_renders_with_its_own_data(report, vector):
    [result] = report.results[vector]
    assert result.error is None, result.error
    assert OWN_MARKER in result.html


@pytest.mark.browser
@pytest.mark.parametrize("vector", NAVIGATIONS)
def test_a_page_that_leaves_for_a_refused_address_is_refused_not_stored_as_an_error_page(
    report, vector
):
    for result in report.results[vector]:
        assert result.error is not None and result.error.kind == ErrorKind.SSRF, result.error
        assert "chromewebdata" not in result.html


@pytest.mark.browser
def test_what_escapes_the_route_handler_meets_the_proxy_and_is_refused_there(report):
    # A dedicated worker's WebSocket passes by Playwright's routes: the proxy refuses it.
    [result] = report.results["worker-websocket"]
    proxied = {
        r.url: r.refused.split(":")[0] for r in result.requests if r.resource_type == "connection"
    }
    assert proxied == dict.fromkeys(report.connections["worker-websocket"], "ssrf")


@pytest.mark.browser
def test_a_context_that_names_no_site_reaches_no_private_address():
    async def visit(url: str) -> str:
        browser = await HOST.browser(POLICY)
        context = await browser.new_context()
        try:
            page = await context.new_page()
            try:
                await page.goto(url, timeout=5_000)
            except Exception as exc:  # noqa: BLE001 - the refusal shows as a navigation error
                return type(exc).__name__
            return await page.content()
        finally:
            await context.close()

    with SiteServer() as site:
        site.html("/", "<p>secret</p>")
        seen = HOST.submit(visit(site.url("/"))).result()
        assert "secret" not in seen
        assert site.connections == 0


# --- The proxy itself --------------------------------------------------------------------------


class Client:
    """Speak HTTP/1.1 to an egress proxy, one connection a request."""

    def __init__(self, proxy: EgressProxy) -> None:
        self.port = int(proxy.server.rsplit(":", 1)[1])
        self.writers: list[asyncio.StreamWriter] = []

    async def ask(self, request: str) -> tuple[int, bytes]:
        """Send `request`; return the answer's status and body (by its Content-Length)."""
        reader, writer = await self.open(request)
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        length = next(
            (
                int(v)
                for k, _, v in (h.partition(":") for h in lines)
                if k.lower() == "content-length"
            ),
            0,
        )
        return int(lines[0].split(" ")[1]), await reader.readexactly(length)

    async def open(self, request: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """Send `request` on a new connection and return it, unread."""
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.writers.append(writer)
        writer.write(request.encode())
        await writer.drain()
        return reader, writer

    def close(self) -> None:
        for writer in self.writers:
            writer.close()


def through_proxy(rules: SiteRules, hosts, steps, *, resolver=None):
    """Run `steps(client)` against a proxy for one site; return its answer and the refusals."""

    async def run():
        options = {"resolver": resolver} if resolver else {}
        async with site_proxy(POLICY, rules, hosts, **options) as proxy:
            client = Client(proxy)
            try:
                return await steps(client), proxy.refusals
            finally:
                client.close()

    return asyncio.run(run())


def authority(server: SiteServer) -> str:
    return server.origin.split("://", 1)[1]


def get(url: str, host: str) -> str:
    return f"GET {url} HTTP/1.1\r\nHost: {host}\r\n\r\n"


def connect(authority: str) -> str:
    return f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n"


def test_the_proxy_forwards_a_request_to_the_sites_own_origin():
    with SiteServer() as site:
        site.html("/page", "<p>our page</p>")

        async def steps(client):
            return await client.ask(get(site.url("/page"), authority(site)))

        answer, refusals = through_proxy(own_origin(site), ["127.0.0.1"], steps)
        assert answer == (200, b"<p>our page</p>")
        assert site.paths() == ["/page"] and refusals == []


def test_the_proxy_refuses_another_port_of_the_same_address_without_connecting():
    with SiteServer() as site, SiteServer() as other:

        async def steps(client):
            plain = await client.ask(get(other.url("/"), authority(other)))
            tunnel = await client.ask(connect(authority(other)))
            return plain[0], tunnel[0]

        statuses, refusals = through_proxy(own_origin(site), ["127.0.0.1"], steps)
        assert statuses == (403, 403)
        assert other.connections == 0 and site.connections == 0
        assert [r.refused.split(":")[0] for r in refusals] == ["ssrf", "ssrf"]


def test_the_proxy_tunnels_to_the_sites_own_origin_and_nowhere_else():
    with SiteServer() as site, SiteServer("127.0.0.2") as inside:
        site.html("/", "<p>home</p>")

        async def steps(client):
            refused, _ = await client.ask(connect(authority(inside)))
            reader, writer = await client.open(connect(authority(site)))
            established = await reader.readuntil(b"\r\n\r\n")
            writer.write(
                f"GET / HTTP/1.1\r\nHost: {authority(site)}\r\nConnection: close\r\n\r\n".encode()
            )
            return refused, established, await reader.read()

        (refused, established, answer), _ = through_proxy(
            own_origin(site), ["127.0.0.1", "127.0.0.2"], steps
        )
        assert refused == 403 and inside.connections == 0
        assert established.startswith(b"HTTP/1.1 200 ")
        assert answer.startswith(b"HTTP/1.") and answer.endswith(b"<p>home</p>")


def test_the_proxy_refuses_a_name_that_resolves_to_a_refused_address():
    async def rebinding(host: str) -> list[str]:
        return ["127.0.0.2"]

    with SiteServer() as site, SiteServer("127.0.0.2") as inside:
        name = f"news.example:{inside.port}"

        async def steps(client):
            tunnel = await client.ask(connect(name))
            plain = await client.ask(get(f"http://{name}/", name))
            return tunnel[0], plain[0]

        statuses, refusals = through_proxy(
            own_origin(site), ["127.0.0.1", "news.example"], steps, resolver=rebinding
        )
        assert statuses == (403, 403) and inside.connections == 0
        assert len(refusals) == 2 and all("127.0.0.2" in r.refused for r in refusals)


def test_the_proxy_refuses_the_metadata_address_even_to_a_site_allowed_every_private_one():
    rules = SiteRules(crawl_delay=0, obey_robots=False, allow_private_network=True)

    async def steps(client):
        tunnel = await client.ask(connect("169.254.169.254:80"))
        plain = await client.ask(get("http://169.254.169.254/latest/", "169.254.169.254"))
        return tunnel[0], plain[0]

    statuses, refusals = through_proxy(rules, ["169.254.169.254"], steps)
    assert statuses == (403, 403)
    assert len(refusals) == 2 and all("metadata" in r.refused for r in refusals)


def test_the_proxy_refuses_hosts_off_the_site_as_the_relay_does():
    async def public(host: str) -> list[str]:
        return ["93.184.215.14"]

    async def steps(client):
        return await client.ask(connect("b.example:443"))

    (status, body), refusals = through_proxy(SiteRules(), ["a.example"], steps, resolver=public)
    assert status == 403 and body.startswith(b"offsite:")
    assert [r.url for r in refusals] == ["b.example:443"]
