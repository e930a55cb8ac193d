"""A small demo news site on 127.0.0.1: sections, pagination, articles, search, a JS menu, RSS.

The menu holds the plain sections; an inline script appends two more sections and the live
desks (`demo.live`) after load. Search results link to articles with a tracking parameter
(`?ref=search-1-3`); every article names its clean URL in rel=canonical.

Like real sites it also has what a crawler must not spend its budget on: an events calendar
(/events/?date=...) whose next-day and next-month links go on for ever, and print copies of
every article (/article/<slug>/print/, linked with tracking parameters) that name the
article in rel=canonical. Three more sites live under their own paths (`demo.cases`): an
encyclopedia mirror, a script-built library and a database front end.

Run: python -m demo [--port 8100] [--publish-every 180]
"""

from __future__ import annotations

import argparse
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from email.utils import format_datetime
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from demo import archive, cases, live
from demo.content import SECTIONS, Article, build_articles, utcnow

PAGE_SIZE = 4

# The menu holds its plain sections; this inline script appends the others (two sections and
# the live desks, which nothing else links to) once the page has loaded.
MENU_JS = """\
document.addEventListener("DOMContentLoaded", function () {
  var menu = document.getElementById("main-menu");
  var items = [["Science", "/section/science/"], ["Sports", "/section/sports/"],
               ["Climate desk", "/live/climate/"], ["Markets live", "/live/markets/"]];
  items.forEach(function (item) {
    var li = document.createElement("li"), a = document.createElement("a");
    a.href = item[1];
    a.textContent = item[0];
    li.appendChild(a);
    menu.appendChild(li);
  });
});
"""


class NewsSite:
    """The site's state: when it started and how often it publishes."""

    def __init__(self, publish_every: float = 180.0, started: datetime | None = None) -> None:
        self.publish_every = publish_every
        self.started = started or utcnow()
        self.published_by_hand: list[datetime] = []

    def publish_next(self) -> None:
        """Publish the next later story now (tests and demos do not have to wait)."""
        self.published_by_hand.append(utcnow())

    def articles(self) -> list[Article]:
        return build_articles(self.started, utcnow(), self.publish_every, self.published_by_hand)

    def listed(self) -> list[Article]:
        return [a for a in self.articles() if not a.archived]


def layout(title: str, body: str, canonical: str = "") -> str:
    nav = "".join(
        f'<li><a href="/section/{key}/">{escape(name)}</a></li>'
        for key, name in SECTIONS.items()
        if key not in {"science", "sports"}
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)} | The Daily Demo</title>
<link rel="alternate" type="application/rss+xml" title="The Daily Demo" href="/feed.xml">{f'<link rel="canonical" href="{canonical}">' if canonical else ""}
</head>
<body>
<header><a href="/" class="logo">The Daily Demo</a>
<nav class="main-menu"><ul id="main-menu"><li><a href="/">Home</a></li>{nav}</ul></nav>
<script>{MENU_JS}</script>
<form class="search" action="/search" method="get"><label for="q">Search</label>
<input id="q" name="q" type="search" placeholder="Search articles"><button type="submit">Go</button></form>
</header>
<main>{body}</main>
<footer><ul><li><a href="/archive/">Archive</a></li><li><a href="/events/">Events</a></li><li><a href="/about/">About us</a></li><li><a href="/contact/">Contact</a></li><li><a href="/feed.xml">RSS</a></li></ul>
<p>© The Daily Demo. A demo site for Webclip.</p></footer>
</body></html>"""


def teaser_list(articles: list[Article], ref: str = "") -> str:
    """Return a list of teasers; with `ref`, each link says where it was clicked
    (`?ref=search-1-3`: the first result page's third result), as result pages do."""
    items = []
    for rank, a in enumerate(articles, 1):
        url = f"{a.url}?ref={ref}-{rank}" if ref else a.url
        items.append(
            f'<li class="teaser"><h3><a href="{url}">{escape(a.title)}</a></h3>'
            f'<p class="summary">{escape(a.teaser[:140])}…</p><a class="more" href="{url}">Read more</a></li>'
        )
    return '<ul class="teasers">' + "".join(items) + "</ul>"


def article_page(a: Article, related: list[Article]) -> str:
    paragraphs = "".join(f"<p>{escape(p)}</p>" for p in a.paragraphs)
    rel = "".join(f'<li><a href="{r.url}">{escape(r.title)}</a></li>' for r in related)
    body = f"""<article><h1>{escape(a.title)}</h1>
<p class="byline">By {escape(a.author)} · <time datetime="{a.published.isoformat()}">{a.published:%d %B %Y}</time> ·
<a href="/section/{a.section}/">{escape(SECTIONS[a.section])}</a></p>
<div class="article-body">{paragraphs}</div></article>
<aside class="related"><h2>More in {escape(SECTIONS[a.section])}</h2><ul>{rel}</ul></aside>
<div class="share"><a href="/share?u={a.slug}">Share</a> <a href="/print?u={a.slug}">Print</a>
<a href="{a.url}print/?utm_source=article&amp;utm_medium=print">Printer-friendly version</a></div>"""
    return layout(a.title, body, canonical=a.url)


def print_page(a: Article) -> str:
    """Return an article's print copy: the same text, canonical pointing at the article."""
    paragraphs = "".join(f"<p>{escape(p)}</p>" for p in a.paragraphs)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(a.title)} (print)</title>
