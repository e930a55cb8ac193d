"""What markup means to the analysis: block edges, weights, chrome names, prose."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Protocol

# Elements whose edges end a block of text.
BLOCK_TAGS = frozenset(
    (
        *("address", "article", "aside", "blockquote", "body", "br", "caption", "center"),
        *("dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption"),
        *("figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup"),
        *("hr", "html", "li", "main", "menu", "nav", "ol", "p", "pre", "section", "summary"),
        *("table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "legend", "button"),
        "label",
    )
)
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
# WeightIV = 2 for table- and list-related tags (the paper's TABLE, TR, TD, UL, LI, ...).
WEIGHT_IV_TAGS = frozenset(
    (
        *("table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption"),
        *("ul", "ol", "li", "dl", "dt", "dd", "menu", "dir"),
    )
)
# Elements whose subtree is site chrome rather than content.
CHROME_TAGS = frozenset(
    ("nav", "aside", "header", "footer", "form", "button", "label", "menu", "figure", "figcaption")
)
CHROME_ROLES = frozenset(
    ("navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar")
)
PAGE_TAGS = frozenset(("html", "body"))  # their classes describe the page layout
# Words that name site chrome when they start or end a class or id ("related-posts",
# "article-footer"); in the middle ("content-with-sidebar-wrp") they describe a layout.
CHROME_WORDS = frozenset(
    (
        *("nav", "navbar", "navigation", "menu", "mainmenu", "breadcrumb", "breadcrumbs"),
        *("footer", "sidebar", "share", "sharing", "social", "comment", "comments"),
        *("related", "recommended", "newsletter", "subscribe", "subscription", "promo"),
        *("advert", "advertisement", "ad", "ads", "sponsored", "cookie", "cookies"),
        *("consent", "popup", "modal", "widget", "signup", "outbrain", "taboola"),
        *("trending", "popular", "gallery", "slideshow", "carousel", "disclaimer"),
    )
)
# Words that name chrome only at the end: as a first word they label a taxonomy
# (WordPress puts "author-jane-doe" and "tag-elections" on the article itself).
CHROME_LAST_WORDS = CHROME_WORDS | frozenset(
    ("tags", "tagcloud", "byline", "author", "dateline", "timestamp", "meta", "caption", "credit")
)
# State and layout modifiers ("has-section-nav", "no-sidebar") say nothing of the element.
_MODIFIERS = frozenset(("has", "with", "no", "is", "show", "hide"))
# Embedded posts (tweets, Instagram) quote what the article discusses: content, even when
# their class also says "social".
_EMBED_NAME = re.compile(r"embed|tweet|instagram-media", re.IGNORECASE)
_WORD_SEPARATOR = re.compile(r"[-_]+")
# Every character str.split() splits on (none lies above U+3000), deleted by translate.
_NO_SPACE = dict.fromkeys(code for code in range(0x3001) if chr(code).isspace())
_TERMINAL = frozenset(".!?;:\u2026\"'\u201d\u2019\u00bb)\u3002\uff01\uff1f")
_UNSPACED = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u9fff]")


class TextBlock(Protocol):
    """What is_prose reads of a block."""

    text: str
    chars: int
    link_chars: int
    words: int


def is_prose(block: TextBlock) -> bool:
    """Say whether a block reads like running text rather than a label or a link list.

    1. Mostly link text is a link list, unless the text outside the links alone is a
       sentence or more (some sites wrap names in links with hover cards).
    2. Fifteen words or more are prose; eight or more if they end like a sentence.
    3. Scripts written without spaces (Chinese, Japanese, Thai) are judged by length.
    """
    words = block.words
    if block.link_chars * 3 > block.chars:
        clean = block.chars - block.link_chars
        return block.link_chars * 4 <= block.chars * 3 and words * clean >= 12 * block.chars
    if words >= 15:
        return True
    if words >= 8:
        return block.text[-1] in _TERMINAL
    return block.chars >= 30 and _UNSPACED.search(block.text) is not None


def non_space(text: str) -> int:
    """Count the characters of text that are not white space."""
    if len(text) < 2000:
        return len("".join(text.split()))
    return len(text.translate(_NO_SPACE))  # no list of words for a long text node


@lru_cache(maxsize=8192)
def names_chrome(value: str) -> bool:
    """Say whether a class or id value names site chrome (cached: sites repeat them)."""
    if _EMBED_NAME.search(value):
        return False
    for token in value.lower().split():
        words = _WORD_SEPARATOR.split(token.strip("-_"))
        if words[0] in _MODIFIERS:
            continue
        if words[0] in CHROME_WORDS or words[-1] in CHROME_LAST_WORDS:
            return True
    return False
