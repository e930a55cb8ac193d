"""Cut the article's blocks out of its container: the best run of blocks, and what belongs to it.

Every block gets a weight by what it reads like (language-independent signals first: prose
or not, link density, site chrome, the element and class it sits in; a few words of the
commonest languages, for dates and advertisement labels, only as a bonus):

- prose counts its length; a heading nothing; a link list or a teaser its length against;
  a chrome block its length against, at most CHROME_PENALTY_CAP;
- a short block counts its characters outside links less SHORT_BASE (CELL_BASE in a table
  cell or list item), at most SHORT_PENALTY against; a dateline counts against and is
  dropped. Without an article around them (no prose in the container) short blocks count
  their whole text: an address, opening hours or a results table is then the content.

The thresholds are calibrated by 5-fold cross-validation on the 60 pages of the extraction
dev set (`python bench/analyzer_extraction.py` prints each fold and the setting chosen on
it): SHORT_BASE, INTERRUPTION_CAP and content.CONTAINER_SHARE are the values chosen there.
"""

from __future__ import annotations

import re

from analyzer.markup import ARTICLE_TAGS, PAGE_TAGS
from analyzer.walk import Block, Node, Page

SHORT_BASE = 30
"""A short non-prose block weighs its characters outside links less this: a dateline or a
label counts against the run, a line of a poem or an ingredient list for it."""
SHORT_PENALTY = 30
"""Most weight a short non-prose block puts against the block run."""
DATELINE_WORDS = 12
"""Most words of a block with a date or time in it that is a dateline, not text."""
CELL_BASE = 0
"""SHORT_BASE for a block in a table cell or list item (data, not chrome)."""
CELL_PENALTY = 5
"""Most weight a short block in a table cell or list item puts against the run."""
SCOPE_LEVELS = 2
"""How far above the container the run may extend: siblings and cousins of its element."""
INTERRUPTION_CAP = 50
"""Most an interruption between two blocks of one text style costs, when no hub is in it."""
PROSE_FLOOR = 100
"""Characters of prose a container needs to be an article whose short blocks are labels."""
CHROME_PENALTY_CAP = 50
"""Most weight a chrome block puts against the block run."""

_AD_LABEL = re.compile(
    r"^(?:advertisement|advert|ads?|sponsored|anzeige|werbung|publicidad|publicidade|"
    r"publicité|annonce|pubblicità|advertentie|reklama|reklam|mainos|реклама|διαφήμιση|"
    r"광고|広告|广告)$",
    re.IGNORECASE,
)
_CELLS = frozenset({"td", "th", "li", "dd", "dt"})
# A date or a time of day in a short block marks a dateline ("Updated 10:01 pm PST",
# "12.12.2022, 08:30 Uhr", "November 18, 2019"): numeric forms in any language, month
# names of the commonest languages of the web as a bonus.
_DATE = re.compile(
    r"\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|januar|februar|märz|mai|juni|"
    r"juli|oktober|dezember|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|"
    r"novembre|décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|"
    r"octubre|noviembre|diciembre|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|"
    r"ottobre|dicembre|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro|"
    r"dezembro)[a-z]*\.?\s+\d{1,4}\b",
    re.IGNORECASE,
)
_ADDRESS = re.compile(r"^\S*(?:https?://|www\.)\S*$", re.IGNORECASE)


