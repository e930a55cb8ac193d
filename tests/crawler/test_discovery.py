"""Reading sitemaps and feeds as hubs of new URLs, defensively."""

from __future__ import annotations

import gzip

import pytest

from crawler.extract.feeds import (
    MAX_SITEMAP_BYTES,
    DiscoveryError,
    feed_links,
    parse_feed,
    parse_sitemap,
)

BASE = "http://127.0.0.1:9/"


def test_a_sitemap_lists_its_page_urls():
    body = b"""<?xml version="1.0" encoding="UTF-8"?>
    <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url><loc>http://127.0.0.1:9/a</loc><lastmod>2024-01-01</lastmod></url>
      <url><loc> /b </loc></url>
    </urlset>"""
    found = parse_sitemap(body, BASE)
    assert found.kind == "sitemap"
    assert found.urls == ["http://127.0.0.1:9/a", "http://127.0.0.1:9/b"]
    assert found.sitemaps == []


def test_a_sitemap_index_lists_nested_sitemaps():
    body = b"""<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <sitemap><loc>http://127.0.0.1:9/news.xml</loc></sitemap></sitemapindex>"""
    found = parse_sitemap(body, BASE)
    assert found.sitemaps == ["http://127.0.0.1:9/news.xml"]
    assert found.urls == []


def test_a_gzipped_sitemap_is_inflated():
    body = gzip.compress(b"<urlset><url><loc>http://127.0.0.1:9/z</loc></url></urlset>")
    assert parse_sitemap(body, BASE).urls == ["http://127.0.0.1:9/z"]


def test_a_gzip_bomb_is_refused():
    bomb = gzip.compress(b"<urlset>" + b" " * (MAX_SITEMAP_BYTES + 1024))
    with pytest.raises(DiscoveryError, match="inflates past"):
        parse_sitemap(bomb, BASE)


def test_entities_are_not_expanded():
    body = b"""<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "http://evil.example/">
    <!ENTITY ext SYSTEM "file:///etc/passwd">]>
    <urlset><url><loc>&x;a</loc></url><url><loc>&ext;</loc></url></urlset>"""
    urls = parse_sitemap(body, BASE).urls
    assert not any("evil" in url or "root:" in url for url in urls)


def test_an_rss_feed_lists_item_links_and_permalink_guids():
    body = b"""<rss version="2.0"><channel><title>t</title>
      <item><title>One</title><link>http://127.0.0.1:9/one</link></item>
      <item><guid isPermaLink="true">http://127.0.0.1:9/two</guid></item>
      <item><guid isPermaLink="false">tag:x,2024:3</guid></item>
    </channel></rss>"""
    found = parse_feed(body, BASE)
    assert found.kind == "feed"
    assert found.urls == ["http://127.0.0.1:9/one", "http://127.0.0.1:9/two"]


def test_an_atom_feed_lists_alternate_links():
    body = b"""<feed xmlns="http://www.w3.org/2005/Atom">
      <entry><link rel="self" href="/self/1"/><link href="/entry/1"/></entry>
      <entry><link rel="alternate" type="text/html" href="http://127.0.0.1:9/entry/2"/></entry>
    </feed>"""
    assert parse_feed(body, BASE).urls == [
        "http://127.0.0.1:9/entry/1",
        "http://127.0.0.1:9/entry/2",
    ]


def test_an_rss1_feed_lists_its_items():
    body = b"""<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
      <item rdf:about="http://127.0.0.1:9/r1"><link>http://127.0.0.1:9/r1</link></item></rdf:RDF>"""
    assert parse_feed(body, BASE).urls == ["http://127.0.0.1:9/r1"]


@pytest.mark.parametrize(
    "body", [b"", b"not xml at all", b"<html><body>hi</body></html>", b"\x00\xff"]
)
def test_bodies_that_are_neither_give_no_urls(body):
    assert parse_sitemap(body, BASE).urls == []
    assert parse_feed(body, BASE).urls == []


def test_an_html_page_announces_its_feeds():
    html = b"""<html><head>
      <link rel="alternate" type="application/rss+xml" href="/feed.xml?a=1&amp;b=2">
      <link rel='alternate' type='application/atom+xml' href='http://127.0.0.1:9/atom'>
      <link rel="alternate" hreflang="de" href="/de/">
      <link rel="stylesheet" type="text/css" href="/s.css">
    </head><body></body></html>"""
    assert feed_links(html, "http://127.0.0.1:9/news/") == [
        "http://127.0.0.1:9/feed.xml?a=1&b=2",
        "http://127.0.0.1:9/atom",
    ]
    assert feed_links("<p>no links</p>", BASE) == []


def test_feed_items_and_sitemap_entries_say_when_they_were_published():
    rss = b"""<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>
      <item><link>http://127.0.0.1:9/a</link><pubDate>Mon, 21 Nov 2016 08:00:00 +0100</pubDate></item>
      <item><link>http://127.0.0.1:9/b</link><dc:date>2024-02-03T10:00:00Z</dc:date></item>
      <item><link>http://127.0.0.1:9/c</link><pubDate>Tuesday</pubDate></item>
    </channel></rss>"""
    atom = b"""<feed xmlns="http://www.w3.org/2005/Atom"><entry>
      <link href="http://127.0.0.1:9/d"/><updated>2025-01-02T00:00:00Z</updated>
      <published>2024-12-30T00:00:00Z</published></entry></feed>"""
    sitemap = b"""<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
      <url><loc>http://127.0.0.1:9/e</loc><lastmod>2025-05-05</lastmod>
        <news:news><news:publication_date>2016-11-21T08:00:00Z</news:publication_date></news:news>
      </url>
      <url><loc>http://127.0.0.1:9/f</loc><lastmod>2019-07-01</lastmod></url>
      <url><loc>http://127.0.0.1:9/g</loc></url>
    </urlset>"""

    feed_dates = {
        url: (d.moment.isoformat(), d.published) for url, d in parse_feed(rss, BASE).dates.items()
    }
    atom_dates = parse_feed(atom, BASE).dates
    map_dates = {
        url: (d.moment.date().isoformat(), d.published)
        for url, d in parse_sitemap(sitemap, BASE).dates.items()
    }

    assert feed_dates == {
        "http://127.0.0.1:9/a": ("2016-11-21T07:00:00+00:00", True),
        "http://127.0.0.1:9/b": ("2024-02-03T10:00:00+00:00", True),
    }
    assert atom_dates["http://127.0.0.1:9/d"].moment.isoformat() == "2024-12-30T00:00:00+00:00"
    assert map_dates == {
        "http://127.0.0.1:9/e": ("2016-11-21", True),
        "http://127.0.0.1:9/f": ("2019-07-01", False),
    }
