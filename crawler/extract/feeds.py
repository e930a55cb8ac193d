"""Discovery of new URLs from sitemaps and RSS/Atom feeds, which the crawler treats as hubs.

Sitemaps come from robots.txt `Sitemap:` lines and /sitemap.xml; feeds from an HTML page's
`<link rel="alternate" type="application/rss+xml">` (or atom+xml). Parsing is defensive: lxml
with entities, DTDs and network access off, gzip bodies inflated up to a cap, and anything that
is not a sitemap or feed gives no URLs rather than an error.
"""

from __future__ import annotations

import gzip
import html as html_module
import io
import re
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urljoin

from lxml import etree

from analyzer.pubdate import listed_time

# A sitemap may hold 50,000 URLs and weigh 50 MB uncompressed (sitemaps.org limits).
MAX_SITEMAP_BYTES = 50 * 1024 * 1024
MAX_SITEMAP_URLS = 50_000
ITEM_WORDS = 2000  # characters of a feed item's words kept

FEED_TYPES = frozenset(
    {"application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/feed+json"}
)
_LINK_TAG = re.compile(rb"<link\b[^>]*>", re.IGNORECASE)
_ATTR = re.compile(rb"""([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")


class DiscoveryError(ValueError):
    """A sitemap or feed body could not be read (too large, broken compression)."""


@dataclass
class Discovered:
    """URLs found in one sitemap or feed: pages to crawl, and nested sitemaps to read."""

    kind: str  # "sitemap", "feed" or "" when the body is neither
    urls: list[str] = field(default_factory=list)
    sitemaps: list[str] = field(default_factory=list)
    # A feed's items come with their own words (title, summary, categories), per item URL:
    # the crawler weighs the link to an item by them before fetching it.
    texts: dict[str, str] = field(default_factory=dict)
    # When each item was published, as the feed or sitemap says, with whether that is a
    # publication date (a feed item's, a news sitemap's) or only a sitemap's <lastmod>.
    dates: dict[str, ListedDate] = field(default_factory=dict)


@dataclass(frozen=True)
class ListedDate:
    """A publication time a feed or sitemap gives an item."""

    moment: datetime
    published: bool  # a publication date; False: a sitemap's last modification


# Where a feed item says when it was published, most trusted first.
_ITEM_DATES = ("published", "pubdate", "issued", "date", "created", "updated", "modified")


def parse_sitemap(body: bytes, base_url: str) -> Discovered:
    """Return the page URLs and nested sitemap URLs of a (possibly gzipped) sitemap."""
    root = _xml_root(_inflate(body, MAX_SITEMAP_BYTES))
    if root is None:
        return Discovered("")
    name = etree.QName(root).localname.lower()
    if name not in {"urlset", "sitemapindex"}:
        return Discovered("")
    found = Discovered("sitemap")
    target = found.urls if name == "urlset" else found.sitemaps
    for loc in root.iter("{*}loc", "loc"):
        text = (loc.text or "").strip()
        if text:
            url = urljoin(base_url, text)
            target.append(url)
            if name == "urlset" and loc.getparent() is not None:
                _sitemap_date(loc.getparent(), url, found.dates)
            if len(target) >= MAX_SITEMAP_URLS:
                break
    return found


def _sitemap_date(entry: etree._Element, url: str, dates: dict[str, ListedDate]) -> None:
    """Note a sitemap entry's news:publication_date, else its lastmod."""
    news = lastmod = None
    for child in entry.iter():
        if not isinstance(child.tag, str):
            continue
        name = etree.QName(child).localname.lower()
        if name == "publication_date" and news is None:
            news = listed_time(child.text or "")
        elif name == "lastmod" and lastmod is None:
            lastmod = listed_time(child.text or "")
    if news is not None:
        dates[url] = ListedDate(news, published=True)
    elif lastmod is not None:
        dates[url] = ListedDate(lastmod, published=False)


def parse_feed(body: bytes, base_url: str) -> Discovered:
    """Return the item URLs of an RSS 2.0, RSS 1.0 (RDF) or Atom feed, with their words."""
    root = _xml_root(_inflate(body, MAX_SITEMAP_BYTES))
    if root is None:
        return Discovered("")
    name = etree.QName(root).localname.lower()
    if name == "feed":  # Atom
        entries = root.iter("{*}entry")
        items = [(entry, _atom_entry_link(entry), _xml_base(entry, base_url)) for entry in entries]
    elif name in {"rss", "rdf"}:
        items = [(item, _rss_item_link(item), base_url) for item in root.iter("{*}item", "item")]
    else:
        return Discovered("")
    found = Discovered("feed")
    for item, href, base in items:
        if href:
            url = urljoin(base, href)
            found.urls.append(url)
            found.texts[url] = _item_words(item)
            moment = _item_date(item)
            if moment is not None:
                found.dates[url] = ListedDate(moment, published=True)
    return found


def _item_date(item: etree._Element) -> datetime | None:
    """Return when a feed item says it was published (pubDate, dc:date, Atom's published,
    else updated), or None."""
    raws: dict[str, str] = {}
    for child in item:
        if isinstance(child.tag, str):
            name = etree.QName(child).localname.lower()
            raws.setdefault(name, (child.text or "").strip())
    for name in _ITEM_DATES:
        moment = listed_time(raws.get(name, ""))
        if moment is not None:
            return moment
    return None


def _item_words(item: etree._Element, limit: int = ITEM_WORDS) -> str:
    """Return a feed item's title and the start of its summary and categories, as plain text."""
    words = []
    for child in item:
        if not isinstance(child.tag, str):  # a comment or processing instruction
            continue
        name = etree.QName(child).localname.lower()
        if name in {"title", "description", "summary", "category", "subject"}:
            words.append(_plain(child.text or child.get("term") or ""))
    return " ".join(w for w in words if w)[:limit]


def _plain(text: str) -> str:
    """Return feed text without its markup (descriptions hold escaped HTML)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html_module.unescape(text))).strip()


def feed_links(html: bytes | str, base_url: str) -> list[str]:
    """Return the RSS/Atom feed URLs an HTML page announces with <link rel="alternate">."""
    data = html.encode("utf-8", "replace") if isinstance(html, str) else html
    if b"alternate" not in data.lower():
        return []
    feeds: list[str] = []
    for tag in _LINK_TAG.findall(data):
        attrs = {m[0].lower(): (m[1] or m[2] or m[3]) for m in _ATTR.findall(tag)}
        rels = attrs.get(b"rel", b"").lower().split()
        # Templates escape the "+" of the type ("application/rss&#43;xml").
        mime = html_module.unescape(attrs.get(b"type", b"").decode("ascii", "replace")).lower()
        href = attrs.get(b"href", b"").strip()
        if b"alternate" in rels and mime.strip() in FEED_TYPES and href:
            url = urljoin(base_url, html_module.unescape(href.decode("utf-8", "replace")))
            if url not in feeds:
                feeds.append(url)
    return feeds


def _atom_entry_link(entry: etree._Element) -> str:
    fallback = ""
    for link in entry.iter("{*}link"):
        rel = (link.get("rel") or "alternate").lower()
        href = (link.get("href") or "").strip()
        if rel == "alternate" and href:
            return href
        fallback = fallback or href
    return fallback


def _rss_item_link(item: etree._Element) -> str:
    for child in item:
        if etree.QName(child).localname == "link" and (child.text or "").strip():
            return (child.text or "").strip()
    for child in item:
        if etree.QName(child).localname == "guid" and (
            child.get("isPermaLink", "true").lower() == "true"
        ):
            text = (child.text or "").strip()
            if text.startswith(("http://", "https://")):
                return text
    about = item.get("{http://www.w3.org/1999/02/22-rdf-syntax-ns#}about", "")
    return about.strip()


def _xml_base(element: etree._Element, base_url: str) -> str:
    base = element.get("{http://www.w3.org/XML/1998/namespace}base")
    return urljoin(base_url, base) if base else base_url


def _xml_root(data: bytes) -> etree._Element | None:
    # No entities, no DTD loading, no network: a hostile feed cannot expand or reach out.
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, recover=True
    )
    try:
        root = etree.fromstring(data.lstrip(), parser=parser)
    except etree.XMLSyntaxError:
        return None
    return root


def _inflate(body: bytes, limit: int) -> bytes:
    """Return the body, gunzipped if it is a gzip file, refusing more than `limit` bytes."""
    if not body.startswith(b"\x1f\x8b"):
        return body
    out = io.BytesIO()
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(body)) as stream:
            while chunk := stream.read(64 * 1024):
                out.write(chunk)
                if out.tell() > limit:
                    raise DiscoveryError(f"The gzipped document inflates past {limit} bytes.")
    except (OSError, EOFError) as exc:
        raise DiscoveryError(f"Broken gzip data: {exc}") from exc
    return out.getvalue()
