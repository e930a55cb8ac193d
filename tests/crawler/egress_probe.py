"""Check that a render host's Chromium opens no connection the crawler's fetcher would refuse.

    report = await egress_probe(Renderer(policy))   # or run_egress_probe() from sync code
    assert report.leaks() == 0, report.by_vector()

The probe serves pages from a site on 127.0.0.1 that is allowed private addresses for its own
origin only, and starts plain TCP listeners the site may not reach: 127.0.0.2, 127.0.0.3 and
other ports of 127.0.0.1, one listener per vector and target so that every accepted
connection names the way it got out. Each page tries one way out (a script navigation, an
iframe, a WebSocket, a preconnect, ...) and also loads the site's own script and data, so the
report proves that rendering still works while nothing else was reached. The refused
addresses are listed among the site's hosts: only the address policy keeps them out.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html import escape
from urllib.parse import parse_qs, quote, urlsplit

from crawler.fetch.policy import FetchPolicy, SiteRules
from crawler.fetch.result import FetchResult
from crawler.fetch.sync import run_sync
from crawler.render import Renderer

OWN_MARKER = "own-subresources-loaded"
TARGET_HOSTS = ("127.0.0.2", "127.0.0.3", "127.0.0.1")  # the last on ports not the site's

# A vector builds the page's extra HTML from its targets (http://host:port/path URLs).
Build = Callable[[list[str]], str]


def _script(code: str) -> str:
    return f"<script>{code}</script>"


def _each(template: str) -> Build:
    """Repeat `template` (with {url}, {js}, {ws} slots) once per target."""

    def build(targets: list[str]) -> str:
        parts = []
        for url in targets:
            ws = "ws://" + url.split("://", 1)[1]
            parts.append(template.format(url=escape(url), js=json.dumps(url), ws=json.dumps(ws)))
        return "\n".join(parts)

    return build


def _speculation(targets: list[str]) -> str:
    rules = {
        "prefetch": [{"source": "list", "urls": targets[: len(targets) // 2 + 1]}],
        "prerender": [{"source": "list", "urls": targets[len(targets) // 2 + 1 :]}],
    }
    links = "".join(f'<link rel="prefetch" href="{escape(url)}">' for url in targets)
    return f'{links}<script type="speculationrules">{json.dumps(rules)}</script>'


def _turn(targets: list[str]) -> str:
    servers = [
        {"urls": f"turn:{urlsplit(url).netloc}?transport=tcp", "username": "u", "credential": "p"}
        for url in targets
    ]
    return _script(
        "try { const pc = new RTCPeerConnection({iceServers: "
        + json.dumps(servers)
        + ", iceTransportPolicy: 'relay'}); pc.createDataChannel('x');"
        " pc.createOffer().then(o => pc.setLocalDescription(o)); } catch (e) {}"
    )


def _service_worker(targets: list[str]) -> str:
    query = quote(json.dumps(targets))
    return _script(
        "navigator.serviceWorker && navigator.serviceWorker"
        f".register('/sw.js?targets={query}').catch(() => {{}});"
    )


def _in_worker(statement: str) -> Build:
    """Run `statement` (with a {js} or {ws} slot) once per target in a dedicated worker."""

    def build(targets: list[str]) -> str:
        code = "".join(
            "try { "
            + statement.format(js=json.dumps(url), ws=json.dumps("ws://" + url.split("://")[1]))
            + " } catch (e) {}"
            for url in targets
        )
        return _script(
            f"new Worker(URL.createObjectURL(new Blob([{json.dumps(code)}],"
            " {type: 'text/javascript'})));"
        )

    return build


def _css(targets: list[str]) -> str:
    rules = "".join(f"@import url({json.dumps(url + '.css')});" for url in targets) + "".join(
        f"#own{{background: url({json.dumps(url)})}}" for url in targets
    )
    return f"<style>{rules}</style>"


XHR = "try {{ const x = new XMLHttpRequest(); x.open('GET', {js}); x.send(); }} catch (e) {{}}"
PRECONNECT = '<link rel="preconnect" href="{url}"><link rel="dns-prefetch" href="{url}">'

# Ways a page can make the browser connect somewhere; navigations take one target per page.
NAVIGATIONS: dict[str, Build] = {
    "script-navigation": _each(_script("location.href = {js};")),
    "meta-refresh": _each('<meta http-equiv="refresh" content="0; url={url}">'),
    "form-submit": _each(
        '<form method="post" action="{url}"><input name="q" value="1"></form>'
        + _script("document.forms[document.forms.length - 1].submit();")
    ),
}
SUBRESOURCES: dict[str, Build] = {
    "iframe": _each('<iframe src="{url}"></iframe>'),
    "img": _each('<img src="{url}" alt="">'),
    "fetch": _each(_script("fetch({js}, {{mode: 'no-cors'}}).catch(() => {{}});")),
    "xhr": _each(_script(XHR)),
    "websocket": _each(_script("try {{ new WebSocket({ws}); }} catch (e) {{}}")),
    "preconnect": _each(PRECONNECT),
    "service-worker": _service_worker,
    "worker": _in_worker("fetch({js}).catch(() => {{}});"),
    "worker-websocket": _in_worker("new WebSocket({ws});"),
    "css": _css,
    "object": _each('<object data="{url}"></object><embed src="{url}">'),
    "ping": _each(
        '<a id="p" href="/blank" target="_blank" ping="{url}">p</a>'
        + _script("document.getElementById('p').click();")
    ),
    "event-source": _each(_script("try {{ new EventSource({js}); }} catch (e) {{}}")),
    "beacon": _each(_script("navigator.sendBeacon({js}, 'x');")),
    "prefetch": _speculation,
    "popup": _each(_script("window.open({js});")),
    "webrtc-turn": _turn,
}
VECTORS = tuple(NAVIGATIONS) + tuple(SUBRESOURCES)

PAGE = """<!doctype html><html><head><title>egress probe: {vector}</title>{head}</head>
<body><p id="own">waiting</p>
<script src="/own.js?v={vector}"></script>
{body}
</body></html>"""
OWN_JS = """fetch('/own.json?v={vector}').then(r => r.json())
  .then(d => {{ document.getElementById('own').textContent = d.word; }});"""
SERVICE_WORKER = """const targets = {targets};
self.addEventListener('install', () => {{ for (const t of targets) fetch(t).catch(() => {{}}); }});
self.addEventListener('activate', () => {{ for (const t of targets) fetch(t).catch(() => {{}}); }});
"""


@dataclass
class EgressReport:
    """What one probe saw: connections per vector and target, and what the site served."""

    origin: str
    connections: dict[str, dict[str, int]] = field(default_factory=dict)
    served: list[str] = field(default_factory=list)
    results: dict[str, list[FetchResult]] = field(default_factory=dict)

    def by_vector(self) -> dict[str, int]:
        """Return the connections each vector made to refused listeners."""
        return {vector: sum(targets.values()) for vector, targets in self.connections.items()}

    def leaks(self) -> int:
        """Return the connections made to refused listeners, over all vectors."""
        return sum(self.by_vector().values())

    def own_loaded(self, vector: str) -> bool:
        """Tell whether the site's own script and data loaded on the vector's pages."""
        return {f"/own.js?v={vector}", f"/own.json?v={vector}"} <= set(self.served)


class _Listener:
    """A TCP port that counts the connections it accepts and drops them."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.accepted = 0
        self.server: asyncio.Server | None = None

    async def start(self) -> _Listener:
        self.server = await asyncio.start_server(self._accept, self.host, 0)
        return self

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        writer.close()

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


