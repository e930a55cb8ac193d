"""A small news site on 127.0.0.1 for previews: a home page with a feed, a search form,
robots.txt with a sitemap, and articles."""

from __future__ import annotations

from tests.crawler.servers import Response, SiteServer
from tests.crawler.sites import article

TITLES = ["Harbour reopens after the storm", "Council backs solar subsidies", "New tram line"]


def serve_news(server: SiteServer, *, robots: str | None = None) -> list[str]:
    """Serve the site; return the article paths."""
    paths = [f"/news/{i}" for i in range(len(TITLES))]
    items = "".join(
        f'<li><h2><a href="{path}">{title}</a></h2><p>A short teaser of the story.</p></li>'
        for path, title in zip(paths, TITLES, strict=True)
    )
    server.html(
        "/",
        "<!doctype html><html lang='en'><head><title>Harbour Gazette</title>"
        '<link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body>'
        '<form action="/search" method="get"><label for="q">Search</label>'
        '<input type="search" id="q" name="q"><button>Search</button></form>'
        f"<h1>Latest news</h1><ul>{items}</ul></body></html>",
    )
    for path, title in zip(paths, TITLES, strict=True):
        server.html(
            path, article(title, f"{title}: the town talks of nothing else.", [("/", "Home")])
        )
    rss_items = "".join(
        f"<item><title>{title}</title><link>{server.url(path)}</link></item>"
        for path, title in zip(paths, TITLES, strict=True)
    )
    server.route(
        "/feed.xml",
        Response(
            f'<?xml version="1.0"?><rss version="2.0"><channel><title>Gazette</title>{rss_items}'
            "</channel></rss>",
            headers={"Content-Type": "application/rss+xml"},
        ),
    )
    server.robots(
        robots
        if robots is not None
        else f"User-agent: *\nAllow: /\nSitemap: {server.url('/sitemap.xml')}\n"
    )
    return paths