def best_run(
    page: Page,
    container: Node,
    chrome: set[int],
    teasers: set[int],
    prose: int,
    titles: frozenset[int] = frozenset(),
) -> list[Block]:
    """Return the article's blocks: the best run inside the container, extended to the
    article's own blocks around it, cleaned.

    1. Every block inside the scope (the container's ancestor SCOPE_LEVELS up, or the
       <article> or <main> around it if that is higher: where an article's lead, table or
       second half sits beside the body's element) gets a weight; the h1 headline and
       advertisement labels are left out, and so are the short lines that label a hub
       just after them ("Explore further").
    2. An interruption (blocks that add nothing, in a row) between two blocks of the same
       text style that holds no hub costs at most INTERRUPTION_CAP: ads, figures, pull
       quotes and newsletter boxes do not cut an article in two, a list of other articles
       does.
    3. The best run inside the container is kept (a maximum-sum segment), then extended to
       either side over the scope while that adds more than it costs.
    4. At its edges the run takes the blocks that continue its text: the headings just
       before it, and short blocks in the same element and style as its first or last
       block (a transcript's "Good morning.", a recipe's last line).

    prose is the container's prose; without PROSE_FLOOR characters of it the page has no
    article, and its short blocks (an address, opening hours, a list) are its content.
    titles are the headings that link to the page itself: subheadings, not links away.
    """
    scope = _scope(container)
    candidates, weights, dropped, hubs, inside = _candidates(
        page, container, scope, chrome, teasers, prose, titles
    )
    if not inside:
        return []
    dropped.update(_labels(candidates, weights, hubs))
    _bridge(candidates, weights, hubs)
    low, high = inside[0], inside[-1] + 1
    start, end = _max_segment(weights[low:high])
    if start == end:
        return []
    core = (low + start, low + end)
    start, end = _extend(candidates, weights, container, scope, *core)
    start, end = _edges(candidates, dropped, start, end)
    return [
        block
        for position, block in enumerate(candidates[start:end], start)
        if position not in dropped
        and (
            core[0] <= position < core[1]
            or container.contains(block.owner)
            or _extends(block, scope)
        )
    ]


def _candidates(
    page: Page,
    container: Node,
    scope: Node,
    chrome: set[int],
    teasers: set[int],
    prose: int,
    titles: frozenset[int],
) -> tuple[list[Block], list[int], set[int], set[int], list[int]]:
    """Return the scope's blocks that may join the run and their weights, with the positions
    among them of the blocks dropped, of hubs and of those inside the container (step 1)."""
    candidates: list[Block] = []
    weights: list[int] = []
    dropped: set[int] = set()
    hubs: set[int] = set()
    inside: list[int] = []
    for block in page.blocks:
        if not scope.contains(block.owner):
            continue
        if block.heading == 1 or _AD_LABEL.match(block.text):
            continue
        if block.index in titles:
            weight, keep, hub = 0, True, False  # a heading, though a link to the page
        else:
            weight, keep, hub = _weigh(
                block, block.index in chrome, block.index in teasers, prose >= PROSE_FLOOR
            )
        position = len(candidates)
        if not keep:
            dropped.add(position)
        if hub:
            hubs.add(position)
        if container.contains(block.owner):
            inside.append(position)
        candidates.append(block)
        weights.append(weight)
    return candidates, weights, dropped, hubs, inside


def _labels(blocks: list[Block], weights: list[int], hubs: set[int]) -> set[int]:
    """Return the positions of the short lines that label a hub just after them
    ("Explore further", "Read also"): they belong to the links, not to the text."""
    labels = set()
    for hub in hubs:
        position = hub - 1
        if position >= 0 and position not in hubs and weights[position] < 0:
            block = blocks[position]
            if not block.prose and not block.heading and not block.links:
                labels.add(position)
    return labels


def _edges(blocks: list[Block], dropped: set[int], start: int, end: int) -> tuple[int, int]:
    """Return [start, end) with the blocks that continue the run at its edges (step 4)."""
    first, last = blocks[start], blocks[end - 1]
    while start > 0 and (start - 1) not in dropped and _continues(blocks[start - 1], first):
        start -= 1
    while start > 0 and (start - 1) not in dropped and blocks[start - 1].heading:
        start -= 1
    while end < len(blocks) and end not in dropped and _continues(blocks[end], last):
        end += 1
    return start, end


def _continues(block: Block, edge: Block) -> bool:
    """Say whether a block sits in the same element and style as the run's edge block."""
    return (
        not block.heading
        and block.owner.parent is edge.owner.parent
        and _style(block) == _style(edge)
    )


def _scope(container: Node) -> Node:
    """Return the element whose blocks may join the container's run (best_run step 1)."""
    scope = container
    for _ in range(SCOPE_LEVELS):
        if scope.parent is None or scope.name in PAGE_TAGS or scope.parent.name in PAGE_TAGS:
            break
        scope = scope.parent
    node: Node | None = scope
    while node is not None and node.name not in PAGE_TAGS:
        if node.name in ARTICLE_TAGS:
            return node
        node = node.parent
    return scope


