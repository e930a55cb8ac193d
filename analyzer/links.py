"""Resolve the page's links against its URL and <base href>."""

from __future__ import annotations

import contextlib
import re
from urllib.parse import urldefrag, urljoin, urlsplit

CONTEXT_CHARS = 300
"""Longest link context kept (the text of the block holding the link)."""
_CRAWLABLE = frozenset({"http", "https"})
# An absolute URL urljoin would return unchanged: no dot segments, no spaces or controls.
_PLAIN_URL = re.compile(r"https?://[^\s/?#]+(?:[/?#][^\s]*)?")
_PLAIN_PATH = re.compile(r"/[^\s\\]*")
_DOT_SEGMENT = re.compile(r"/\.{1,2}(?:/|$|[?#])")


class Resolver:
    """Turn hrefs into absolute, fragment-free URLs for one page."""

    def __init__(self, url: str | None, base_href: str | None) -> None:
        base = url or ""
        if base_href:
            with contextlib.suppress(ValueError):  # a malformed <base href> is ignored
                base = urljoin(base, base_href.strip())
        self.base = base
        self.page = _plain(url) if url else None
        self._cache: dict[str, str | None] = {}
        try:
            parts = urlsplit(base)
        except ValueError:
            parts = urlsplit("")
        # For hrefs like "/news/1": urljoin gives the origin plus the href.
        self._origin = f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else None

    def resolve(self, href: str) -> str | None:
        """Return the absolute URL of an href, or None if it leads to no other page.

        None for javascript:, mailto:, data: and other non-HTTP schemes, for fragment-only
        links ("#top"), and for hrefs too malformed to parse. Without a page URL or base,
        relative hrefs stay relative.
        """
        if href in self._cache:
            return self._cache[href]
        resolved = self._resolve(href)
        self._cache[href] = resolved
        return resolved

    def is_same_page(self, href: str) -> bool:
        """Say whether an href points back at the page itself."""
        resolved = self.resolve(href)
        return resolved is not None and resolved.rstrip("/") == self.page

    def _resolve(self, href: str) -> str | None:
        """Resolve one href (uncached)."""
        href = href.strip()
        if not href or href.startswith("#"):
            return None
        if (
            href.startswith(("https://", "http://"))
            and _PLAIN_URL.fullmatch(href)
            and not _DOT_SEGMENT.search(href)
        ):
            return href.split("#", 1)[0]  # most hrefs are absolute: skip urljoin's work
        if (
            self._origin is not None
            and href.startswith("/")
            and not href.startswith("//")
            and _PLAIN_PATH.fullmatch(href)
            and not _DOT_SEGMENT.search(href)
        ):
            return self._origin + href.split("#", 1)[0]
        try:
            absolute = urldefrag(urljoin(self.base, href))[0]
            scheme = urlsplit(absolute).scheme.lower()
        except ValueError:
            return None
        if scheme and scheme not in _CRAWLABLE:
            return None
        if not scheme and ":" in href.split("/", 1)[0]:
            return None  # "javascript:..." with no base to resolve against
        return absolute or None


def _plain(url: str) -> str:
    """Return a URL without fragment and trailing slash, for comparing pages."""
    try:
        return urldefrag(url)[0].rstrip("/")
    except ValueError:
        return url
