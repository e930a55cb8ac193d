"""What a focused strategy reads of a new page beside its analysis: the list item around
each of its links, and the stems of its words.

Plain functions of a body and its analysis, without Django: `read_page` runs in the
analysing process that has just analysed the page (`analyzer.isolation`), under its memory
and time caps, so the crawl process that stores pages spends none of its time on them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import lxml.html
from lxml import etree

from analyzer.text import stems, tokenize
from crawler.canonical import canonicalize, mapped, url_shape

ITEM_CHARS = 600
MAX_ITEM_LEVELS = 6  # an item is a few elements around its link, never the page
MIN_ITEM_STEPS = 4  # "html/body/div" is the page, not an item
# Links whose canonical form an analysing process remembers: the pages of a site it reads
# one after another repeat their menus, tags and pagers.
_LINKS_KEPT = 20_000
_canonical_links: dict[str, str] = {}


@dataclass(frozen=True)
class PageWords:
    """The stems of an analysed page's words, read once for every judgement made of it."""

    informational: frozenset[str]  # informational areas, teasers excluded: the validator's
    shown: frozenset[str]  # the title and every informational area: the topic affinity's


@dataclass(frozen=True)
class Reading:
    """What `read_page` read of a new page as it arrived."""

    items: dict[str, str]  # per canonical link target, its list item's text
    words: PageWords


def read_page(
    body: bytes, url: str, analysis: Any, aliases: dict[str, str], language: str
) -> Reading:
    """Return the list items around a page's links (URLs canonical, on the served origin
    when `aliases` maps their production origin) and the stems of its words in `language`."""

    def canonical(link: str) -> str:
        found = _canonical_links.get(link)
        if found is None:
            found = canonicalize(link)
            if len(_canonical_links) >= _LINKS_KEPT:
                _canonical_links.clear()  # only time is lost
            _canonical_links[link] = found
        return mapped(found, aliases)

    return Reading(dom_item_texts(body, url, canonical), page_words(analysis, language))


def page_words(analysis: Any, language: str) -> PageWords:
    """Return the stems of the page's informational areas, without and with title and teasers.

    Each distinct token is stemmed once: the judgements count each stem once.
    """
    own: set[str] = set()
    others: set[str] = set(tokenize(analysis.title or ""))
    for area in analysis.informational_areas:
        (others if area.teaser else own).update(tokenize(area.text))
    informational = frozenset(stems(list(own), language))
    return PageWords(informational, informational | frozenset(stems(list(others), language)))


def dom_item_texts(
    body: bytes,
    base: str,
    canonical: Callable[[str], str],
    wanted: Callable[[str], bool] = lambda url: True,
) -> dict[str, str]:
    """Return, per canonical link target, the text of the list item(s) holding it, from the DOM.

    As `crawler.strategies.xcrawl.evidence.item_texts`, with every word of the item (a
    category label printed as plain text, an excerpt), not only the words of its links;
    only for the targets `wanted` admits (pages not fetched yet), climbing at most
    `MAX_ITEM_LEVELS` elements.
    """
    try:
        root = lxml.html.fromstring(body)
    except (etree.ParserError, ValueError):
        return {}
    anchors = []
    below: dict[tuple[Any, str], set[str]] = {}
    for anchor in root.iter("a"):
        href = anchor.get("href")
        if not href or href.startswith(("#", "javascript:", "mailto:")):
            continue
        try:
            url = canonical(urljoin(base, href.strip()))
        except ValueError:
            continue
        shape = url_shape(url)
        ancestors = list(anchor.iterancestors())
        anchors.append((anchor, url, shape, ancestors))
        for element in ancestors:
            below.setdefault((element, shape), set()).add(url)
    items: dict[str, list[str]] = {}
    texts: dict[Any, str] = {}
    for anchor, url, shape, ancestors in anchors:
        if not wanted(url):
            continue
        item = anchor
        top = min(MAX_ITEM_LEVELS, max(0, len(ancestors) - MIN_ITEM_STEPS + 1))
        for element in ancestors[:top]:
            if below[(element, shape)] - {url}:
                break
            item = element
        if item not in texts:
            texts[item] = " ".join(" ".join(item.itertext()).split())[:ITEM_CHARS]
        items.setdefault(url, []).append(texts[item])
    return {url: " ".join(dict.fromkeys(texts)) for url, texts in items.items()}
