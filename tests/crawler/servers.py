"""Real HTTP servers on 127.0.0.1 for crawler tests: programmable routes, hostile behaviours.

    with SiteServer() as site:
        site.html("/", "<a href='/a'>a</a>")
        site.route("/slow", site.never_answers)
        result = fetch(site.url("/"))
        assert site.connections == 1

Every server counts the TCP connections it accepted and records each request, so a test
can prove that a refused fetch never connected, or that keep-alive reused one connection.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from crawler.fetch import Fetcher, FetchResult, SiteRules

Handler = Callable[["RequestHandler"], None]


@dataclass
class Response:
    """A canned answer."""

    body: bytes | str = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html"})

    def payload(self) -> bytes:
        """Return the body as bytes."""
        return self.body.encode() if isinstance(self.body, str) else self.body


@dataclass(frozen=True)
class Recorded:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]


class RequestHandler(BaseHTTPRequestHandler):
    """Dispatch to the server's routes; HTTP/1.1 so connections are kept alive."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: with Nagle's algorithm on, the body would wait
    # for the client's delayed ACK (40 ms a response on a kept-alive connection).
    disable_nagle_algorithm = True
    server: _Server

    def do_GET(self) -> None:  # noqa: N802 - the http.server naming
        site = self.server.site
        site.requests.append(
            Recorded("GET", self.path, {k.lower(): v for k, v in self.headers.items()})
        )
        route = site.routes.get(self.path) or site.routes.get(self.path.split("?", 1)[0])
        if route is None:
            route = Response("not found", status=404, headers={"Content-Type": "text/plain"})
        if isinstance(route, Response):
            self.reply(route)
        else:
            route(self)

    def reply(self, response: Response) -> None:
        """Send a whole response with a Content-Length."""
        payload = response.payload()
        self.send_response(response.status)
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - overrides the base
        return  # keep test output clean


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    site: SiteServer

    def get_request(self) -> tuple[socket.socket, Any]:
        conn, addr = super().get_request()
        with self.site.lock:
            self.site.connections += 1
        return conn, addr


class _Server6(_Server):
    address_family = socket.AF_INET6


