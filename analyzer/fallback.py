"""Second readings of a page, for when the article run comes out empty or as a fragment.

The article run (analyzer.segment) is chosen by weights; on some pages it keeps a crumb
of the article (a lead paragraph before a list of short lines, a photo caption) or lands
in the wrong place (a sidebar of long error messages). Each reading below looks at the
page's structure another way, with rules that hold in any language, and replaces the run
only when the run is much smaller than what that reading finds:

- "markup": the page's own article markup (<article>, <main>, role="main",
  itemprop="articleBody") around the run, or the one such element of the page when the
  run is empty. When its text outside site chrome, teasers and link lists holds
  MARKUP_RATIO times the run's, the element's text is the article: lists and tables in it
  (ingredients, steps, specifications, a list of links a post collects) are content.
- "sentences": the element whose paragraphs end the most sentences (a full stop,
  question or exclamation mark, in any script, followed by a space or the end). When it
  ends SENTENCE_RATIO times more sentences than the run and at least SENTENCE_MIN, the
  article run is chosen again inside that element.

FALLBACKS names the readings in force, in the order they are tried; bench/analyzer_fallbacks.py
measures each one by cross-validation and keeps those that help on held-out pages.
"""

from __future__ import annotations

import re

from analyzer.markup import ARTICLE_TAGS
from analyzer.segment import best_run
from analyzer.walk import Block, Node, Page

READINGS = ("markup", "sentences")
"""Every second reading this module knows, in the order they are tried."""
FALLBACKS: tuple[str, ...] = READINGS
"""The readings in force (bench/analyzer_fallbacks.py chooses them)."""
MARKUP_RATIO = 1.5
"""How much more text the article markup must hold than the run to replace it."""
SENTENCE_RATIO = 2
"""How many times more sentences the sentence-richest element must end than the run."""
SENTENCE_MIN = 2
"""Fewest sentences the sentence-richest element needs to replace the run."""

# A sentence ends at a full stop, question or exclamation mark followed by a space or the
# end (closing quotes between), or at a CJK full-width mark, which needs no space (counted
# apart: one pattern with both is three times slower).
_SENTENCE_END = re.compile(
    "[.!?\u2026\u0964\u061f\u06d4\u0589\u1362\u104b][\"'\u201d\u2019\u00bb)\\]]*(?:\\s|$)"
)
_FULL_WIDTH_ENDS = ("\u3002", "\uff01", "\uff1f")
_CELLS = frozenset({"li", "td", "th", "dd", "dt"})


def recover(
    page: Page, container: Node, blocks: list[Block], chrome: set[int], teasers: set[int]
) -> list[Block]:
    """Return the article's blocks: the run, or a second reading's when the run is a crumb."""
    chars = sum(block.chars for block in blocks)
    for name in FALLBACKS:
        reading = _READERS[name](page, container, blocks, chars, chrome, teasers)
        if reading:
            return reading
    return blocks


def _by_markup(
    page: Page,
    container: Node,
    blocks: list[Block],
    chars: int,
    chrome: set[int],
    teasers: set[int],
) -> list[Block]:
    """Return the article markup's text when it holds MARKUP_RATIO times the run's."""
    element = _article_element(page, container, empty=not blocks)
    if element is None:
        return []
    own = _element_blocks(page, element, chrome, teasers)
    total = sum(block.chars for block in own)
    if not any(block.prose for block in own) or total < MARKUP_RATIO * max(chars, 1):
        return []
    return own


def is_article_element(node: Node) -> bool:
    """Say whether an element marks the page's article or main content."""
    attrs = node.attrs
    return (
        node.name in ARTICLE_TAGS
        or attrs.get("role") == "main"
        or (attrs.get("itemprop") or "").lower() == "articlebody"
    )


