"""Decide, page by page, whether fetched HTML needs a browser, and why.

A page needs Chromium when what a reader sees is made by its scripts:

- a script shell: scripts and almost no visible text (`needs_rendering`);
- inline state: little text beside a large JSON state a script turns into the page
  (`__NEXT_DATA__`, `window.__INITIAL_STATE__ = {...}`, `<script type="application/json">`);
- a "Load more" control: the list shows its first items only;
- a script list: an empty list container that names where its items come from
  (`data-src`, `data-api`, `data-endpoint`, `data-url`, `data-feed`) or is named as a list
  (`id="stories"`, `class="feed"`) outside the page's header, navigation and footer;
- a script menu: an empty container in the page's navigation that scripts fill.

A script menu is the same on every page of a site, so a run renders it once per menu
(`RenderMemory`); the other reasons belong to the page and are rendered each time.
"""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

# Text inside these never shows as page text.
_INVISIBLE = ("script", "style", "noscript", "template")
DEFAULT_MIN_TEXT = 200  # characters of visible text below which a scripted page is a shell
STATE_MIN_BYTES = 2000  # an inline script this large holding JSON is the page's state
STATE_MAX_TEXT = 1500  # ... when the page shows less text than this

SHELL = "script shell"
INLINE_STATE = "inline state"
LOAD_MORE = "load more"
SCRIPT_LIST = "script list"
SCRIPT_MENU = "script menu"
EVERY_PAGE = "every page"

_MORE = re.compile(
    r"^\s*((load|show|see|view) more|more (stories|articles|news|posts|results|items))\b", re.I
)
_STATE = re.compile(
    r"__NEXT_DATA__|__NUXT__|__INITIAL_STATE__|__PRELOADED_STATE__|__APOLLO_STATE__"
)
_SOURCE_ATTRIBUTES = ("data-src", "data-api", "data-endpoint", "data-url", "data-feed")
_NAV_WORDS = re.compile(r"menu|nav", re.I)
_LIST_TAGS = frozenset({"ul", "ol", "div", "section"})
_LIST_WORDS = re.compile(r"list|feed|stories|items|results|articles|posts|river|stream", re.I)


def needs_rendering(html: str | bytes, *, min_text: int = DEFAULT_MIN_TEXT) -> bool:
    """Tell whether `html` has scripts and less than `min_text` characters of visible text."""
    doc = _parse(html)
    return doc is not None and _has_scripts(doc) and len(_visible_text(doc)) < min_text


def render_reason(html: str | bytes, *, min_text: int = DEFAULT_MIN_TEXT) -> tuple[str, str]:
    """Return why a page needs a browser ("" if it does not) and what identifies the reason.

    The key names a script menu by its containers and scripts, so that a run renders one
    page per menu; for the other reasons it is "".
    """
    doc = _parse(html)
    if doc is None or not _has_scripts(doc):
        return "", ""
    scripts = doc.xpath("//script")
    state = max((len(s.text or "") for s in scripts if _is_state(s)), default=0)
    sources = sorted(s.get("src") or "" for s in scripts)
    text = _visible_text(doc)
    if len(text) < min_text:
        return SHELL, ""
    if state >= STATE_MIN_BYTES and len(text) < STATE_MAX_TEXT:
        return INLINE_STATE, ""
    for control in doc.xpath("//button | //*[@role='button'] | //a[not(@href) or @href='#']"):
        if _MORE.match(" ".join(control.text_content().split())):
            return LOAD_MORE, ""
    for node in doc.xpath("//*[" + " or ".join(f"@{a}" for a in _SOURCE_ATTRIBUTES) + "]"):
        if node.tag not in {"script", "img", "iframe", "source", "video", "audio"} and _empty(node):
            return SCRIPT_LIST, ""
    outside = "//body//*[not(ancestor-or-self::header or ancestor-or-self::nav or ancestor-or-self::footer)]"
    for node in doc.xpath(outside):
        if node.tag in _LIST_TAGS and _empty(node) and _LIST_WORDS.search(_names(node)):
            return SCRIPT_LIST, ""
    menus = [node for node in doc.xpath("//nav//* | //header//*") if _empty_menu(node)]
    if menus:
        names = sorted(f"{n.tag}#{n.get('id') or ''}.{n.get('class') or ''}" for n in menus)
        return SCRIPT_MENU, "|".join(names + sources)
    return "", ""


class RenderMemory:
    """One run's render decisions: every page that needs a browser, each script menu once."""

    every = False  # render every page whatever it holds (for comparisons: the old rule)

    def __init__(self) -> None:
        self.menus: set[str] = set()

    def decide(self, html: str | bytes) -> str:
        """Return why this page should be rendered now, "" when it need not be."""
        if self.every:
            return EVERY_PAGE
        reason, key = render_reason(html)
        if reason == SCRIPT_MENU:
            if key in self.menus:
                return ""
            self.menus.add(key)
        return reason


def _parse(html: str | bytes) -> lxml.html.HtmlElement | None:
    if isinstance(html, str):
        # lxml refuses str input that carries an XML encoding declaration.
        html = html.encode("utf-8", "surrogatepass")
    if not html.strip():
        return None
    try:
        return lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return None


def _has_scripts(doc: lxml.html.HtmlElement) -> bool:
    return bool(doc.xpath("//script[@src or normalize-space()]"))


def _visible_text(doc: lxml.html.HtmlElement) -> str:
    """Return the page's visible text (scripts, styles and templates are taken out of `doc`)."""
    body = doc.find("body")
    root = body if body is not None else doc
    etree.strip_elements(root, *_INVISIBLE, with_tail=False)
    return " ".join(root.text_content().split())


def _is_state(script: etree._Element) -> bool:
    kind = (script.get("type") or "").lower()
    body = (script.text or "").lstrip()
    return kind == "application/json" or bool(
        _STATE.search(script.get("id") or "") or _STATE.search(body[:200])
    )


def _empty(node: etree._Element) -> bool:
    return len(node) == 0 and not (node.text or "").strip()


def _names(node: etree._Element) -> str:
    return f"{node.get('id') or ''} {node.get('class') or ''}"


def _empty_menu(node: etree._Element) -> bool:
    """Tell whether a navigation element is an empty container named as a menu."""
    if node.tag not in {"div", "ul", "ol", "nav", "span", "section"} or not _empty(node):
        return False
    return bool(_NAV_WORDS.search(f"{node.get('id') or ''} {node.get('class') or ''}")) or (
        node.tag in {"ul", "ol"}
    )