<link rel="canonical" href="{a.url}"></head>
<body><article><h1>{escape(a.title)}</h1><p class="byline">By {escape(a.author)}</p>
<div class="article-body">{paragraphs}</div></article>
<p><a href="{a.url}?utm_source=print">Back to the article</a></p></body></html>"""


def calendar_page(day: date) -> str:
    """Return an events day: nothing on, and links to the next and previous day and month."""
    month = (day.replace(day=1) + timedelta(days=32)).replace(day=1)
    body = f"""<h1>Events on {day:%A %d %B %Y}</h1><p class="empty">No events on this day.</p>
<nav class="calendar"><a href="/events/?date={day - timedelta(days=1):%Y-%m-%d}">« Previous day</a>
<a href="/events/?date={day + timedelta(days=1):%Y-%m-%d}">Next day »</a>
<a href="/events/?date={month:%Y-%m-%d}">Next month »</a></nav>"""
    return layout(f"Events {day:%d %B %Y}", body)


class Handler(BaseHTTPRequestHandler):
    site: NewsSite
    server_version = "DailyDemo/1.0"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (stdlib signature)
        return

    def send(self, status: int, body: str, content_type: str = "text/html; charset=utf-8") -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 (stdlib hook name)
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        if (answer := archive.get(path, query, layout)) is not None:
            return self.send(*answer)
        if (case := cases.get(path, query)) is not None:
            return self.send(*case)
        if (scripted := live.get(path, query, layout)) is not None:
            return self.send(*scripted)
        page = PAGES.get(path)
        if page is None:
            page = next((found for prefix, found in UNDER if path.startswith(prefix)), not_found)
        request = Request(self.site, path, query, self.headers.get("Host", "127.0.0.1"))
        return self.send(*page(request))

    def do_POST(self) -> None:  # noqa: N802 (stdlib hook name)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace")
        fields = {name: values[-1] for name, values in parse_qs(body).items()}
        answer = archive.post(urlsplit(self.path).path, fields, layout)
        self.send(*(answer or (404, layout("Not found", "<h1>Not found</h1>"))))


@dataclass(frozen=True)
class Request:
    """What a page of the site is asked: the path, the query and the Host it was asked at."""

    site: NewsSite
    path: str
    query: dict[str, list[str]]
    host: str


# (status, body) or (status, body, content type): what Handler.send takes.
Answer = tuple[int, str] | tuple[int, str, str]


def not_found(request: Request) -> Answer:
    return 404, layout("Not found", "<h1>Not found</h1>")


def home(request: Request) -> Answer:
    body = "<h1>Latest news</h1>" + teaser_list(request.site.listed()[:6])
    for key, name in SECTIONS.items():
        body += f'<section><h2><a href="/section/{key}/">{escape(name)}</a></h2></section>'
    return 200, layout("Latest news", body)


def section(request: Request) -> Answer:
    path, query = request.path, request.query
    key = path.strip("/").split("/")[-1]
    if key not in SECTIONS:
        return not_found(request)
    in_section = [a for a in request.site.listed() if a.section == key]
    page = max(1, int(query.get("page", ["1"])[0]) if query.get("page", ["1"])[0].isdigit() else 1)
    chunk = in_section[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    pager = ""
    if page > 1:
        pager += f'<a rel="prev" href="/section/{key}/?page={page - 1}">Newer</a> '
    if page * PAGE_SIZE < len(in_section):
        pager += f'<a rel="next" href="/section/{key}/?page={page + 1}">Older</a>'
    body = (
        f"<h1>{escape(SECTIONS[key])}</h1>"
        + teaser_list(chunk)
        + f'<nav class="pager">{pager}</nav>'
    )
    return 200, layout(SECTIONS[key], body)


def events(request: Request) -> Answer:
    try:
        day = date.fromisoformat(request.query.get("date", [""])[0])
    except ValueError:
        day = utcnow().date()
    return 200, calendar_page(day)


def article(request: Request) -> Answer:
    path = request.path
    if path.endswith("/print/"):
        slug = path.strip("/").split("/")[-2]
        for a in request.site.articles():
            if a.slug == slug:
                return 200, print_page(a)
        return not_found(request)
    slug = path.strip("/").split("/")[-1]
    for a in request.site.articles():
        if a.slug == slug:
            listed = request.site.listed()
            related = [r for r in listed if r.section == a.section and r.slug != slug][:3]
            return 200, article_page(a, related)
    return not_found(request)


def search(request: Request) -> Answer:
    q = request.query.get("q", [""])[0].strip().lower()
    hits = [
        a
        for a in request.site.articles()
        if q and all(w in (a.title + " " + " ".join(a.paragraphs)).lower() for w in q.split())
    ]
    if not hits:
        return (
            200,
            layout(
                "Search",
                f'<h1>Search</h1><p class="no-results">No articles match “{escape(q)}”.</p>',
            ),
        )
    body = f"<h1>Results for “{escape(q)}”</h1>" + teaser_list(hits, ref="search-1")
    return 200, layout("Search", body)


def feed(request: Request) -> Answer:
    return 200, rss(request.site.listed()), "application/rss+xml; charset=utf-8"


def robots(request: Request) -> Answer:
    text = f"User-agent: *\nDisallow: /share\nDisallow: /print\nSitemap: http://{request.host}/sitemap.xml\n"
    return 200, text, "text/plain"


def sitemap(request: Request) -> Answer:
    urls = "".join(
        f"<url><loc>http://{request.host}{a.url}</loc></url>" for a in request.site.listed()
    )
    return (
        200,
        f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>',
        "application/xml",
    )


def menu_script(request: Request) -> Answer:
    return 200, MENU_JS, "application/javascript"


def about(request: Request) -> Answer:
    return (
        200,
        layout(
            "About", "<h1>About The Daily Demo</h1><p>A made-up newspaper for trying Webclip.</p>"
        ),
    )


Page = Callable[[Request], Answer]
# The site's pages by path, then by what their path starts with.
PAGES: dict[str, Page] = {
    "/": home,
    "/search": search,
    "/feed.xml": feed,
    "/robots.txt": robots,
    "/sitemap.xml": sitemap,
    "/static/menu.js": menu_script,
    "/about/": about,
    "/contact/": about,
}
UNDER: tuple[tuple[str, Page], ...] = (
    ("/section/", section),
    ("/events/", events),
    ("/article/", article),
)


def rss(articles: list[Article]) -> str:
    items = "".join(
        f"<item><title>{escape(a.title)}</title><link>{a.url}</link><description>{escape(a.teaser)}</description>"
        f"<pubDate>{format_datetime(a.published)}</pubDate><guid>{a.url}</guid></item>"
        for a in articles[:20]
    )
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>The Daily Demo</title><link>/</link><description>Latest news</description>{items}</channel></rss>'


def serve(
    port: int = 0, publish_every: float = 0, host: str = "127.0.0.1"
) -> tuple[ThreadingHTTPServer, NewsSite]:
    """Start the site in a background thread; return the server (call shutdown()) and its state."""
    site = NewsSite(publish_every)
    handler = type("BoundHandler", (Handler,), {"site": site})
    server = ThreadingHTTPServer((host, port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, site


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument(
        "--publish-every", type=float, default=180.0, help="seconds between new articles"
    )
    args = parser.parse_args()
    handler = type("BoundHandler", (Handler,), {"site": NewsSite(args.publish_every)})
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    print(
        f"The Daily Demo on http://127.0.0.1:{args.port}/ (a new article every {args.publish_every:.0f} s)",
        flush=True,
    )
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
