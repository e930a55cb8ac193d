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
    (
        *("nav", "aside", "header", "footer", "form", "button", "label", "menu", "figure"),
        *("figcaption", "dialog"),
    )
)
# A <header> inside these is the article's own (headline, lead, byline), not the site's.
ARTICLE_TAGS = frozenset(("article", "main"))
CHROME_ROLES = frozenset(
    (
        *("navigation", "banner", "contentinfo", "complementary", "search", "menu"),
        *("menubar", "dialog", "alertdialog"),
    )
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
# Words that name the content or the page's layout when a class token starts or ends with
# one and with no chrome word ("entry-content", "container_wrap", "widget Blog",
# "elementor-widget-theme-post-content"): an element named so is a wrapper of the article,
# whatever chrome word another of its tokens holds ("container right-sidebar" is the column
# beside the sidebar, not the sidebar).
CONTENT_WORDS = frozenset(
    (
        *("content", "main", "article", "post", "entry", "story", "blog", "body", "text"),
        *("container", "wrap", "wrapper", "layout"),
    )
)
# State and layout modifiers ("has-section-nav", "no-sidebar") say nothing of the element.
_MODIFIERS = frozenset(("has", "with", "no", "is", "show", "hide", "enable", "disable"))
# Embedded posts (tweets, Instagram) quote what the article discusses: content, even when
# their class also says "social".
_EMBED_NAME = re.compile(r"embed|tweet|instagram-media", re.IGNORECASE)
_WORD_SEPARATOR = re.compile(r"[-_]+")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
# Chrome words that name chrome wherever they stand in a token ("cmplz-cookiebanner",
# "CybotCookiebotDialog", "newsletterSignup", "icaption_nonfloating", "author-box"): no
# content element is named so.
_CHROME_INSIDE = re.compile(
    r"cookie|consent|gdpr|newsletter|advertis|sponsored|caption|copyright"
    r"|author[-_]?(?:box|bio|info|section|card|profile|details)|about[-_]?(?:the[-_]?)?author",
    re.IGNORECASE,
)
SENTENCE_CHARS = 60
"""Characters (not spaces) of a block that ends like a sentence and so reads as prose."""
LINK_GAP_CHARS = 15
"""Characters outside links a link-rich block needs per link to read as prose."""
# Every character str.split() splits on (none lies above U+3000), deleted by translate.
_NO_SPACE = dict.fromkeys(code for code in range(0x3001) if chr(code).isspace())
# Sentence ends: Latin, Greek and CJK marks, closing quotes, and the full stops and question
# marks of Devanagari (danda), Arabic and Urdu, Armenian, Ethiopic and Myanmar.
_TERMINAL = frozenset(
    ".!?;:\u2026\"'\u201d\u2019\u00bb)\u3002\uff01\uff1f\u0964\u0965\u061f\u06d4\u0589\u1362\u104b"
)
_UNSPACED = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u9fff]")


class TextBlock(Protocol):
    """What is_prose reads of a block."""

    text: str
    chars: int
    link_chars: int
    words: int
    links: int


def is_prose(block: TextBlock) -> bool:
    """Say whether a block reads like running text rather than a label or a link list.

    1. Mostly link text is a link list, unless the text outside the links alone is a
       sentence or more (some sites wrap names in links with hover cards) with some words
       between each two links (a navigation box puts only separators there).
    2. Fifteen words or more are prose; eight or more, or SENTENCE_CHARS characters or
       more, if they end like a sentence (a one-sentence paragraph of Korean or German
       holds few long words).
    3. Scripts written without spaces (Chinese, Japanese, Thai) are judged by length.
    """
    words = block.words
    if block.link_chars * 3 > block.chars:
        clean = block.chars - block.link_chars
        return (
            block.link_chars * 4 <= block.chars * 3
            and words * clean >= 12 * block.chars
            and clean >= LINK_GAP_CHARS * block.links
        )
    if words >= 15:
        return True
    if words >= 8 or block.chars >= SENTENCE_CHARS:
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
    chrome = False
    for token in _CAMEL.sub(r"\1-\2", value).lower().split():
        words = _WORD_SEPARATOR.split(token.strip("-_"))
        if words[0] in _MODIFIERS:
            continue
        if (
            words[0] in CHROME_WORDS
            or words[-1] in CHROME_LAST_WORDS
            or _CHROME_INSIDE.search(token) is not None
        ):
            chrome = True
        elif words[0] in CONTENT_WORDS or words[-1] in CONTENT_WORDS:
            return False
    return chrome