class _Origin:
    """The probed site's HTTP server: vector pages, its own script and data, the worker."""

    def __init__(self) -> None:
        self.served: list[str] = []
        self.pages: dict[str, str] = {}
        self.server: asyncio.Server | None = None

    async def start(self) -> _Origin:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                target = lines[0].split(" ")[1] if len(lines[0].split(" ")) > 2 else "/"
                length = next(
                    (
                        int(v)
                        for k, _, v in (h.partition(":") for h in lines[1:])
                        if k.strip().lower() == "content-length" and v.strip().isdigit()
                    ),
                    0,
                )
                if length:
                    await reader.readexactly(length)
                self.served.append(target)
                status, media_type, body = self._answer(target)
                writer.write(
                    f"HTTP/1.1 {status}\r\nContent-Type: {media_type}\r\n"
                    f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\n\r\n".encode()
                    + body
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        finally:
            writer.close()

    def _answer(self, target: str) -> tuple[str, str, bytes]:
        path, _, query = target.partition("?")
        params = {k: v[0] for k, v in parse_qs(query).items()}
        vector = params.get("v", "")
        if path == "/own.js":
            return "200 OK", "text/javascript", OWN_JS.format(vector=vector).encode()
        if path == "/own.json":
            return "200 OK", "application/json", json.dumps({"word": OWN_MARKER}).encode()
        if path == "/sw.js":
            targets = params.get("targets", "[]")
            body = SERVICE_WORKER.format(targets=targets)
            return "200 OK", "text/javascript", body.encode()
        page = self.pages.get(target)
        if page is not None:
            return "200 OK", "text/html; charset=utf-8", page.encode()
        return "404 Not Found", "text/plain", b"not found"

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


def probe_rules(origin: str) -> SiteRules:
    """Return the probed site's rules: private addresses for its own origin only."""
    return SiteRules(
        crawl_delay=0, obey_robots=False, allow_private_network=True, private_origins=(origin,)
    )


async def egress_probe(
    renderer: Renderer | None = None, *, vectors: Iterable[str] = VECTORS
) -> EgressReport:
    """Render one page per vector (and target, for navigations); count refused connections.

    1. Start one listener per vector and refused target, and the site's origin server.
    2. Render every page through `renderer` (its host, policy and relay: the real path).
    3. Give late connections a moment to be accepted, then read the counts.
    """
    renderer = renderer or Renderer(FetchPolicy(render_timeout=15.0, render_settle=1.5))
    builds = NAVIGATIONS | SUBRESOURCES
    origin = await _Origin().start()
    report = EgressReport(origin.url)
    listeners: dict[str, list[_Listener]] = {}
    try:
        jobs: list[tuple[str, str]] = []
        for vector in vectors:
            listeners[vector] = [await _Listener(host).start() for host in TARGET_HOSTS]
            targets = [f"http://{t.host}:{t.port}/{vector}" for t in listeners[vector]]
            pages = [[t] for t in targets] if vector in NAVIGATIONS else [targets]
            for index, page_targets in enumerate(pages):
                markup = builds[vector](page_targets)
                head, body = (markup, "") if vector == "meta-refresh" else ("", markup)
                path = f"/probe/{vector}/{index}"
                origin.pages[path] = PAGE.format(vector=vector, head=head, body=body)
                jobs.append((vector, origin.url + path))
        rules = probe_rules(origin.url)
        results = await asyncio.gather(
            *(renderer.render(url, rules, TARGET_HOSTS) for _, url in jobs)
        )
        for (vector, _), result in zip(jobs, results, strict=True):
            report.results.setdefault(vector, []).append(result)
        await asyncio.sleep(0.5)  # let the loop accept connections already in the backlog
        for vector, opened in listeners.items():
            report.connections[vector] = {f"{t.host}:{t.port}": t.accepted for t in opened}
        report.served = list(origin.served)
    finally:
        for opened in listeners.values():
            for listener in opened:
                await listener.close()
        await origin.close()
    return report


def run_egress_probe(
    renderer: Renderer | None = None, *, vectors: Iterable[str] = VECTORS
) -> EgressReport:
    """Run `egress_probe` from synchronous code (a benchmark, a shell)."""
    return run_sync(egress_probe(renderer, vectors=vectors))
