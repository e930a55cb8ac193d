"""Find the article body of a page: its container, its blocks, and the teasers around it.

General rules only, no site lists:

1. Teasers: a headline link (a linked heading, or a link block of three words or more)
   followed by a short prose block (a sentence-long subtitle heading without links counts,
   as blog themes mark summaries up), both alone in a small container (a card), is a teaser
   of another page. Its blocks are not the page's own text.
2. Site chrome: blocks inside nav, header (outside an article), footer, aside, form,
   figure, dialog elements, chrome roles, or classes and ids that name chrome
   (markup.names_chrome) are chrome, unless that element holds most of the page's prose,
   wraps an <article> or <main> that holds most of its own, or is a figure of a table.
   So are link blocks whose links all jump within the page (a table of contents); a
   heading that links to the page itself is a heading, not a link away.
3. Container: every prose block (markup.is_prose) outside chrome and teasers credits its
   ancestors with its length. From <body>, descend into the child holding the most credit
   while it holds at least CONTAINER_SHARE of the page's credit.
4. Blocks: analyzer.segment cuts the article's blocks out of the container and its
   surroundings (the best run, merged across interruptions, extended to the lead, the
   tables and lists beside it, cleaned).
5. Fallbacks: when that run is empty or a crumb of what the page's article markup or its
   sentence-richest element holds, analyzer.fallback reads the page again.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

from analyzer.fallback import recover
from analyzer.markup import ARTICLE_TAGS
from analyzer.segment import best_run
from analyzer.walk import Anchor, Block, Node, Page

CONTAINER_SHARE = 0.8
"""Share of the page's prose a child must hold for the container search to descend."""
CHROME_MAJORITY = 0.8
"""A chrome-named element holding this share of the page's prose is not chrome."""
TEASER_MAX_CHARS = 600
"""Longest summary a teaser has; longer text after a headline link is an article."""
TEASER_SLACK = 150
"""Characters of other text (dates, bylines, 'Read more') a teaser card may hold."""


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
    teaser_blocks = _teaser_blocks(page, teasers)
    in_page, titles = _links_to_itself(page, same_page)
    chrome = _chrome_blocks(page, body) | in_page
    credit = [0] * len(page.nodes)
    for block in page.blocks:
        if block.index in chrome or block.index in teaser_blocks or not block.prose:
            continue
        node: Node | None = block.owner
        while node is not None:
            credit[node.index] += block.chars
            node = node.parent
    container = _descend(page, body, credit)
    blocks = best_run(page, container, chrome, teaser_blocks, credit[container.index], titles)
    blocks = recover(page, container, blocks, chrome, teaser_blocks)
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
            if candidate.heading and not _is_subtitle(candidate):
                break
            if candidate.prose:
                summary = candidate
                break
            between += candidate.chars
        if summary is None or summary.chars > TEASER_MAX_CHARS:
            continue
        card = common_ancestor(headline.owner, summary.owner)
        if card.text <= headline.chars + summary.chars + between + TEASER_SLACK:
            teasers.append(Teaser(card, headline, summary, anchor))
    return teasers


def _teaser_blocks(page: Page, teasers: list[Teaser]) -> set[int]:
    """Return the indexes of the blocks inside teaser cards (headline, summary, date)."""
    indexes: set[int] = set()
    for teaser in teasers:
        card = teaser.card
        position = teaser.headline.index
        while position > 0 and card.contains(page.blocks[position - 1].owner):
            position -= 1
        blocks = page.blocks
        while position < len(blocks) and card.contains(blocks[position].owner):
            indexes.add(position)
            position += 1
    return indexes


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


def _is_subtitle(block: Block) -> bool:
    """Say whether a heading reads as a summary (a sentence-long subtitle without links)."""
    return block.prose and not block.link_chars


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


def _links_to_itself(
    page: Page, same_page: Callable[[str], bool] | None
) -> tuple[set[int], frozenset[int]]:
    """Return the indexes of link blocks whose every link points at the page itself: those
    that jump within it (a table of contents: navigation, no hub that ends the article),
    and the headings among the others (a review's or a post's own title, linked)."""
    if same_page is None:
        return set(), frozenset()
    jumps: set[int] = set()
    titles: set[int] = set()
    for index, anchors in _anchors_by_block(page).items():
        block = page.blocks[index]
        if block.link_chars * 2 <= block.chars:
            continue
        if all(
            anchor.href.strip().startswith("#") or ("#" in anchor.href and same_page(anchor.href))
            for anchor in anchors
        ):
            jumps.add(index)
        elif block.heading and all(same_page(anchor.href) for anchor in anchors):
            titles.add(index)
    return jumps, frozenset(titles)


def _chrome_blocks(page: Page, body: Node) -> set[int]:
    """Return the indexes of blocks inside elements that really are site chrome.

    A chrome-named or chrome-tagged element is no chrome when it holds CHROME_MAJORITY of
    the page's prose (its name misleads: a form around the whole page), or when an
    <article> or <main> inside it holds most of its prose (a "sticky-sidebar" wrapper
    around the post and its sidebar), or when it is a <figure> holding a table (data, not
    a photo and its caption).
    """
    majority = CHROME_MAJORITY * body.good
    articles = [node for node in page.nodes if node.name in ARTICLE_TAGS and node.good]
    starts = [node.index for node in articles]
    verdict: dict[int, bool] = {}

    def is_chrome(node: Node) -> bool:
        known = verdict.get(node.index)
        if known is None:
            known = node.good == 0 or (
                node.good < majority and not _wraps_article(node) and not _holds_table(node)
            )
            verdict[node.index] = known
        return known

    def _holds_table(node: Node) -> bool:
        return node.name == "figure" and any(
            page.nodes[index].name == "table" for index in range(node.index + 1, node.end)
        )

    def _wraps_article(node: Node) -> bool:
        first = bisect_right(starts, node.index)
        for article in articles[first : bisect_left(starts, node.end)]:
            if article.good * 2 >= node.good:
                return True
        return False

    return {
        block.index
        for block in page.blocks
        if block.chrome and any(is_chrome(node) for node in block.chrome)
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
