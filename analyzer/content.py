"""Find the article body of a page: its container, its blocks, and the teasers around it.

General rules only, no site lists:

1. Teasers: a headline link (a linked heading, or a link block of three words or more)
   followed by a short prose block, both alone in a small container (a card), is a teaser
   of another page. Its summary is not the page's own text.
2. Site chrome: blocks inside nav, header, footer, aside, form, figure elements, chrome
   roles, or classes and ids that start or end with a chrome word ("related-posts",
   "article-footer") are chrome, unless that element holds most of the page's prose (then
   its name misleads).
3. Container: every prose block (markup.is_prose) outside chrome and teasers credits its
   ancestors with its length. From <body>, descend into the child holding the most credit
   while it holds at least CONTAINER_SHARE of the page's credit.
4. Blocks: inside the container, the best contiguous run of blocks is kept (a maximum-sum
   segment): prose counts its length, headings nothing, short blocks a little against,
   link lists and chrome their length against. Link lists, chrome, the h1 headline and
   advertisement labels inside the run are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from analyzer.markup import is_prose
from analyzer.walk import Anchor, Block, Node, Page

CONTAINER_SHARE = 0.8
"""Share of the page's prose a child must hold for the container search to descend."""
CHROME_MAJORITY = 0.8
"""A chrome-named element holding this share of the page's prose is not chrome."""
SHORT_PENALTY = 30
"""Weight against a short non-prose block (a dateline, a label) in the block run."""
CELL_PENALTY = 5
"""Weight against a short block in a table cell or list item (data, not chrome)."""
CHROME_PENALTY_CAP = 50
"""Most weight a chrome block puts against the block run."""
TEASER_MAX_CHARS = 600
"""Longest summary a teaser has; longer text after a headline link is an article."""
TEASER_SLACK = 150
"""Characters of other text (dates, bylines, 'Read more') a teaser card may hold."""

_AD_LABEL = re.compile(
    r"^(?:advertisement|advert|ads?|sponsored|anzeige|werbung|publicidad|publicité|"
    r"pubblicità|реклама|διαφήμιση)$",
    re.IGNORECASE,
)
_CELLS = frozenset({"td", "th", "li", "dd", "dt"})


@dataclass
class Teaser:
    """A card with a headline link and a short summary of another page."""

    card: Node
    headline: Block
    summary: Block
    anchor: Anchor | None


@dataclass
class Content:
    """The article body of a page as the rules above find it."""

    container: Node | None
    blocks: list[Block] = field(default_factory=list)
    teasers: list[Teaser] = field(default_factory=list)
    chrome: set[int] = field(default_factory=set)  # indexes of blocks in site chrome
    prose: int = 0  # characters of prose outside chrome and teasers on the whole page
    container_prose: int = 0  # the same, inside the container

    @property
    def text(self) -> str:
        """Return the article text, one paragraph per block."""
        return "\n\n".join(block.text for block in self.blocks)


def find_content(page: Page, same_page: Callable[[str], bool] | None = None) -> Content:
    """Return the article body of a walked page.

    same_page tells whether an href points back at the page itself (a headline linking to
    its own article is not a teaser).
    """
    body = page.body
    if body is None:
        return Content(None)
    teasers = find_teasers(page, same_page)
    teaser_blocks = {teaser.summary.index for teaser in teasers}
    chrome = _chrome_blocks(page, body)
    credit = [0] * len(page.nodes)
    for block in page.blocks:
        if block.index in chrome or block.index in teaser_blocks or not is_prose(block):
            continue
        node: Node | None = block.owner
        while node is not None:
            credit[node.index] += block.chars
            node = node.parent
    container = _descend(page, body, credit)
    blocks = _best_run(page, container, chrome, teaser_blocks)
    return Content(container, blocks, teasers, chrome, credit[body.index], credit[container.index])


