"""xCrawl's CalculateWeights and FindHubs, kept current as the walk adds pages.

Node weight (second version of the paper): the mean of the non-zero authority, hub and
PageRank weights, each in [0, 1]:

- authority: 1 for pages the validator accepted, 0 for fetched pages it rejected, and for
  pages not fetched yet the HITS authority estimate (links from known hubs), because those
  are the pages the walk chooses between and the validator has not spoken on them;
- hub: the HITS hub weight from the last FindHubs (0 for authorities);
- PageRank, max-normalised: topic-sensitive (teleport to the initial weights: 1 for
  authorities, the mean of 1/n and the hub weight for hubs, 1/n for the rest, plus half
  the topic affinity of fetched pages the validator rejected but whose content shows some
  topic words, e.g. a list whose teasers name the topic (only until the first authority is
  found: a bootstrap), and a quarter of the anchor-text
  affinity of pages not fetched yet (the paper's future work: link text helps), or plain.

For pages not fetched yet the mean is always over authority and PageRank (a zero authority
estimate counts: no known hub links there).

Recomputing after one new page is incremental: the adjacency matrix only adds the new
edges, PageRank restarts from the previous vector, and the authority estimate of new pages
is one sparse product with the stored hub weights. Full HITS runs at restarts only.
"""

from __future__ import annotations

import time
from enum import StrEnum

import numpy as np

from crawler.strategies.xcrawl.graph import WebGraph, hits, node_weights, pagerank


class Variant(StrEnum):
    """Which weights make up a node's weight (the paper's comparison)."""

    HITS = "hits"
    HITS_PAGERANK = "hits+pagerank"
    HITS_TOPIC_PAGERANK = "hits+tspr"


class GraphWeights:
    """Node weights and hubs of a growing web graph."""

    def __init__(
        self,
        graph: WebGraph,
        *,
        variant: Variant = Variant.HITS_TOPIC_PAGERANK,
        damping: float = 0.85,
        tolerance: float = 1e-6,
        max_iterations: int = 50,
        hub_threshold: float = 0.1,
        hub_min_authorities: int = 2,
    ) -> None:
        self.graph = graph
        self.variant = Variant(variant)
        self.damping = damping
        self.tolerance = tolerance
        self.max_iterations = max_iterations
        self.hub_threshold = hub_threshold
        self.hub_min_authorities = hub_min_authorities
        self.hub = np.zeros(0)
        self.hits_authority = np.zeros(0)
        self.rank = np.zeros(0)
        self.hubs: set[int] = set()
        self.affinity: dict[int, float] = {}  # node -> topic affinity in (0, 1], fetched pages
        self.anchor_affinity: dict[int, float] = {}  # node -> best anchor affinity of links to it
        self.seconds = 0.0  # time spent computing weights, for the benchmark
        self._weights = np.zeros(0)
        self._version = -1

    def weights(self) -> np.ndarray:
        """Return the current node weights, recomputing only if the graph grew or changed."""
        version = _version(self.graph)
        if version == self._version and len(self._weights) == len(self.graph):
            return self._weights
        started = time.perf_counter()
        adjacency = self.graph.adjacency()
        n = adjacency.shape[0]
        self.hub = _grown(self.hub, n)
        self.hits_authority = _grown(self.hits_authority, n)
        accepted = self.graph.accepted()
        visited = self.graph.visited()
        estimate = adjacency.T @ self.hub
        # Max-normalised over the pages not fetched yet: the ones the walk chooses between
        # (fetched pages get the validator's verdict below, whatever hubs link to them).
        open_ = estimate[~visited]
        top = open_.max() if len(open_) else 0.0
        authority = estimate / top if top > 0 else estimate
        authority[visited] = 0.0
        authority[accepted] = 1.0
        hub = self.hub.copy()
        hub[accepted] = 0.0
        parts = [authority, hub]
        if self.variant is not Variant.HITS:
            parts.append(self._pagerank(adjacency, accepted))
        self._weights = node_weights(*parts)
        if len(parts) == 3:
            # A page not fetched yet has no hub weight, and an authority estimate of 0 is
            # evidence (no known hub links to it), not a missing value: its weight is the
            # mean of both, so PageRank alone never outweighs links from hubs.
            fresh = ~visited
            self._weights[fresh] = (authority[fresh] + parts[2][fresh]) / 2
        self._version = version
        self.seconds += time.perf_counter() - started
        return self._weights

    def find_hubs(self) -> set[int]:
        """Run HITS over the known graph (authorities fixed) and return the hubs found new."""
        started = time.perf_counter()
        adjacency = self.graph.adjacency()
        n = adjacency.shape[0]
        accepted = self.graph.accepted()
        result = hits(
            adjacency,
            authorities=accepted,
            rejected=self.graph.visited() & ~accepted,
            hub_start=_grown(self.hub, n) if self.hub.any() else None,
            authority_start=_grown(self.hits_authority, n) if self.hub.any() else None,
            tol=self.tolerance,
            max_iter=self.max_iterations,
        )
        self.hub, self.hits_authority = result.hub, result.authority
        links_to_authorities = adjacency @ accepted.astype(np.float64)
        candidates = np.flatnonzero(
            (result.hub >= self.hub_threshold)
            & (links_to_authorities >= self.hub_min_authorities)
            & self.graph.visited()
            & ~accepted
        )
        new = {int(node) for node in candidates} - self.hubs
        self.hubs |= new
        self._version = -1  # hub weights changed: node weights must be recomputed
        self.seconds += time.perf_counter() - started
        return new

    def _pagerank(self, adjacency, accepted: np.ndarray) -> np.ndarray:
        n = adjacency.shape[0]
        teleport = None
        topical = self.variant is Variant.HITS_TOPIC_PAGERANK
        if topical and (accepted.any() or self.hubs or self.affinity or self.anchor_affinity):
            teleport = np.full(n, 1.0 / n)
            if self.anchor_affinity:
                nodes = np.fromiter(self.anchor_affinity, np.int64)
                values = np.fromiter(self.anchor_affinity.values(), float) / 4
                values[self.graph.visited()[nodes]] = 0.0  # fetched: its content speaks now
                teleport[nodes] += values
            if self.affinity and not accepted.any():
                # A bootstrap only: once the validator accepted pages, they are the evidence;
                # a rejected page naming the topic in passing (a printer that prints camera
                # photos) would pull the walk into its structurally identical section.
                nodes = np.fromiter(self.affinity, np.int64)
                teleport[nodes] += np.fromiter(self.affinity.values(), float) / 2
            if self.hubs:
                hubs = np.fromiter(self.hubs, np.int64)
                teleport[hubs] = (1.0 / n + self.hub[hubs]) / 2
            teleport[accepted] = 1.0
        start = None
        if len(self.rank):
            # New pages start at the mean weight so the old vector stays a good guess.
            start = np.concatenate([self.rank, np.full(n - len(self.rank), 1.0 / n)])
        ranking = pagerank(
            adjacency,
            damping=self.damping,
            teleport=teleport,
            start=start,
            tol=self.tolerance,
            max_iter=self.max_iterations,
        )
        self.rank = ranking.scores
        top = self.rank.max() if n else 0.0
        return self.rank / top if top > 0 else self.rank


def _grown(values: np.ndarray, n: int) -> np.ndarray:
    if len(values) >= n:
        return values[:n]
    return np.concatenate([values, np.zeros(n - len(values))])


def _version(graph: WebGraph) -> int:
    return graph.version