def _weigh(block: Block, chrome: bool, teaser: bool, article: bool) -> tuple[int, bool, bool]:
    """Return a block's weight in the run, whether it belongs in the text, and whether it
    is a hub (a link list or a teaser: other articles). Without an article around them
    short blocks count their whole text."""
    if chrome:
        return -min(block.chars, CHROME_PENALTY_CAP), False, False
    if teaser:
        return -block.chars, False, True
    if block.prose:
        return block.chars, True, False
    if block.link_chars * 2 > block.chars:
        return -block.chars, False, True  # a link list or a "Related:" line
    if block.heading:
        return 0, True, False
    clean = block.chars - block.link_chars
    if not article:
        return clean, True, False
    if block.owner.name in _CELLS:
        return max(clean - CELL_BASE, -CELL_PENALTY), True, False
    if block.words <= DATELINE_WORDS and _DATE.search(block.text) and not _quoted(block):
        return -min(clean, SHORT_PENALTY), False, False
    return max(clean - SHORT_BASE, -SHORT_PENALTY), True, False


def _quoted(block: Block) -> bool:
    """Say whether a block sits in a quotation (an embedded post signs off with its date)."""
    owner = block.owner
    return owner.name == "blockquote" or (
        owner.parent is not None and owner.parent.name == "blockquote"
    )


def _extends(block: Block, scope: Node) -> bool:
    """Say whether a block outside the container may join the text: prose, a subheading
    or a data cell; inside an <article> or <main> also a short line of text (a recipe's
    times), never a link, a web address or a dateline (those weigh against the run)."""
    if block.heading or block.prose or block.owner.name in _CELLS:
        return True
    return (
        scope.name in ARTICLE_TAGS
        and block.link_chars * 2 <= block.chars
        and _ADDRESS.search(block.text) is None
    )


def _bridge(blocks: list[Block], weights: list[int], hubs: set[int]) -> None:
    """Cap the cost of interruptions between two blocks of one text style (step 2).

    An interruption is a run of blocks that add nothing (chrome, labels, the headings
    inside it); its neighbours are the nearest blocks that add text.
    """
    index, size = 0, len(weights)
    while index < size:
        if weights[index] > 0:
            index += 1
            continue
        end = index
        while end < size and weights[end] <= 0:
            end += 1
        if (
            index > 0
            and end < size
            and _style(blocks[index - 1]) == _style(blocks[end])
            and not hubs.intersection(range(index, end))
        ):
            negative = [position for position in range(index, end) if weights[position] < 0]
            cost = sum(weights[position] for position in negative)
            if cost < -INTERRUPTION_CAP:
                for position in negative:
                    weights[position] = 0
                weights[negative[0]] = -INTERRUPTION_CAP
        index = end


def _style(block: Block) -> tuple[str, str]:
    """Return what makes a block look like its neighbours: its element and class."""
    owner = block.owner
    return owner.name, owner.attrs.get("class") or ""


def _extend(
    blocks: list[Block], weights: list[int], container: Node, scope: Node, start: int, end: int
) -> tuple[int, int]:
    """Return [start, end) grown to either side as far as the best gain (step 3).

    Outside the container only what _extends allows gains. After the run, prose and lines
    with links gain only in the run's own text style: what follows an article in another
    style is an author's box, a newsletter offer, a comment or a line of tags, while a lead
    or standfirst comes before it.
    """
    styles = {_style(blocks[index]) for index in range(start, end) if weights[index] > 0}

    def gain(index: int, after: bool) -> int:
        weight = weights[index]
        if weight <= 0:
            return weight
        block = blocks[index]
        if after and (block.prose or block.links) and _style(block) not in styles:
            return 0
        return weight if container.contains(block.owner) or _extends(block, scope) else 0

    best, total, left = 0, 0, start
    for index in range(start - 1, -1, -1):
        total += gain(index, False)
        if total > best:
            best, left = total, index
    best, total, right = 0, 0, end
    for index in range(end, len(weights)):
        total += gain(index, True)
        if total > best:
            best, right = total, index + 1
    return left, right


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
