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

On a site not marked as needing a browser, a page is rendered by what its scripts may add
(`script_additions`: an inline script that inserts elements into a menu, a list or the
navigation, a script loading JSON, a "Load more" control), to compare the links of the DOM
after load with those of the served HTML. Within `PROBE_BUDGET` pages a run, one page of
each URL shape is probed, and one page of each script the site repeats on every page (its
menu); a shape whose page's own scripts added links no page rendered before had added is
learnt as needing the browser (`RenderMemory.compare`), and the run keeps it for later runs
of the site (`crawler.models.SiteLesson`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from html import unescape
from urllib.parse import urljoin, urlsplit

import lxml.html
from lxml import etree

from crawler.canonical import url_shape

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
SCRIPT_NAVIGATION = "script adds to the navigation"
SCRIPT_JSON = "script loads JSON"
LEARNT_SHAPE = "shape learnt to need it"
PROBE_BUDGET = 8  # pages a run renders to learn whether their shape's scripts add links
# A page larger than this is not parsed to probe its scripts: the probe runs in the crawl's
# own thread, outside the analysing processes' memory and time caps.
PROBE_MAX_BYTES = 1024 * 1024
ADDED_KEPT = 20  # links added by scripts named in a lesson's example

# An inline script that builds elements ...
_INSERTS = re.compile(
    r"appendChild|insertAdjacentHTML|insertBefore|\.innerHTML\s*\+?=|\.(?:append|prepend|after|before)\s*\("
)
# ... into the page's navigation, a menu or a list, or that loads data to build them from.
_PLACES = re.compile(r"nav|menu|[\"'](?:ul|ol|li)[\"']|list|items|links|section", re.I)
_LOADS = re.compile(r"\bfetch\s*\(|XMLHttpRequest|getJSON|\.json\s*\(\)|\$\.ajax", re.I)
_HREF = re.compile(rb"<a\b[^>]*?\bhref\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.I)

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
    listed = _page_lists(doc)
    if listed:
        return listed, ""
    menus = [node for node in doc.xpath("//nav//* | //header//*") if _empty_menu(node)]
    if menus:
        names = sorted(f"{n.tag}#{n.get('id') or ''}.{n.get('class') or ''}" for n in menus)
        return SCRIPT_MENU, "|".join(names + sources)
    return "", ""


def _page_lists(doc: lxml.html.HtmlElement) -> str:
    """Return LOAD_MORE or SCRIPT_LIST when the page shows a list its scripts grow or fill."""
    for control in doc.xpath("//button | //*[@role='button'] | //a[not(@href) or @href='#']"):
        if _MORE.match(" ".join(control.text_content().split())):
            return LOAD_MORE
    for node in doc.xpath("//*[" + " or ".join(f"@{a}" for a in _SOURCE_ATTRIBUTES) + "]"):
        if node.tag not in {"script", "img", "iframe", "source", "video", "audio"} and _empty(node):
            return SCRIPT_LIST
    outside = "//body//*[not(ancestor-or-self::header or ancestor-or-self::nav or ancestor-or-self::footer)]"
    for node in doc.xpath(outside):
        if node.tag in _LIST_TAGS and _empty(node) and _LIST_WORDS.search(_names(node)):
            return SCRIPT_LIST
    return ""


def script_additions(html: str | bytes) -> tuple[str, str]:
    """Return what a page's scripts may add to it that its HTML lacks ("" when nothing), and
    the key of a script the site repeats on every page ("" for what belongs to the page).

    What belongs to the page first: LOAD_MORE, a "Load more" control; SCRIPT_LIST, an empty
    list a script fills; SCRIPT_JSON, an inline script loading JSON (fetch, XHR). Then
    SCRIPT_NAVIGATION: an inline script inserting elements and naming a menu, the navigation
    or a list, keyed by its code (the same menu script on every page is probed once).
    Scripts loaded from a file are not read. A page without a script tag, or larger than
    PROBE_MAX_BYTES, is not parsed at all.
    """
    data = html.encode("utf-8", "surrogatepass") if isinstance(html, str) else html
    if len(data) > PROBE_MAX_BYTES or b"<script" not in data[:PROBE_MAX_BYTES].lower():
        return "", ""
    doc = _parse(data)
    if doc is None or not _has_scripts(doc):
        return "", ""
    inline = [s.text or "" for s in doc.xpath("//script[not(@src)]") if not _is_state(s)]
    listed = _page_lists(doc)
    if listed:
        return listed, ""
    code = " ".join(inline)
    if _LOADS.search(code):
        return SCRIPT_JSON, ""
    if _INSERTS.search(code) and _PLACES.search(code):
        key = hashlib.blake2b(code.encode("utf-8", "replace"), digest_size=8).hexdigest()
        return SCRIPT_NAVIGATION, key
    if any(_empty_menu(node) for node in doc.xpath("//nav//* | //header//*")):
        return SCRIPT_MENU, "menu"
    return "", ""


def link_targets(html: bytes, base: str) -> set[str]:
    """Return the absolute targets of a page's <a href> links (fragments left out)."""
    found = set()
    for match in _HREF.finditer(html):
        raw = (match.group(1) or match.group(2) or match.group(3) or b"").decode("utf-8", "replace")
        raw = unescape(raw).strip()
        if raw and not raw.startswith(("#", "javascript:", "mailto:")):
            found.add(urljoin(base, raw.strip()).split("#", 1)[0])
    return found


class RenderMemory:
    """One run's render decisions: every page that needs a browser, each script menu once,
    and, on other sites, the URL shapes whose scripts add links (`probe`, `compare`)."""

    every = False  # render every page whatever it holds (for comparisons: the old rule)

    def __init__(self, shapes: Iterable[str] = (), *, budget: int = PROBE_BUDGET) -> None:
        self.menus: set[str] = set()
        self.shapes = set(shapes)  # shapes that need rendering (learnt before, or now)
        self.learnt: dict[str, str] = {}  # shapes learnt in this run -> why, with examples
        self.probed: set[str] = set()  # shapes and site-wide scripts probed in this run
        self.budget = budget
        self.added: set[str] = set()  # links scripts added on pages this run rendered
        self.reasons: dict[str, str] = {}  # url -> why it is being rendered

    def probe(self, url: str, html: str | bytes) -> str:
        """Return why a page of a site not marked as needing a browser is rendered now.

        A page of a shape learnt to need it is; else the first page of a shape whose scripts
        may add something (`script_additions`), while the run's probe budget lasts.
        """
        shape = url_shape(url)
        if shape in self.shapes:
            self.probed.update({shape, script_additions(html)[1]} - {""})
            return self.note(url, LEARNT_SHAPE)
        if shape in self.probed or self.budget <= 0:
            return ""
        reason, key = script_additions(html)
        if not reason or (key and key in self.probed):
            return ""
        self.probed.update({shape, key} - {""})
        self.budget -= 1
        return self.note(url, reason)

    def repeated_script(self, html: str | bytes) -> bool:
        """Tell whether what a page's scripts may add is a script of the site's every page
        that this run rendered already (a short page with the menu script is no shell)."""
        reason, key = script_additions(html)
        return reason == SCRIPT_NAVIGATION and key in self.probed

    def note(self, url: str, reason: str) -> str:
        """Remember why a page is rendered, to compare its DOM with its HTML (`compare`)."""
        self.reasons[url] = reason
        return reason

    def compare(self, url: str, served: bytes, rendered: bytes) -> set[str]:
        """Learn from a probed page's DOM after load; return the links its scripts added.

        Links that pages rendered earlier in the run already added (a menu on every page)
        teach nothing: a shape is learnt when its page adds links of its own, and a shape
        whose next page adds none of its own is no longer rendered in this run. A script of
        every page (a menu) teaches no shape: each run renders one page of it (`probe`).
        """
        shape = url_shape(url)
        added = link_targets(rendered, url) - link_targets(served, url)
        added = {link for link in added if urlsplit(link).netloc == urlsplit(url).netloc}
        own = added - self.added
        self.added |= added
        reason = self.reasons.pop(url, "")
        if reason in {SCRIPT_NAVIGATION, SCRIPT_MENU}:
            return own
        if own:
            if shape not in self.shapes:
                example = ", ".join(sorted(own)[:ADDED_KEPT])
                self.learnt[shape] = f"{reason}: {url} added {len(own)} links ({example})"
            self.shapes.add(shape)
        elif shape in self.shapes:
            self.shapes.discard(shape)
            self.learnt.pop(shape, None)
        return own

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
