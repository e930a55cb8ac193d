"""Parse HTML with lxml into a stream of element events, trimmed to what carries text.

No tree is built: `parse` wraps the decoded text in a Source, and `analyzer.walk.walk` runs
lxml's parser over it with its walker as the parser target, so the page is measured while it
is parsed (building a BeautifulSoup or lxml tree first cost more than the whole analysis).
The target between lxml and the walker (`Events`):

1. parses with huge_tree, so deep and long pages keep all their text;
2. drops script, style, noscript, template, svg, iframe, form widgets and media with their
   content (they carry no text a reader sees), void elements without text (img, input,
   link...), and in <head> all but title, base and meta; elements hidden by the `hidden`
   attribute or an inline `display:none` reach the walker as empty elements;
3. drops comments, processing instructions and the doctype;
4. refuses pages beyond settings.MAX_DEPTH or settings.MAX_NODES as soon as it sees them.

Element paths stay those of the full DOM for every element kept: a dropped element is never
a same-name sibling of a kept one (dropped names are never kept anywhere).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from lxml import etree

from analyzer import settings
from analyzer.errors import PageTooComplexError, PageTooDeepError

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
HEAD_TAGS = frozenset(("title", "base", "meta"))
_DROPPED = SILENT_TAGS | VOID_TAGS
_NO_ATTRIBUTES: dict[str, str] = {}
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


class Sink(Protocol):
    """What receives the kept elements and text, in document order."""

    def open(self, name: str, attrs: dict[str, str]) -> None:
        """An element starts."""

    def close(self, name: str) -> None:
        """The element opened last ends."""

    def text(self, data: str) -> None:
        """Text inside the element opened last."""


@dataclass(frozen=True)
class Source:
    """Decoded HTML text, ready to be parsed by `feed`."""

    text: str


def parse(text: str) -> Source:
    """Return the source of decoded HTML text (parsed when it is walked)."""
    return Source(text)


def feed(source: Source, sink: Sink) -> None:
    """Parse the source, handing the elements and text a reader sees to sink."""
    parser = etree.HTMLParser(
        target=Events(sink),
        recover=True,
        huge_tree=True,
        remove_comments=True,
        remove_pis=True,
        no_network=True,
    )
    if not source.text:
        return
    try:
        parser.feed(source.text)
        parser.close()
    except etree.XMLSyntaxError:
        return  # nothing lxml could read: an empty page


class Events:
    """lxml parser target: filter the parse events and pass the rest to a sink."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self._silent = 0  # > 0 while inside an element that is dropped
        self._depth = 0
        self._nodes = 0
        self._in_head = False
        self._hidden_open = False

    def start(self, tag: Any, attrib: Any, nsmap: Any = None) -> None:
        """Open an element, unless it is dropped or sits inside a dropped one."""
        if self._silent:
            self._silent += 1
            return
        if tag in _DROPPED or (self._in_head and tag not in HEAD_TAGS) or not isinstance(tag, str):
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
        # lxml hands each element with attributes a fresh dict, the others one shared
        # empty mapping; nothing downstream changes them.
        attrs: dict[str, str] = attrib if isinstance(attrib, dict) else _NO_ATTRIBUTES
        self.sink.open(tag, attrs)
        if attrs and ("hidden" in attrs or _hidden_by_style(attrs.get("style"))):
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
        self.sink.close(tag)

    def data(self, data: Any) -> None:
        """Pass on text outside dropped elements."""
        if not self._silent:
            self.sink.text(data)

    def comment(self, text: Any) -> None:
        """Drop comments: they carry no text."""

    def doctype(self, name: Any, pubid: Any, system: Any) -> None:
        """Drop the doctype."""

    def pi(self, target: Any, data: Any) -> None:
        """Drop processing instructions."""

    def close(self) -> None:
        """End of the page: nothing to return, the sink holds the result."""


def _hidden_by_style(style: str | None) -> bool:
    """Say whether an inline style hides the element."""
    return style is not None and _HIDDEN_STYLE.search(style) is not None
