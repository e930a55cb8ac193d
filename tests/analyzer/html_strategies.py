"""Hypothesis strategies for bad HTML, shared by the robustness tests and benchmark.

A generated document is a handful of random fragments (any nesting, unclosed and
misnested tags, entities, NUL bytes, lone surrogates, odd attributes) plus one bulky part
that makes it large: up to 10,000 repeated elements, a nest up to 900 deep, or up to
10,000 attributes on one tag. TERM is placed in visible text, or only inside <script>,
<style>, a comment and attribute values, or both, as the draw decides.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from hypothesis import strategies as st

TERM = "zqxterm"
MAX_NODES = 10_000
MAX_NEST = 900  # below analyzer.settings.MAX_DEPTH with room for the fragments

# Elements whose text a reader sees; no raw-text or dropped elements (script, title,
# textarea, select, iframe...) since those would legitimately swallow the visible term.
TAGS = (
    *("div", "p", "span", "a", "b", "i", "em", "strong", "ul", "ol", "li", "table", "tr"),
    *("td", "th", "tbody", "section", "article", "header", "footer", "nav", "aside", "main"),
    *("h1", "h2", "h3", "h4", "blockquote", "pre", "code", "small", "label", "dl", "dt", "dd"),
    *("center", "font"),
)
# No "hidden" and no "style": both may hide the element, and the term must stay visible.
ATTRIBUTE_NAMES = ("class", "id", "href", "title", "lang", "dir", "role", "data-x", "rel", "alt")
ENTITIES = (
    "&amp;",
    "&lt;",
    "&gt;",
    "&nbsp;",
    "&quot;",
    "&#0;",
    "&#x110000;",
    "&#xD800;",
    "&bogus;",
    "&",
    "&#",
    "&#x;",
    "&eacute",
    "&copy;",
)
ODD_CHARACTERS = ("\x00", "\ud800", "\udfff", "\ufffe", "\x0b", "\x1f", "\u2028", "\u200b")


@dataclass(frozen=True)
class Document:
    """A generated page and where its term is."""

    html: str
    visible: bool  # TERM sits in visible text
    hidden: bool  # TERM sits in script, style, a comment and attributes

    @property
    def nodes(self) -> int:
        """Return a rough count of its elements (start tags)."""
        return self.html.count("<") - self.html.count("</")


def words() -> st.SearchStrategy[str]:
    """Return text with escapes, entities and characters parsers stumble on."""
    plain = st.text(
        alphabet=st.characters(codec="utf-8", exclude_characters="zqx"), max_size=30
    ).map(lambda text: html.escape(text, quote=False))
    return st.lists(
        st.one_of(plain, st.sampled_from(ENTITIES), st.sampled_from(ODD_CHARACTERS)),
        max_size=6,
    ).map("".join)


def attributes() -> st.SearchStrategy[str]:
    """Return a run of attributes with escaped values."""
    pair = st.tuples(st.sampled_from(ATTRIBUTE_NAMES), words()).map(
        lambda item: f' {item[0]}="{item[1].replace(chr(34), "&quot;")}"'
    )
    return st.lists(pair, max_size=3).map("".join)


@st.composite
def element(draw: st.DrawFn, children: st.SearchStrategy[list[str]]) -> str:
    """Return one element, sometimes unclosed, sometimes closed in the wrong order."""
    tag = draw(st.sampled_from(TAGS))
    inner = "".join(draw(children))
    ending = draw(st.sampled_from(("closed", "closed", "unclosed", "misnested")))
    if ending == "unclosed":
        return f"<{tag}{draw(attributes())}>{inner}"
    if ending == "misnested":
        other = draw(st.sampled_from(TAGS))
        return f"<{tag}{draw(attributes())}><{other}>{inner}</{tag}></{other}>"
    return f"<{tag}{draw(attributes())}>{inner}</{tag}>"


def fragments() -> st.SearchStrategy[str]:
    """Return a random tree of elements and text."""
    return st.recursive(
        words(),
        lambda inner: element(st.lists(inner, max_size=4)),
        max_leaves=12,
    )


@st.composite
def bulk(draw: st.DrawFn, core: str) -> str:
    """Wrap core in what makes a page big: many siblings, a deep nest, many attributes."""
    kind = draw(st.sampled_from(("none", "siblings", "nest", "attributes")))
    if kind == "siblings":
        unit = draw(st.sampled_from(("<li>item</li>", "<p>a<b>b</b></p>", "<div><a href=x>y")))
        count = draw(st.integers(1, MAX_NODES // 2))
        return unit * count + core
    if kind == "nest":
        depth = draw(st.integers(1, MAX_NEST))
        closed = draw(st.booleans())
        return "<div>" * depth + core + ("</div>" * depth if closed else "")
    if kind == "attributes":
        count = draw(st.integers(1, MAX_NODES))
        crowd = "".join(f' data-a{index}="v{index}"' for index in range(count))
        return f"<div{crowd}>{core}</div>"
    return core


@st.composite
def documents(draw: st.DrawFn) -> Document:
    """Return a generated page with TERM placed visibly, hidden, or both."""
    pieces = draw(st.lists(fragments(), max_size=6))
    visible = draw(st.booleans())
    hidden = draw(st.booleans()) or not visible
    if visible:
        holder = draw(st.sampled_from(("p", "div", "span", "li", "td", "h2", "a", "b")))
        pieces.insert(draw(st.integers(0, len(pieces))), f"<{holder}> {TERM} </{holder}>")
    if hidden:
        pieces.insert(
            draw(st.integers(0, len(pieces))),
            f"<script>var t = '{TERM}';</script><style>/* {TERM} */</style>"
            f'<!-- {TERM} --><span title="{TERM}" data-x="{TERM}"></span>'
            f'<a href="/{TERM}" class="{TERM}"></a>',
        )
    body = draw(bulk("".join(pieces)))
    wrapper = draw(st.sampled_from(("full", "body", "bare")))
    if wrapper == "full":
        page = f"<!doctype html><html><head><title>t</title></head><body>{body}</body></html>"
    elif wrapper == "body":
        page = f"<body>{body}"
    else:
        page = body
    return Document(page, visible, hidden and not visible)
