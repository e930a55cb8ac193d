"""Which unfetched page is worth the next fetch: a post by its evidence, a hub by its yield.

Every page the run knows and has not fetched is a candidate with

- evidence in [0, 1]: the best topical evidence of the links to it (anchor, item block,
  words of its URL, a feed item's title and summary);
- a list, when it was reached as another page of a paginated list (`pager_key`).

Its value:

1. A page of a paginated list: v = y / (1 + y), y the topical yield expected of it, the
   yields of the list's pages fetched so far weighted by closeness in page number (topics
   cluster in time on date-ordered lists), with a prior of `PRIOR_YIELD` one page strong.
   Pages far from everything read are explored; pages next to barren ones wait.
2. Any other page: a hub with the probability its URL shape gave hubs so far (prior one
   half), valued like a list page whose yield is its link evidence times `HUB_ITEMS`
   plus the shape's mean yield; else a post, valued by its evidence.
3. Scaled by the node's xCrawl weight w (HITS, PageRank or topic-sensitive PageRank,
   max-normalised): value * (1 - g + g * w), g the `graph_share` setting, so the link
   analysis weighs in every choice among pages of like evidence (g = 0: evidence only) and
   never lifts a page its links say nothing for (a list every page links to).

A post is fetched when its evidence beats the expected yield of the next hub.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

PRIOR_YIELD = 0.5  # topical links expected on a list page nothing is known about
HUB_ITEMS = 4.0  # topical items a hub whose link names the topic is expected to list
TOPICAL = 0.5  # evidence from which a link counts in a hub's yield
KEEP_FOR_LATER = 0.8


@dataclass
class Candidate:
    """What the run knows of a page it has not fetched."""

    depth: int
    evidence: float = 0.0
    stems: frozenset[str] = frozenset()  # words around its links, rescored as terms are learnt
    text_evidence: float = 0.0
    boost: float = 0.0  # a floor: the site's seeds, sitemaps and feeds
    shape: str = ""
    list_key: str | None = None
    number: int = 1


@dataclass
class ListRecord:
    """The pages of one paginated list fetched so far: page number -> topical yield."""

    yields: dict[int, float] = field(default_factory=dict)
    example: str = ""  # the URL of one of its pages numbered 2 or more
    last: int = 1  # the highest page number seen
    filled: int = 1  # pages up to this number were made candidates

    def expected(self, number: int) -> float:
        """Return the yield expected of page `number` from the pages read near it."""
        weight, total = 1.0, PRIOR_YIELD
        for read, found in self.yields.items():
            w = 1.0 / max(1, abs(read - number))
            weight += w
            total += w * found
        return total / weight


@dataclass
class ShapeRecord:
    """The fetched pages of one URL shape: how many were hubs, and their mean yield.

    Yields are kept apart for hubs whose links named the topic and the others: a tag page
    named "ubuntu" lists ubuntu posts, which says nothing of the tag pages named otherwise.
    """

    fetched: int = 0
    hubs: int = 0
    plain_hubs: int = 0  # hubs fetched on links that did not name the topic
    plain_yields: float = 0.0

    def hub_probability(self) -> float:
        return (self.hubs + 0.5) / (self.fetched + 1)

    def mean_yield(self) -> float:
        """Return the yield of a hub of this shape whose link does not name the topic."""
        return (self.plain_yields + PRIOR_YIELD) / (self.plain_hubs + 1)


class Priorities:
    """The candidates of one run and their values."""

    def __init__(self, graph_share: float = 0.0) -> None:
        self.graph_share = graph_share
        self.candidates: dict[int, Candidate] = {}
        self.lists: dict[str, ListRecord] = {}
        self.shapes: dict[str, ShapeRecord] = {}
        # Fetched node -> the text evidence it was fetched on (what its links said of it).
        self.evidence_at_fetch: dict[int, float] = {}

    def value(
        self, node: int, graph_weight: float = 0.0, memo: dict[object, float] | None = None
    ) -> float:
        """Return what fetching the candidate is worth now.

        memo: the yields of lists and shapes worked out for other candidates since nothing
        changed (one ask values every candidate).
        """
        g = self.graph_share
        memo = {} if memo is None else memo
        return self._evidence_value(self.candidates[node], memo) * (1 - g + g * graph_weight)

    def _evidence_value(self, c: Candidate, memo: dict[object, float]) -> float:
        """Return the candidate's value by its evidence and the yields of lists and shapes."""
        if c.list_key is not None:
            key: object = (c.list_key, c.number)
            y = memo.get(key)
            if y is None:
                record = self.lists.get(c.list_key)
                y = memo[key] = record.expected(c.number) if record else PRIOR_YIELD
            return max(y / (1 + y), c.evidence)
        p_hub = memo.get(c.shape)
        if p_hub is None:
            shape = self.shapes.get(c.shape)
            p_hub = memo[c.shape] = shape.hub_probability() if shape else 0.5
            memo[(c.shape,)] = shape.mean_yield() if shape else PRIOR_YIELD
        y = HUB_ITEMS * c.evidence + memo[(c.shape,)]
        return p_hub * y / (1 + y) + (1 - p_hub) * c.evidence

    def best(self, limit: int, weights, allowed, *, pending: float = 0.0) -> list[int]:
        """Return up to `limit` candidates by value (ties: the one found first) that `allowed` admits.

        Only candidates worth at least `KEEP_FOR_LATER` of the best, or of the best
        `pending` (handed out, not observed yet), go: a hub being fetched may show better
        ones, so free fetch slots are not spent on guesses. With nothing pending the best
        always goes, so the run never stalls.
        """
        # A heap, popped only as far as needed: most asks take the first few.
        heap = self._valued(weights)
        heapq.heapify(heap)
        picked: list[int] = []
        floor = KEEP_FOR_LATER * pending if pending > 0 else None
        while heap:
            negative, node = heapq.heappop(heap)
            value = -negative
            if floor is not None and value < floor:
                break
            if allowed(node):
                if floor is None:
                    floor = KEEP_FOR_LATER * value
                picked.append(node)
                if len(picked) >= limit:
                    break
        return picked

    def handed(self, node: int) -> None:
        """Record the text evidence a candidate is handed out on (it may be dropped from the
        candidates while in flight)."""
        candidate = self.candidates.get(node)
        if candidate is not None:
            self.evidence_at_fetch.setdefault(node, candidate.text_evidence)

    def _valued(self, weights) -> list[tuple[float, int]]:
        """Return (-value, node) of every candidate, over plain floats (an ask values every
        candidate: numpy's scalars would cost more than the arithmetic)."""
        g = self.graph_share
        plain = weights.tolist() if hasattr(weights, "tolist") else list(weights)
        count = len(plain)
        memo: dict[object, float] = {}
        value = self._evidence_value
        return [
            (-(value(c, memo) * (1 - g + g * (plain[node] if node < count else 0.0))), node)
            for node, c in self.candidates.items()
        ]

    def fetched(
        self,
        node: int,
        shape: str,
        page: tuple[str, int],
        *,
        hub: bool,
        found: float,
        gained: float | None = None,
    ) -> None:
        """Record a fetched page: its shape's statistics and, as page (list, number), its yield.

        `found` (topical links shown) predicts the neighbouring pages of its list, `gained`
        (evidence learnt by reading it) other hubs of its shape.
        """
        candidate = self.candidates.pop(node, None)
        if node not in self.evidence_at_fetch:
            self.evidence_at_fetch[node] = candidate.text_evidence if candidate else 0.0
        if candidate is not None and candidate.list_key is not None:
            page = (candidate.list_key, candidate.number)
        record = self.shapes.setdefault(shape, ShapeRecord())
        record.fetched += 1
        if hub:
            record.hubs += 1
            if self.evidence_at_fetch[node] < TOPICAL:
                record.plain_hubs += 1
                record.plain_yields += found if gained is None else gained
            key, number = page
            self.lists.setdefault(key, ListRecord()).yields[number] = found
