"""Title an informational area by the paper's heuristics, in order.

1. A heading (h1..h6) near the text: the first heading at the start of the area, else the
   nearest heading before it (within TITLE_WINDOW blocks, MAIN_TITLE_WINDOW for the article
   body, whose headline often sits above bylines and share bars).
2. Else a short text (at most TITLE_MAX_WORDS words) near the text whose element carries a
   CSS class or inline style used rarely in the page body (at most RARE_MAX elements).
3. Else the first sentence of the area's text.
A candidate must not belong to another informational area: a heading above a neighbour's
text titles the neighbour.
"""

from __future__ import annotations

from collections.abc import Callable

from analyzer.walk import Block, Node, Page

TITLE_MAX_WORDS = 10
TITLE_WINDOW = 12
MAIN_TITLE_WINDOW = 40
RARE_MAX = 2
_HEADING_MAX_WORDS = 40  # a "heading" longer than this is a styled paragraph
FIRST_SENTENCE_CHARS = 200
FIRST_SENTENCE_SCAN = 2000  # the first sentence starts the text: no need to split it all


class Titler:
    """Title the informational areas of one page."""

    def __init__(self, page: Page, split: Callable[[str], list[str]]) -> None:
        self.page = page
        self.split = split

    def title(self, node: Node, blocks: list[Block], others: set[int], main: bool) -> str:
        """Return the title of the area at node whose own blocks are given.

        others holds the indexes of blocks belonging to other informational areas.
        """
        window = self._window(node, blocks, others, MAIN_TITLE_WINDOW if main else TITLE_WINDOW)
        for block in window:
            if block.heading and block.words <= _HEADING_MAX_WORDS:
                return block.text
        for block in window:
            if block.words <= TITLE_MAX_WORDS and self._rarely_styled(block):
                return block.text
        text = " ".join(block.text for block in blocks if not block.heading) or " ".join(
            block.text for block in blocks
        )
        sentences = self.split(text[:FIRST_SENTENCE_SCAN])
        first = sentences[0] if sentences else text
        return _shorten(first, FIRST_SENTENCE_CHARS)

    def _window(self, node: Node, blocks: list[Block], others: set[int], size: int) -> list[Block]:
        """Return candidate blocks: the area's opening blocks, then those before it, nearest
        first, stopping at another area's text."""
        page_blocks = self.page.blocks
        opening: list[Block] = []
        for block in blocks:
            if block.link_chars * 2 <= block.chars and block.words > TITLE_MAX_WORDS * 3:
                break  # the running text has started
            opening.append(block)
        first = blocks[0].index if blocks else _first_block_at(page_blocks, node)
        before: list[Block] = []
        for index in range(first - 1, max(-1, first - 1 - size), -1):
            block = page_blocks[index]
            if index in others:
                break
            before.append(block)
        return opening + before

    def _rarely_styled(self, block: Block) -> bool:
        """Say whether the block's element (or its only child) has a rare class or style."""
        owner = block.owner
        if self._rare(owner):
            return True
        if owner.end == owner.index + 1:
            return False
        child = self.page.nodes[owner.index + 1]  # the first child, in document order
        return child.end == owner.end and self._rare(child)  # and the only one

    def _rare(self, node: Node) -> bool:
        """Say whether an element's class or inline style is used by few elements of the page."""
        classes, style = node.attrs.get("class"), node.attrs.get("style")
        return bool(
            (classes and self.page.class_uses.get(str(classes), 0) <= RARE_MAX)
            or (style and self.page.style_uses.get(str(style), 0) <= RARE_MAX)
        )


def _first_block_at(blocks: list[Block], node: Node) -> int:
    """Return the index of the first block at or after node in document order."""
    for block in blocks:
        if block.owner.index >= node.index:
            return block.index
    return len(blocks)


def _shorten(text: str, limit: int) -> str:
    """Cut text at a word boundary to at most limit characters, marking the cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + "\u2026"
