"""Find when a page says its article was published: metadata first, then its byline and URL.

Sources, most trusted first: Open Graph / article meta tags and the common news meta names,
schema.org microdata (itemprop="datePublished"), JSON-LD datePublished, a <time> element
marked as the publication date, then the article's byline (a <time datetime> or a written
date with its year inside the article's first byline, dateline or "published" element, or
in an element of class "byline" anywhere), then a date in the page's URL path (/2016/11/21/, /2016-11-21-). A loose date
anywhere else in the text is never taken: sidebars, comments and "related" boxes carry dates
of other stories.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

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
_FIRST_OF_YEAR = datetime(2000, 1, 1)
# Pages in time zones ahead of ours may look a few hours early; more than a day is wrong.
_FUTURE_SLACK = timedelta(days=1)
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
# Class or id words of the element that holds an article's byline or date line.
_BYLINE = re.compile(
    r"\b(?:byline|dateline|date|published|pubdate|posted-on|post-date|entry-date|timestamp)\b",
    re.IGNORECASE,
)
_BYLINE_XPATH = (
    "(//article | //*[@role='article'])//*[@class or @id]"
    " | //*[contains(concat(' ', normalize-space(@class), ' '), ' byline ')]"
)
_URL_DATE = re.compile(
    r"/((?:19|20)\d\d)[/-](0?[1-9]|1[0-2])[/-](0?[1-9]|[12]\d|3[01])(?=[/-]|$|\.)"
)


# A page declaring more candidates than this is not read further.
MAX_CANDIDATES = 8


def declared_times(html: bytes | str, url: str | None = None) -> tuple[datetime, ...]:
    """Return the publication times a page declares, most trusted first (UTC, none before
    1990); url, when given, adds the date its path spells as the least trusted."""
    try:
        root = lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        root = None
    found: list[datetime] = []
    raws = _candidates(root) if root is not None else iter(())
    for raw in itertools.chain(raws, _url_dates(url)):
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


def published_time(
    html: bytes | str, *, seen_at: datetime, url: str | None = None
) -> datetime | None:
    """Return the publication time a page declares, or None if it declares none we trust."""
    return trusted_time(declared_times(html, url), seen_at=seen_at)


def listed_time(raw: str) -> datetime | None:
    """Return the time a feed or sitemap writes (RFC 822 or ISO 8601), in UTC, or None when it
    is empty, unreadable, without a year, or before 1990."""
    moment = _parse(raw)
    return moment if moment is not None and moment >= _EARLIEST else None


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
    byline = _byline(root)
    if byline is not None:
        yield from _byline_dates(byline)


def _byline(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement | None:
    """Return the article's first byline or date-line element, or None."""
    for element in root.xpath(_BYLINE_XPATH):
        words = f"{element.get('class') or ''} {element.get('id') or ''}"
        if _BYLINE.search(words.replace("_", "-")):
            return element
    return None


def _byline_dates(byline: lxml.html.HtmlElement) -> Iterator[str]:
    """Yield the byline's <time datetime> values, then its own text if it names a year."""
    times = byline.xpath("descendant-or-self::time[@datetime]")
    for element in times:
        yield element.get("datetime")
    text = " ".join(byline.text_content().split())[:200]
    if times or not _YEAR.search(text):
        return
    for part in re.split(r"\s[·|•–—]\s|\bby\b", text, flags=re.IGNORECASE):
        if _YEAR.search(part):
            yield _Written(part)


class _Written(str):
    """A date as a byline writes it ("Updated 21 November 2016, 10:00"): read fuzzily, a
    missing month or day taken as the first."""


def _url_dates(url: str | None) -> Iterator[str]:
    """Yield the date a URL's path spells (/2016/11/21/), if any."""
    if not url:
        return
    found = _URL_DATE.search(urlsplit(url).path)
    if found:
        year, month, day = found.groups()
        yield f"{year}-{int(month):02d}-{int(day):02d}"


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
            if isinstance(raw, _Written):
                moment = dateparser.parse(text, fuzzy=True, default=_FIRST_OF_YEAR)
            else:
                moment = dateparser.parse(text)
        except (ValueError, OverflowError, dateparser.ParserError):
            return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
