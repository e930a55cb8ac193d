"""A local news site whose feed answers conditional requests, for the freshness tests."""

from __future__ import annotations

from email.utils import formatdate

from tests.crawler.servers import RequestHandler, SiteServer
from tests.crawler.sites import article, hub

FEED_LINK = '<link rel="alternate" type="application/rss+xml" href="/feed.xml">'


class NewsWithFeed:
    """A home page, an RSS feed with an ETag and Last-Modified, and the articles they list.

    The feed answers 304 Not Modified while the client's If-None-Match names its ETag;
    `publish` adds an article to the feed (a new ETag) and, unless `on_home` is False, to the
    home page.
    """

    def __init__(self, server: SiteServer, articles: int = 2) -> None:
        self.server = server
        self.listed: list[str] = []
        self.home: list[str] = []
        self.version = 0
        server.route("/feed.xml", self.feed)
        for _ in range(articles):
            self.publish()

    def publish(self, *, on_home: bool = True) -> str:
        path = f"/news/{len(self.listed)}"
        title = f"Harbour report {len(self.listed)}"
        self.server.html(
            path, article(title, f"The harbour story {path} in full.", [("/", "Home")])
        )
        self.listed.insert(0, path)
        if on_home:
            self.home.insert(0, path)
        self.server.html("/", hub("Home", [(p, f"Story {p}") for p in self.home], FEED_LINK))
        self.version += 1
        return path

    @property
    def etag(self) -> str:
        return f'"feed-{self.version}"'

    def feed(self, request: RequestHandler) -> None:
        if request.headers.get("If-None-Match") == self.etag:
            request.send_response(304)
            request.send_header("ETag", self.etag)
            request.send_header("Content-Length", "0")
            request.end_headers()
            return
        items = "".join(
            f"<item><title>Story {p}</title><link>{self.server.url(p)}</link></item>"
            for p in self.listed
        )
        body = f'<?xml version="1.0"?><rss version="2.0"><channel><title>News</title>{items}</channel></rss>'
        data = body.encode()
        request.send_response(200)
        request.send_header("Content-Type", "application/rss+xml")
        request.send_header("ETag", self.etag)
        request.send_header("Last-Modified", formatdate(usegmt=True))
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        request.wfile.write(data)

    def feed_requests(self) -> list[dict[str, str]]:
        """Return the headers of every request for the feed, in order."""
        return [r.headers for r in self.server.requests if r.path == "/feed.xml"]
