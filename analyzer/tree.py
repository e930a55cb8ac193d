"""Build the page's tag tree: beautifulsoup4 on the lxml parser, trimmed to what carries text.

BeautifulSoup's stock lxml builder spends most of its time on namespaces, multi-valued
attributes and comments that an HTML page analysis never reads, and it parses without
libxml2's huge_tree option, so a text node over 10 MB or nesting deeper than 255 silently
loses the rest of the page. `parse` uses a builder that:

1. parses with huge_tree, so deep and long pages keep all their text;
2. drops script, style, noscript, template, svg, iframe, form widgets and media with their
   content (they carry no text a reader sees), void elements without text (img, input,
   link...), and in <head> all but title, base and meta; elements hidden by the `hidden`
   attribute or an inline `display:none` stay as empty elements;
3. drops comments, processing instructions and the doctype;
4. drops white space next to block-level edges, where it cannot separate words;
5. keeps only the attributes the analysis reads (KEPT_ATTRIBUTES);
6. refuses pages beyond settings.MAX_DEPTH or settings.MAX_NODES as soon as it sees them.

Element paths stay those of the full DOM for every element kept: a dropped element is never
a same-name sibling of a kept one (dropped names are never kept anywhere).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from typing import Any

from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning
from bs4.builder._lxml import LXMLTreeBuilder
from lxml import etree

from analyzer import settings
from analyzer.errors import PageTooComplexError, PageTooDeepError

# bs4 warns when a short document looks like a URL or a file name; to the analyzer any
# string is a page.
warnings.filterwarnings("ignore", category=MarkupResemblesLocatorWarning)

# Elements dropped with everything inside them: they carry no text a reader sees.
SILENT_TAGS = frozenset(
    (
        *("script", "style", "noscript", "template", "svg", "math", "iframe", "object"),
        *("embed", "canvas", "select", "textarea", "datalist", "video", "audio", "picture"),
        "map",
    )
)
# Void elements with no text and no role in the analysis, dropped to save time.
VOID_TAGS = frozenset(("img", "input", "source", "track", "link", "param", "wbr", "col", "area"))
# Elements whose edges separate text anyway: white space next to them is dropped.
BOUNDARY_TAGS = frozenset(
    (
        *("address", "article", "aside", "blockquote", "body", "br", "caption", "center"),
        *("dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption"),
        *("figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header"),
        *("hgroup", "hr", "html", "li", "main", "menu", "nav", "ol", "p", "pre", "section"),
        *("summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "legend"),
        *("title", "meta", "base"),
    )
)
HEAD_TAGS = frozenset(("title", "base", "meta"))
KEPT_ATTRIBUTES = frozenset(
    (
        *("class", "id", "style", "href", "rel", "lang", "role", "itemprop", "name"),
        *("property", "content", "charset", "http-equiv", "aria-label"),
    )
)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


class _TagTreeBuilder(LXMLTreeBuilder):
    """Feed lxml's parse events into BeautifulSoup, skipping what carries no text."""

    def __init__(self) -> None:
        super().__init__(multi_valued_attributes=None, huge_tree=True, attribute_dict_class=dict)
        self._silent = 0  # > 0 while inside an element that is dropped
        self._depth = 0
        self._nodes = 0
        self._in_head = False
        self._hidden_open = False
        self._space: str | None = None  # white space waiting to see what follows it
        self._after_boundary = True

    def prepare_markup(self, markup: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        """Hand the already decoded text to lxml as it is."""
        yield markup, None, None, False

    def parser_for(self, encoding: Any) -> Any:
        """Return an HTML parser that keeps huge text nodes and deep trees."""
        return etree.HTMLParser(
            target=self,
            recover=True,
            huge_tree=True,
            remove_comments=True,
            remove_pis=True,
            no_network=True,
        )

    def start(self, tag: Any, attrib: Any, nsmap: Any = None) -> None:
        """Open an element, unless it is dropped or sits inside a dropped one."""
        if self._silent:
            self._silent += 1
            return
        if tag in SILENT_TAGS or tag in VOID_TAGS or (self._in_head and tag not in HEAD_TAGS):
            self._silent = 1
            return
        self._depth += 1
        self._nodes += 1
        if self._depth > settings.MAX_DEPTH:
            raise PageTooDeepError(
                f"elements nest deeper than MAX_DEPTH ({settings.MAX_DEPTH}); page refused"
            )
        if self._nodes > settings.MAX_NODES:
            raise PageTooComplexError(
                f"page has more than MAX_NODES ({settings.MAX_NODES}) elements; page refused"
            )
        if tag == "head":
            self._in_head = True
        self._boundary(tag)
        kept = {key: value for key, value in attrib.items() if key in KEPT_ATTRIBUTES}
        self.soup.handle_starttag(tag, None, None, kept)  # type: ignore[union-attr]
        if "hidden" in attrib or _hidden_by_style(attrib.get("style")):
            # Kept as an empty element, so that the paths of its siblings stay true.
            self._silent = 1
            self._hidden_open = True

    def end(self, tag: Any) -> None:
        """Close an element."""
        if self._silent:
            self._silent -= 1
            if self._silent or not self._hidden_open:
                return
            self._hidden_open = False
        self._depth -= 1
        if tag == "head":
            self._in_head = False
        self._boundary(tag)
        self.soup.handle_endtag(tag)  # type: ignore[union-attr]

    def data(self, data: Any) -> None:
        """Collect text outside dropped elements; hold back white space."""
        if self._silent:
            return
        if data.isspace():
            self._space = data
            return
        current = self.soup.current_data  # type: ignore[union-attr]
        if self._space is not None:
            current.append(" ")
            self._space = None
        current.append(data)
        self._after_boundary = False

    def _boundary(self, tag: str) -> None:
        """Keep held-back white space only between two inline edges, where it parts words."""
        if self._space is not None:
            if not (self._after_boundary or tag in BOUNDARY_TAGS):
                self.soup.current_data.append(" ")  # type: ignore[union-attr]
            self._space = None
        self._after_boundary = tag in BOUNDARY_TAGS

    def comment(self, text: Any) -> None:
        """Drop comments: they carry no text."""

    def doctype(self, name: Any, pubid: Any, system: Any) -> None:
        """Drop the doctype."""

    def pi(self, target: Any, data: Any) -> None:
        """Drop processing instructions."""


def _hidden_by_style(style: str | None) -> bool:
    """Say whether an inline style hides the element."""
    return style is not None and _HIDDEN_STYLE.search(style) is not None


def parse(text: str) -> BeautifulSoup:
    """Return the tag tree of decoded HTML text."""
    return BeautifulSoup(text, builder=_TagTreeBuilder())
