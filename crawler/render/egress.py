"""The browser's one way out: an HTTP proxy on 127.0.0.1 that judges every connection.

Route interception sees requests, not sockets: Chromium preconnects for a navigation or an
iframe, and workers and WebSockets escape interception, before any handler can refuse them.
So Chromium is launched (`crawler.render.host`) with every connection sent to a proxy of
ours, loopback included, and with a host resolver that answers no name but the proxy's, and
each browser context gets its own proxy port judging targets by its site's rules:

- a plain HTTP request is made by the context's `Relay` (the fetcher's checks, the vetting
  resolver, the body cap), redirects left to the browser so that each hop is judged again;
- a CONNECT (https, ws and wss) is judged like a URL on that host and port, its host is
  resolved once and vetted (`crawler.fetch.ssrf.vetted_addresses`), and the tunnel is made
  to the vetted address;
- anything refused is answered 403 without a connection being opened.

Requests the context's route handler fulfils never reach the proxy; it is the backstop.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from http import HTTPStatus
from types import TracebackType

from playwright.async_api import ProxySettings

from crawler.fetch.policy import FetchPolicy, SiteRules
from crawler.fetch.result import ErrorKind, FetchError, PageRequest
from crawler.fetch.ssrf import (
    IPAddress,
    Resolver,
    SSRFRefused,
    system_resolve,
    vetted_addresses,
)
from crawler.render.relay import Answer, Refused, Relay

PROXY_HOST = "127.0.0.1"
_HEAD_LIMIT = 64 * 1024  # request line and headers
_IDLE = 60.0  # seconds a kept-alive browser connection may wait for its next request
# Hop-by-hop headers of the browser's connection to us, never passed on.
_HOP_BY_HOP = {
    "proxy-connection",
    "proxy-authorization",
    "connection",
    "keep-alive",
    "te",
    "trailer",
    "upgrade",
}
_REFUSALS = frozenset({ErrorKind.SSRF, ErrorKind.OFFSITE, ErrorKind.URL})


class _BadRequest(Exception):
    pass


class EgressProxy:
    """One browser context's proxy; `async with` it around the context's life.

    `refusals` lists every target refused, as page requests of type "connection".
    """

    def __init__(self, relay: Relay) -> None:
        self.relay = relay
        self.refusals: list[PageRequest] = []
        self._server: asyncio.Server | None = None
        self._browser_sides: set[asyncio.StreamWriter] = set()

    async def __aenter__(self) -> EgressProxy:
        return await self.start()

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def start(self) -> EgressProxy:
        """Listen on a free port of 127.0.0.1."""
        self._server = await asyncio.start_server(self._serve, PROXY_HOST, 0, limit=_HEAD_LIMIT)
        return self

    @property
    def server(self) -> str:
        """Return the proxy's URL, as Chromium's --proxy-server takes it."""
        if self._server is None:
            raise RuntimeError("the egress proxy is not started")
        return f"http://{PROXY_HOST}:{self._server.sockets[0].getsockname()[1]}"

    @property
    def settings(self) -> ProxySettings:
        """Return Playwright's proxy option for a browser context using this proxy."""
        # Playwright adds "<-loopback>" to the context's bypass list: loopback is proxied too.
        return {"server": self.server}

    async def close(self) -> None:
        """Stop listening and cut every connection and tunnel still open."""
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        # Cut the browser's side: each handler then ends on its own, closing its upstream
        # (cancelling the handlers instead makes Python 3.11's streams log each one).
        for writer in list(self._browser_sides):
            writer.transport.abort()
        await server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._browser_sides.add(writer)
        try:
            while await self._one(reader, writer):
                pass
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass
        finally:
            self._browser_sides.discard(writer)
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Serve one request from the browser; tell whether the connection stays open."""
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _IDLE)
        except (asyncio.IncompleteReadError, TimeoutError):
            return False
        except asyncio.LimitOverrunError:
            await _reply(writer, 431, "request head too large")
            return False
        try:
            method, target, headers = _parse_head(head)
        except _BadRequest as exc:
            await _reply(writer, 400, str(exc))
            return False
        if method == "CONNECT":
            await self._tunnel(target, reader, writer)
            return False
        return await self._forward(method, target, headers, reader, writer)

    async def _forward(
        self,
        method: str,
        url: str,
        headers: dict[str, str],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        if not url.lower().startswith(("http://", "https://")):
            await _reply(writer, 400, "a proxy request needs an absolute http URL")
            return False
        refused = self.relay.refusal(url)
        if refused is not None:
            await self._refuse(writer, url, refused)
            return False
        if "transfer-encoding" in headers:
            await _reply(writer, 501, "chunked request bodies are not relayed")
            return False
        length = headers.get("content-length", "0").strip() or "0"
        if not length.isdigit() or int(length) > self.relay.policy.max_body_bytes:
            await _reply(writer, 413, "request body too large or its length unreadable")
            return False
        body = await reader.readexactly(int(length)) if int(length) else None
        sent = {k: v for k, v in headers.items() if k not in _HOP_BY_HOP}
        try:
            answer = await self.relay.exchange(method, url, sent, body, follow=False)
        except Refused as exc:
            if exc.error.kind in _REFUSALS:
                await self._refuse(writer, url, exc.error)
            else:
                status = 504 if exc.error.kind == ErrorKind.TIMEOUT else 502
                await _reply(writer, status, str(exc.error))
            return False
        await _write_answer(writer, method, answer)
        return True

    async def _tunnel(
        self, authority: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            host, port = _split_authority(authority)
        except _BadRequest as exc:
            await _reply(writer, 400, str(exc))
            return
        shown = f"{host}:{port}"
        # The tunnel may carry https, wss or ws: it passes if one spelling of the target does.
        spellings = (f"https://{shown}/", f"http://{shown}/")
        refusals = [self.relay.refusal(url) for url in spellings]
        passing = [url for url, refused in zip(spellings, refusals, strict=True) if not refused]
        if not passing:
            await self._refuse(writer, shown, refusals[0] or FetchError(ErrorKind.URL, shown))
            return
        rules = self.relay.rules
        try:
            addresses = await vetted_addresses(
                host.strip("[]"),
                self.relay.resolver,
                allow_private=any(rules.exempts(url) for url in passing),
                allowed=rules.allowed_networks,
            )
        except SSRFRefused as exc:
            await self._refuse(writer, shown, FetchError(ErrorKind.SSRF, str(exc)))
            return
        except (OSError, ValueError) as exc:
            await _reply(writer, 502, f"{shown}: {exc}")
            return
        upstream = await self._connect(addresses, port)
        if upstream is None:
            await _reply(writer, 502, f"{shown}: no connection")
            return
        up_reader, up_writer = upstream
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()
        await _splice(reader, writer, up_reader, up_writer)

    async def _connect(
        self, addresses: list[IPAddress], port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        """Connect to the first vetted address that answers."""
        for ip in addresses:
            try:
                return await asyncio.wait_for(
                    asyncio.open_connection(str(ip), port), self.relay.policy.connect_timeout
                )
            except (OSError, TimeoutError):
                continue
        return None

    async def _refuse(self, writer: asyncio.StreamWriter, target: str, error: FetchError) -> None:
        self.refusals.append(PageRequest(target, "connection", str(error)))
        await _reply(writer, 403, str(error))


@contextlib.asynccontextmanager
async def site_proxy(
    policy: FetchPolicy,
    rules: SiteRules,
    hosts: Iterable[str],
    *,
    resolver: Resolver = system_resolve,
) -> AsyncIterator[EgressProxy]:
    """Run a proxy judging by one site's `rules` and `hosts` (give its `settings` to a context).

    For contexts whose requests Chromium makes itself (`route.continue_()`); the renderer
    shares its page's relay with the proxy instead.
    """
    relay = Relay(policy, resolver, rules, hosts)
    try:
        async with EgressProxy(relay) as proxy:
            yield proxy
    finally:
        await relay.close()


def _parse_head(head: bytes) -> tuple[str, str, dict[str, str]]:
    """Split a request head into method, target and lower-cased headers (repeats joined)."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise _BadRequest("malformed request line")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise _BadRequest("malformed header line")
        key, value = name.lower(), value.strip()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return parts[0].upper(), parts[1], headers