class SiteServer:
    """A threaded HTTP server on 127.0.0.1 (or ::1) with routes set per test."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.routes: dict[str, Response | Handler] = {}
        self.requests: list[Recorded] = []
        self.connections = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        server_class = _Server6 if ":" in host else _Server
        self._server = server_class((host, 0), RequestHandler)
        self._server.site = self
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> SiteServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Release any held handlers and shut the server down."""
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()

    @property
    def origin(self) -> str:
        """Return http://host:port."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def url(self, path: str = "/") -> str:
        """Return the absolute URL of `path` on this server."""
        return self.origin + path

    def paths(self) -> list[str]:
        """Return the paths requested so far, in order."""
        return [r.path for r in self.requests]

    # --- Routes ---------------------------------------------------------------------------

    def route(self, path: str, answer: Response | Handler) -> None:
        """Answer `path` (with or without its query) with a response or a handler."""
        self.routes[path] = answer

    def html(self, path: str, body: str, **headers: str) -> None:
        """Serve an HTML page."""
        self.route(path, Response(body, headers={"Content-Type": "text/html", **headers}))

    def robots(self, text: str, status: int = 200) -> None:
        """Serve /robots.txt."""
        self.route("/robots.txt", Response(text, status, {"Content-Type": "text/plain"}))

    def redirect(self, path: str, location: str, status: int = 302) -> None:
        """Redirect `path` to `location`."""
        self.route(path, Response(b"", status, {"Location": location}))

    # --- Hostile behaviours (handlers) -----------------------------------------------------

    def never_answers(self, handler: RequestHandler) -> None:
        """Read the request, then say nothing until the server stops."""
        self.stopping.wait(60)

    def trickle(self, interval: float = 1.0, size: int = 10_000) -> Handler:
        """Return a handler that sends a `size`-byte page one byte every `interval` seconds."""

        def handler(request: RequestHandler) -> None:
            request.send_response(200)
            request.send_header("Content-Type", "text/html")
            request.send_header("Content-Length", str(size))
            request.end_headers()
            try:
                for _ in range(size):
                    request.wfile.write(b"x")
                    request.wfile.flush()
                    if self.stopping.wait(interval):
                        return
            except OSError:
                return  # the client gave up, as it should

        return handler

    def huge(self, size: int, content_type: str = "text/html", chunked: bool = False) -> Handler:
        """Return a handler that streams `size` bytes of markup (Content-Length or chunked)."""

        def handler(request: RequestHandler) -> None:
            request.send_response(200)
            request.send_header("Content-Type", content_type)
            if chunked:
                request.send_header("Transfer-Encoding", "chunked")
            else:
                request.send_header("Content-Length", str(size))
            request.end_headers()
            block = b"<p>" + b"x" * 65_530 + b"</p>\n"
            sent = 0
            try:
                while sent < size and not self.stopping.is_set():
                    part = block[: size - sent]
                    if chunked:
                        request.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                    else:
                        request.wfile.write(part)
                    sent += len(part)
                if chunked:
                    request.wfile.write(b"0\r\n\r\n")
            except OSError:
                return

        return handler


class FakeSearxng:
    """Speak SearxNG's JSON API: /search?q=..&format=json&pageno=N, five results a page.

    `results` answers a query by its exact text; any other query gets `default`.
    """

    def __init__(self, server: SiteServer) -> None:
        self.server = server
        self.results: dict[str, list[dict[str, object]]] = {}
        self.totals: dict[str, int] = {}
        self.default: list[dict[str, object]] = []
        server.route("/search", self.answer)

    def answer(self, request: RequestHandler) -> None:
        params = parse_qs(urlsplit(request.path).query)
        if params.get("format") != ["json"]:
            request.reply(Response("HTML not served here", status=403))
            return
        query = params.get("q", [""])[0]
        page = int(params.get("pageno", ["1"])[0])
        items = self.results.get(query, self.default)[(page - 1) * 5 : page * 5]
        body = {
            "query": query,
            "number_of_results": self.totals.get(query, 0),
            "results": items,
        }
        request.reply(Response(json.dumps(body), headers={"Content-Type": "application/json"}))

    def queries(self) -> list[str]:
        """Return the queries asked so far, in order (one per result page read)."""
        return [parse_qs(urlsplit(path).query).get("q", [""])[0] for path in self.server.paths()]


def gzip_bomb(size: int = 50 * 1024 * 1024) -> Response:
    """Return a gzip-encoded HTML response that inflates to `size` bytes."""
    return Response(
        _compressed_zeros(size),
        headers={"Content-Type": "text/html", "Content-Encoding": "gzip"},
    )


@cache
def _compressed_zeros(size: int) -> bytes:
    head = b"<html><body><p>"
    return gzip.compress(head + b"\0" * (size - len(head)), compresslevel=9)


class FakeClock:
    """A clock whose time moves only when something sleeps; it records every sleep."""

    def __init__(self, start: float = 1000.0, wall: float = 1_700_000_000.0) -> None:
        self.start = start
        self.now = start
        self.wall = wall
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        """Return the fake monotonic time."""
        return self.now

    def time(self) -> float:
        """Return the fake wall-clock time."""
        return self.wall + (self.now - self.start)

    async def sleep(self, seconds: float) -> None:
        """Record the sleep and jump ahead by it."""
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


# --- Fetching from tests ----------------------------------------------------------------------

# Test sites live on 127.0.0.1: private addresses allowed, no politeness delay.
LOCAL = SiteRules(crawl_delay=0, allow_private_network=True)


def fetch_once(url: str, rules: SiteRules = LOCAL, **options: Any) -> FetchResult:
    """Fetch one URL with a fresh Fetcher (options: policy, resolver, clock)."""

    async def run() -> FetchResult:
        async with Fetcher(**options) as fetcher:
            return await fetcher.fetch(url, rules)

    return asyncio.run(run())