def _article_element(page: Page, container: Node, empty: bool) -> Node | None:
    """Return the nearest article element around the container; for an empty run, the
    page's one article element holding prose."""
    node: Node | None = container
    while node is not None:
        if is_article_element(node):
            return node
        node = node.parent
    if not empty:
        return None
    marked = [node for node in page.nodes if node.good and is_article_element(node)]
    outermost = [
        node for node in marked if not any(o.contains(node) for o in marked if o is not node)
    ]
    return outermost[0] if len(outermost) == 1 else None


def _element_blocks(page: Page, element: Node, chrome: set[int], teasers: set[int]) -> list[Block]:
    """Return an element's blocks that are its article's text.

    Left out: chrome, teasers, linked headings, link lists outside paragraphs, lists and
    tables (with the headings and lines ending in a colon that introduce them), the
    headline before the first paragraph, and at the end what is neither in a list or table
    nor in the style of a paragraph (a "like this" box, a share bar's label).
    """
    own: list[Block] = []
    started = False
    for block in page.blocks:
        owner = block.owner
        if not element.contains(owner) or block.index in chrome or block.index in teasers:
            continue
        if block.heading == 1 and not started:
            continue
        if block.link_chars * 2 > block.chars and (
            block.heading or not _in_text(block, own[-1] if own else None, element)
        ):
            while own and (own[-1].heading or own[-1].text.endswith(":")):
                own.pop()
            continue
        started = started or block.prose
        own.append(block)
    styles = {_style(block) for block in own if block.prose}
    while own and not (_style(own[-1]) in styles or _in_cell(own[-1].owner, element)):
        own.pop()
    return own


def _style(block: Block) -> tuple[str, str]:
    """Return what makes a block look like its neighbours: its element and class."""
    return block.owner.name, block.owner.attrs.get("class") or ""


def _in_text(block: Block, previous: Block | None, element: Node) -> bool:
    """Say whether a link block continues a paragraph's text (the block before it sits in
    the same element) or sits in a list item or table cell inside the element: a link there
    is a title the article cites, not a menu."""
    owner = block.owner
    return (previous is not None and previous.owner is owner) or _in_cell(owner, element)


def _in_cell(node: Node, element: Node) -> bool:
    """Say whether a node sits in a list item or table cell inside the element."""
    current: Node | None = node
    while current is not None and current is not element:
        if current.name in _CELLS:
            return True
        current = current.parent
    return False


def sentences(text: str) -> int:
    """Count the sentences a text ends, in any script."""
    count = len(_SENTENCE_END.findall(text))
    if not text.isascii():
        count += sum(text.count(mark) for mark in _FULL_WIDTH_ENDS)
    return count


def _by_sentences(
    page: Page,
    container: Node,
    blocks: list[Block],
    chars: int,
    chrome: set[int],
    teasers: set[int],
) -> list[Block]:
    """Return the run inside the element that ends the most sentences, when it ends
    SENTENCE_RATIO times more than the run."""
    readable = [
        block
        for block in page.blocks
        if block.prose and block.index not in chrome and block.index not in teasers
    ]
    if len(readable) <= len(blocks) and {b.index for b in readable} <= {b.index for b in blocks}:
        return []  # the run holds all the page's paragraphs: nothing else to read
    ends: dict[int, int] = {}
    holder: dict[int, Node] = {}
    counted: dict[int, int] = {}
    for block in readable:
        parent = block.owner.parent or block.owner
        counted[block.index] = sentences(block.text)
        ends[parent.index] = ends.get(parent.index, 0) + counted[block.index]
        holder[parent.index] = parent
    if not ends:
        return []
    best = max(ends, key=lambda index: ends[index])
    found = sum(
        counted[block.index] if block.index in counted else sentences(block.text)
        for block in blocks
    )
    element = holder[best]
    if ends[best] < max(SENTENCE_MIN, SENTENCE_RATIO * max(found, 1)) or container.contains(
        element
    ):
        return []
    prose = sum(
        block.chars
        for block in page.blocks
        if block.prose and element.contains(block.owner) and block.index not in chrome
    )
    return best_run(page, element, chrome, teasers, prose)


_READERS = {"markup": _by_markup, "sentences": _by_sentences}
