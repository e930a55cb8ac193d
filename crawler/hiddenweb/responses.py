"""Response analysis: telling "no results" pages from result pages (He et al. section 6).

The crawler sends a form intentionally nonsensical queries and keeps the content signature
of what comes back: that is what this site's "no results" page looks like. A later result
page whose signature is at least `threshold` similar (0.85 in the paper: precision 0.89,
recall 0.9) to a probe's is empty.

A signature is the set of word pairs of the page's text outside its boilerplate, where
boilerplate is every text block the form's own page also shows (header, menus, footer):
HiWE's "significant portion" of the page, found without a layout. The query's own words
become one placeholder (however many words the query has), so "No results for xqzv qvbn"
and "No results for cheese" compare equal;
numbers become 0, so "0 results" and "1 results" differ only in the words around them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass

from lxml import etree

from analyzer.text import tokenize
from crawler.sitesearch.analysis import FormParseError, parse_html

_INVISIBLE = frozenset({"script", "style", "noscript", "template", "head"})
_SPACES = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")
# The query's words in a signature (never a token itself: tokens are letters and digits).
QUERY_TOKEN = "{q}"  # noqa: S105 (not a password)
_CONSONANTS = "bcdfghjklmnpqrstvwxz"


def text_blocks(html: str | bytes, url: str = "about:blank") -> list[str]:
    """Return the page's visible text nodes, whitespace collapsed, in document order."""
    try:
        doc = parse_html(html, url)
    except FormParseError:
        return []
    blocks: list[str] = []
    body = doc.find("body")
    _walk(body if body is not None else doc, blocks)
    return blocks


def _walk(node: etree._Element, blocks: list[str]) -> None:
    """Append a node's visible text pieces in document order (text, children, then tails)."""
    if isinstance(node.tag, str) and node.tag not in _INVISIBLE:
        _add(node.text, blocks)
        for child in node:
            _walk(child, blocks)
            _add(child.tail, blocks)


def _add(piece: str | None, blocks: list[str]) -> None:
    text = _SPACES.sub(" ", piece or "").strip()
    if text:
        blocks.append(text)


def boilerplate(html: str | bytes, url: str = "about:blank") -> frozenset[str]:
    """Return the text blocks of a site page that result pages repeat around their content."""
    return frozenset(text_blocks(html, url))


def signature(
    html: str | bytes,
    *,
    query: str = "",
    common: frozenset[str] = frozenset(),
    url: str = "about:blank",
) -> frozenset[str]:
    """Return the content signature of a response page (word pairs outside the boilerplate)."""
    query_tokens = set(tokenize(query))
    tokens: list[str] = []
    for block in text_blocks(html, url):
        if block in common:
            continue
        for token in tokenize(block):
            if token in query_tokens:
                if tokens and tokens[-1] == QUERY_TOKEN:
                    continue  # a query of any length is one placeholder
                token = QUERY_TOKEN
            tokens.append(_DIGITS.sub("0", token))
    if len(tokens) < 2:
        return frozenset(tokens)
    return frozenset(f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False))


def similarity(first: frozenset[str], second: frozenset[str]) -> float:
    """Return the Jaccard similarity of two signatures (1.0 for two empty ones)."""
    if not first and not second:
        return 1.0
    return len(first & second) / len(first | second)


def nonsense_queries(count: int, rng: random.Random | None = None) -> list[str]:
    """Return `count` queries no site holds: two consonant-only words each."""
    rng = rng or random.Random()  # noqa: S311 (not a secret, only unlikely)
    return [
        " ".join("".join(rng.choice(_CONSONANTS) for _ in range(9)) for _ in range(2))
        for _ in range(count)
    ]


@dataclass(frozen=True)
class EmptyPageModel:
    """What a site's "no results" page looks like, learnt from nonsensical probes."""

    signatures: tuple[frozenset[str], ...]
    threshold: float = 0.85

    def closeness(self, page: frozenset[str]) -> float:
        """Return the highest similarity of `page` to a probe's page (0.0 without probes)."""
        return max((similarity(page, probe) for probe in self.signatures), default=0.0)

    def is_empty(self, page: frozenset[str]) -> bool:
        """Tell whether a result page is as good as the site's "no results" page."""
        return bool(self.signatures) and self.closeness(page) >= self.threshold

    def to_json(self) -> list[list[str]]:
        """Return the probe signatures as JSON-ready sorted lists."""
        return [sorted(s) for s in self.signatures]

    @classmethod
    def from_json(cls, data: Iterable[Iterable[str]], threshold: float) -> EmptyPageModel:
        """Rebuild a model stored with `to_json`."""
        return cls(tuple(frozenset(s) for s in data or []), threshold)
