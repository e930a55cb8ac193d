"""Find when a page says its article was published: metadata first, else nothing.

Sources, most trusted first: Open Graph / article meta tags and the common news meta names,
schema.org microdata (itemprop="datePublished"), JSON-LD datePublished, and a <time> element
marked as the publication date. A loose date anywhere in the text is never taken: sidebars,
comments and "related" boxes carry dates of other stories.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import lxml.html
from dateutil import parser as dateparser
from lxml import etree

_META_NAMES = (
    "article:published_time",
    "og:published_time",
    "og:article:published_time",
    "datepublished",
    "date.published",
    "pubdate",
    "publishdate",
    "publish-date",
    "publication_date",
    "sailthru.date",
    "parsely-pub-date",
    "dc.date.issued",
    "dcterms.issued",
    "dc.date",
    "dcterms.created",
    "date",
)
# A date before this is a parsing accident, not a news article.
_EARLIEST = datetime(1990, 1, 1, tzinfo=UTC)
# Pages in time zones ahead of ours may look a few hours early; more than a day is wrong.
_FUTURE_SLACK = timedelta(days=1)
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


# A page declaring more candidates than this is not read further.
MAX_CANDIDATES = 8


def declared_times(html: bytes | str) -> tuple[datetime, ...]:
    """Return the publication times a page declares, most trusted first (UTC, none before
    1990)."""
    try:
        root = lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return ()
    found: list[datetime] = []
    for raw in _candidates(root):
        moment = _parse(raw)
        if moment is not None and moment >= _EARLIEST:
            found.append(moment)
            if len(found) >= MAX_CANDIDATES:
                break
    return tuple(found)


def trusted_time(declared: tuple[datetime, ...], *, seen_at: datetime) -> datetime | None:
    """Return the most trusted declared time that is not after `seen_at` (a day's slack for
    time zones ahead of ours), or None."""
    return next((moment for moment in declared if moment <= seen_at + _FUTURE_SLACK), None)


def published_time(html: bytes | str, *, seen_at: datetime) -> datetime | None:
    """Return the publication time a page declares, or None if it declares none we trust."""
    return trusted_time(declared_times(html), seen_at=seen_at)


def _candidates(root: lxml.html.HtmlElement) -> Iterator[str]:
    """Yield raw date strings in order of trust."""
    metas: dict[str, str] = {}
    for meta in root.iter("meta"):
        key = (meta.get("property") or meta.get("name") or meta.get("itemprop") or "").lower()
        content = (meta.get("content") or "").strip()
        if key and content:
            metas.setdefault(key.strip(), content)
    for name in _META_NAMES:
        if name in metas:
            yield metas[name]
    for element in root.xpath('//*[@itemprop="datePublished"]'):
        yield element.get("datetime") or element.get("content") or element.text_content()
    for script in root.xpath('//script[@type="application/ld+json"]'):
        try:
            data = json.loads(script.text_content())
        except ValueError:
            continue
        yield from _json_ld_dates(data)
    for element in root.xpath("//time[@pubdate]"):
        yield element.get("datetime") or element.text_content()


def _json_ld_dates(data: object, depth: int = 0) -> Iterator[str]:
    """Yield every datePublished in a JSON-LD document (objects, lists and @graph)."""
    if depth > 5:
        return
    if isinstance(data, list):
        for item in data:
            yield from _json_ld_dates(item, depth + 1)
    elif isinstance(data, dict):
        value = data.get("datePublished")
        if isinstance(value, str):
            yield value
        for key in ("@graph", "mainEntity", "mainEntityOfPage"):
            if key in data:
                yield from _json_ld_dates(data[key], depth + 1)


def _parse(raw: str) -> datetime | None:
    """Return an aware datetime (UTC when the page gives no zone), or None."""
    text = raw.strip()[:100]
    if not text:
        return None
    moment: datetime
    try:
        moment = dateparser.isoparse(text)
    except (ValueError, OverflowError):
        if not _YEAR.search(text):
            return None  # "Tuesday" or "3 March" would be read as a date near today
        try:
            moment = dateparser.parse(text)
        except (ValueError, OverflowError, dateparser.ParserError):
            return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