def find_teasers(page: Page, same_page: Callable[[str], bool] | None = None) -> list[Teaser]:
    """Return the teaser cards of a page (headline link, then a short summary)."""
    blocks = page.blocks
    anchors = _anchors_by_block(page)
    teasers: list[Teaser] = []
    for position, headline in enumerate(blocks):
        if not _is_headline_link(headline):
            continue
        anchor = next(iter(anchors.get(headline.index, ())), None)
        if anchor is not None and same_page is not None and same_page(anchor.href):
            continue
        between = 0
        summary = None
        for candidate in blocks[position + 1 : position + 4]:
            if candidate.heading:
                break
            if is_prose(candidate):
                summary = candidate
                break
            between += candidate.chars
        if summary is None or summary.chars > TEASER_MAX_CHARS:
            continue
        card = common_ancestor(headline.owner, summary.owner)
        if card.text <= headline.chars + summary.chars + between + TEASER_SLACK:
            teasers.append(Teaser(card, headline, summary, anchor))
    return teasers


def common_ancestor(first: Node, second: Node) -> Node:
    """Return the lowest node holding both nodes."""
    while first.depth > second.depth:
        first = first.parent  # type: ignore[assignment]
    while second.depth > first.depth:
        second = second.parent  # type: ignore[assignment]
    while first is not second:
        first = first.parent  # type: ignore[assignment]
        second = second.parent  # type: ignore[assignment]
    return first


def _is_headline_link(block: Block) -> bool:
    """Say whether a block is a headline that links somewhere."""
    if block.heading:
        return block.link_chars * 2 >= block.chars
    return block.link_chars * 5 >= block.chars * 4 and block.words >= 3


def _anchors_by_block(page: Page) -> dict[int, list[Anchor]]:
    """Group the page's anchors by the block they start in."""
    grouped: dict[int, list[Anchor]] = {}
    for anchor in page.anchors:
        if anchor.block is not None:
            grouped.setdefault(anchor.block.index, []).append(anchor)
    return grouped


def _chrome_blocks(page: Page, body: Node) -> set[int]:
    """Return the indexes of blocks inside elements that really are site chrome."""
    majority = CHROME_MAJORITY * body.good
    return {
        block.index
        for block in page.blocks
        if any(node.good < majority or node.good == 0 for node in block.chrome)
    }


def _descend(page: Page, body: Node, credit: list[int]) -> Node:
    """Walk down from body into the child holding most prose, while it holds enough."""
    nodes = page.nodes
    total = credit[body.index]
    node = body
    if not total:
        return node
    while True:
        best = None
        index = node.index + 1
        while index < node.end:  # the children, skipping each one's subtree
            child = nodes[index]
            if credit[index] >= CONTAINER_SHARE * total and (
                best is None or credit[index] > credit[best.index]
            ):
                best = child
            index = child.end
        if best is None:
            return node
        node = best


def _best_run(page: Page, container: Node, chrome: set[int], teasers: set[int]) -> list[Block]:
    """Return the blocks of the best contiguous run inside the container, cleaned."""
    candidates: list[Block] = []
    weights: list[int] = []
    dropped: set[int] = set()
    for block in page.blocks:
        if not container.contains(block.owner):
            continue
        if block.heading == 1 or _AD_LABEL.match(block.text):
            continue
        weight, keep = _weigh(block, block.index in chrome, block.index in teasers)
        if not keep:
            dropped.add(len(candidates))
        candidates.append(block)
        weights.append(weight)
    start, end = _max_segment(weights)
    return [candidates[i] for i in range(start, end) if i not in dropped]


def _weigh(block: Block, chrome: bool, teaser: bool) -> tuple[int, bool]:
    """Return a block's weight in the run and whether it belongs in the text."""
    if chrome:
        return -min(block.chars, CHROME_PENALTY_CAP), False
    clean = block.chars - block.link_chars
    if block.link_chars * 2 > block.chars and clean < 100:
        return -block.chars, False  # a link list or a "Related:" line
    if teaser:
        return -block.chars, False
    if is_prose(block):
        return block.chars, True
    if block.heading:
        return 0, True
    if block.owner.name in _CELLS:
        return -CELL_PENALTY, True
    return -SHORT_PENALTY, True


def _max_segment(weights: list[int]) -> tuple[int, int]:
    """Return [start, end) of the contiguous segment with the largest positive sum."""
    best_sum, best = 0, (0, 0)
    running, start = 0, 0
    for index, weight in enumerate(weights):
        if running <= 0:
            running, start = 0, index
        running += weight
        if running > best_sum:
            best_sum, best = running, (start, index + 1)
    return best
