"""xCrawl's focused walk (SelectLink, Restart) and DownloadAllAuthorities, on a WebGraph.

SelectLink: a link v -> t passes weight(v) / outdegree(v) to t (the PageRank step that makes
t's weight); among the current page's links to pages not fetched yet the walk follows the
one whose target weighs most, ties broken by the run's seeded random generator. This is the
paper's example: the walk takes the link to node 4 because node 4 is referenced by three
pages and has a hub weight.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import numpy as np

from crawler.strategies.xcrawl.graph import WebGraph

# Weights closer than this (relative) are a tie, so float noise never breaks ties.
_TIE = 1e-9
# A DOM path this short ("html", "html/body") is the whole page, not a list of links.
_MIN_SUBTREE_STEPS = 3


class Walk:
    """Where the walker stands, and which link it takes next."""

    def __init__(
        self,
        graph: WebGraph,
        rng: random.Random,
        *,
        restart_probability: float = 0.15,
        free_moves: int = 30,
    ) -> None:
        self.graph = graph
        self.rng = rng
        self.restart_probability = restart_probability
        self.free_moves = free_moves
        self.current: int | None = None
        self.path: set[int] = set()

    def start_at(self, node: int) -> None:
        """Begin a new walk at `node` (after a restart)."""
        self.current = node
        self.path = {node}

    def arrive(self, node: int) -> None:
        """Stand on `node`, just fetched."""
        self.current = node
        self.path.add(node)

    def wants_restart(self) -> bool:
        """Draw whether the walk restarts now (probability `restart_probability`)."""
        return self.rng.random() < self.restart_probability

    def choose(self, weights: np.ndarray, allowed: Callable[[int], bool]) -> int | None:
        """Return the page to fetch next from where the walk stands, None at a dead end.

        1. The current page itself when it was never fetched (a seed, say).
        2. Else the heaviest of its links to pages not fetched yet that `allowed` admits.
        3. None such: move along the heaviest link to a fetched page not yet on this walk
           (free: nothing is fetched) and try again, at most `free_moves` times.
        """
        node = self.current
        if node is None:
            return None
        if not self.graph.is_visited(node):
            return node if allowed(node) else None
        for _ in range(self.free_moves + 1):
            successors = self.graph.successors(node)
            fresh = [t for t in successors if not self.graph.is_visited(t) and allowed(t)]
            if fresh:
                return self.heaviest(fresh, weights)
            onward = [t for t in successors if t not in self.path]
            if not onward:
                return None
            node = self.heaviest(onward, weights)
            self.arrive(node)
        return None

    def heaviest(self, candidates: Sequence[int], weights: np.ndarray) -> int:
        """Return the candidate with the largest weight, a random one among equals."""
        values = weights[np.asarray(candidates)]
        top = values.max()
        tied = [
            c for c, v in zip(candidates, values, strict=True) if v >= top - _TIE * max(top, 1e-300)
        ]
        return tied[0] if len(tied) == 1 else self.rng.choice(sorted(tied))


# --- DownloadAllAuthorities ------------------------------------------------------------------

# One link of a fetched page: target node, DOM path of the area holding it, area kind.
PageLink = tuple[int, str, str]


def authority_subtrees(links: Sequence[PageLink], is_authority: Callable[[int], bool]) -> list[str]:
    """Return the DOM paths of a hub that hold its links to known authorities.

    1. The areas holding a link to an authority (menus and footers excepted: a link there
       does not make a list of authorities).
    2. Their common parent element when it is a real element of the page and holds no
       navigation; else each of those areas on its own.
    """
    areas = sorted(
        {
            area
            for target, area, kind in links
            if area and kind != "navigation" and is_authority(target)
        }
    )
    if len(areas) <= 1:
        return areas
    parent = common_path(areas)
    steps = parent.count("/") + 1 if parent else 0
    holds_navigation = any(
        kind == "navigation" and in_subtree(area, parent) for _, area, kind in links
    )
    if steps >= _MIN_SUBTREE_STEPS and not holds_navigation:
        return [parent]
    return areas


def links_in_subtrees(links: Sequence[PageLink], subtrees: Sequence[str]) -> list[int]:
    """Return the targets of the links inside any of the subtrees, in page order, once each."""
    found: dict[int, None] = {}
    for target, area, _kind in links:
        if any(in_subtree(area, root) for root in subtrees):
            found.setdefault(target)
    return list(found)


def common_path(paths: Sequence[str]) -> str:
    """Return the longest common element path ("html/body/div[2]") of DOM paths."""
    split = [path.split("/") for path in paths]
    common: list[str] = []
    for steps in zip(*split, strict=False):
        if any(step != steps[0] for step in steps):
            break
        common.append(steps[0])
    return "/".join(common)


def in_subtree(path: str, root: str) -> bool:
    """Tell whether the element at `path` is `root` or lies below it."""
    return bool(root) and (path == root or path.startswith(root + "/"))