def _split_authority(authority: str) -> tuple[str, int]:
    """Return host and port of a CONNECT target ("example.com:443", "[::1]:8080")."""
    host, colon, port = authority.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise _BadRequest(f"bad CONNECT target {authority!r}")
    if ":" in host and not (host.startswith("[") and host.endswith("]")):
        raise _BadRequest(f"bad CONNECT target {authority!r}")
    return host.lower(), int(port)


async def _splice(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
) -> None:
    """Copy bytes both ways until either side ends, then close both."""
    pumps = [
        asyncio.ensure_future(_pump(reader, up_writer)),
        asyncio.ensure_future(_pump(up_reader, writer)),
    ]
    try:
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for pump in pumps:
            pump.cancel()
        for pump in pumps:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pump
        up_writer.close()


async def _pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    while chunk := await source.read(65536):
        sink.write(chunk)
        await sink.drain()


async def _write_answer(writer: asyncio.StreamWriter, method: str, answer: Answer) -> None:
    lines = [f"HTTP/1.1 {answer.status} {_reason(answer.status)}"]
    for name, value in answer.headers.items():
        # The relay joins repeated headers (Set-Cookie) with newlines: one line each again.
        lines.extend(f"{name}: {part}" for part in value.split("\n"))
    bodiless = method == "HEAD" or answer.status in {204, 304} or answer.status < 200
    if not bodiless:
        lines.append(f"content-length: {len(answer.body)}")
    lines.append("connection: keep-alive")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", "surrogateescape")
    writer.write(head if bodiless else head + answer.body)
    await writer.drain()


async def _reply(writer: asyncio.StreamWriter, status: int, message: str) -> None:
    body = (message + "\n").encode("utf-8", "replace")
    writer.write(
        f"HTTP/1.1 {status} {_reason(status)}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(ConnectionError):
        await writer.drain()


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Status"
