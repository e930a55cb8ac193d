"""The web graph of one site and the link analysis xCrawl runs on it (scipy.sparse).

`WebGraph` grows one page at a time and keeps its sparse adjacency matrix current by adding
only the new edges. The maths are plain functions on a CSR matrix:

- `pagerank`: PageRank, topic-sensitive when given a teleport vector (Haveliwala 2003);
  dangling pages hand their weight back along the teleport vector.
- `hits`: Kleinberg's hubs and authorities with the validator's authorities pinned at 1
  (and their hub weight at 0), max-normalised each round (xCrawl, second version).
- `node_weights`: the mean of the non-zero authority, hub and PageRank weights.
- `edge_weights`: weight(v) / outdegree(v) on every link of v.

Every iteration accepts a start vector, so a caller that recomputes after a small change
(one new page) warm-starts from the previous result and converges in a few rounds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy import sparse

FloatArray = np.ndarray


class WebGraph:
    """A directed graph of canonical URLs with visit and validation flags per node."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.urls: list[str] = []
        self._out: list[list[int]] = []
        self._flags = np.zeros(64, dtype=np.int8)  # bit 0 visited, bit 1 accepted
        self._edges = 0
        # Edges added since the matrix was last built; a rebuild only adds these.
        self._new_src: list[int] = []
        self._new_dst: list[int] = []
        self._matrix: sparse.csr_matrix = sparse.csr_matrix((0, 0), dtype=np.float64)
        self._stale = False  # an out-link list was replaced: rebuild from scratch
        self.version = 0  # bumped on every change, so callers know when to recompute

    def __len__(self) -> int:
        return len(self.urls)

    @property
    def edge_count(self) -> int:
        """Return the number of distinct links."""
        return self._edges

    def node(self, url: str) -> int:
        """Return the node of `url`, adding it (unvisited) if new."""
        found = self.index.get(url)
        if found is not None:
            return found
        number = len(self.urls)
        self.version += 1
        self.index[url] = number
        self.urls.append(url)
        self._out.append([])
        if number >= len(self._flags):
            self._flags = np.concatenate([self._flags, np.zeros(len(self._flags), np.int8)])
        return number

    def add_page(self, url: str, links: Iterable[str], *, accepted: bool = False) -> int:
        """Record a visited page with its out-links (replacing earlier ones) and verdict."""
        source = self.node(url)
        targets = list(dict.fromkeys(self.node(link) for link in links if link != url))
        old = self._out[source]
        if old and old != targets:
            self._stale = True
        elif not old:
            self._new_src.extend([source] * len(targets))
            self._new_dst.extend(targets)
        self._edges += len(targets) - len(old)
        self._out[source] = targets
        self._flags[source] |= 1
        self.version += 1
        self.set_accepted(source, accepted)
        return source

    def add_links(self, url: str, links: Iterable[str]) -> list[int]:
        """Add links found on `url` by other means (link probing) and return the new targets."""
        source = self.node(url)
        known = set(self._out[source])
        added = [
            t for t in dict.fromkeys(self.node(u) for u in links if u != url) if t not in known
        ]
        self._out[source].extend(added)
        self._new_src.extend([source] * len(added))
        self._new_dst.extend(added)
        self._edges += len(added)
        self.version += 1
        return added

    def set_accepted(self, node: int, accepted: bool) -> None:
        """Record the validator's verdict on a node."""
        self.version += 1
        if accepted:
            self._flags[node] |= 2
        else:
            self._flags[node] &= ~np.int8(2)

    def successors(self, node: int) -> list[int]:
        """Return the nodes a node links to, in page order."""
        return self._out[node]

    def visited(self) -> np.ndarray:
        """Return a boolean mask of the fetched nodes."""
        return (self._flags[: len(self.urls)] & 1).astype(bool)

    def accepted(self) -> np.ndarray:
        """Return a boolean mask of the nodes the validator accepted (authorities)."""
        return (self._flags[: len(self.urls)] & 2).astype(bool)

    def is_visited(self, node: int) -> bool:
        """Tell whether a node was fetched."""
        return bool(self._flags[node] & 1)

    def is_accepted(self, node: int) -> bool:
        """Tell whether the validator accepted a node."""
        return bool(self._flags[node] & 2)

    def adjacency(self) -> sparse.csr_matrix:
        """Return the n x n adjacency matrix (1 per link), updated with the new edges only."""
        n = len(self.urls)
        if self._stale:
            rows = np.repeat(np.arange(n), [len(out) for out in self._out])
            cols = np.fromiter((t for out in self._out for t in out), np.int64, self._edges)
            self._matrix = _csr(rows, cols, n)
            self._stale = False
        elif self._new_src or self._matrix.shape[0] != n:
            grown = _resized(self._matrix, n)
            if self._new_src:
                grown = grown + _csr(np.array(self._new_src), np.array(self._new_dst), n)
            self._matrix = grown
        self._new_src, self._new_dst = [], []
        return self._matrix


def _csr(rows: np.ndarray, cols: np.ndarray, n: int) -> sparse.csr_matrix:
    data = np.ones(len(rows), dtype=np.float64)
    return sparse.csr_matrix((data, (rows, cols)), shape=(n, n))


def _resized(matrix: sparse.csr_matrix, n: int) -> sparse.csr_matrix:
    """Return `matrix` grown to n x n without copying its entries into a new structure."""
    old = matrix.shape[0]
    if old == n:
        return matrix
    indptr = np.concatenate([matrix.indptr, np.full(n - old, matrix.indptr[-1])])
    return sparse.csr_matrix((matrix.data, matrix.indices, indptr), shape=(n, n))


# --- Link analysis --------------------------------------------------------------------------


@dataclass(frozen=True)
class Ranking:
    """A PageRank vector (sums to 1) and how the iteration went."""

    scores: FloatArray
    iterations: int
    converged: bool


@dataclass(frozen=True)
class HubsAndAuthorities:
    """HITS hub and authority weights in [0, 1] and how the iteration went."""

    hub: FloatArray
    authority: FloatArray
    iterations: int
    converged: bool


def out_degree(adjacency: sparse.csr_matrix) -> FloatArray:
    """Return the number of links leaving every node."""
    return np.diff(adjacency.indptr).astype(np.float64)


def pagerank(
    adjacency: sparse.csr_matrix,
    *,
    damping: float = 0.85,
    teleport: FloatArray | None = None,
    start: FloatArray | None = None,
    tol: float = 1e-6,
    max_iter: int = 100,
) -> Ranking:
    """Return PageRank: x = c * (A^T (x / outdeg) + dangling(x) * v) + (1 - c) * v.

    1. `teleport` (v) is normalised to sum 1; None means uniform (plain PageRank), a vector
       biased to the topic's pages makes it topic-sensitive.
    2. Pages without out-links (dangling, e.g. not yet fetched) give their weight back
       along v, so the scores always sum to 1.
    3. Stop when the L1 change of a round is below `tol`, or after `max_iter` rounds.
    """
    n = adjacency.shape[0]
    if n == 0:
        return Ranking(np.zeros(0), 0, True)
    if not 0 <= damping < 1:
        raise ValueError(f"damping must be in [0, 1), got {damping}")
    v = _distribution(teleport, n)
    x = _distribution(start, n) if start is not None else v.copy()
    degree = out_degree(adjacency)
    dangling = degree == 0
    inverse = np.divide(1.0, degree, out=np.zeros(n), where=~dangling)
    transposed = adjacency.T.tocsr()
    for iteration in range(1, max_iter + 1):
        spread = transposed @ (x * inverse)
        new = damping * (spread + x[dangling].sum() * v) + (1 - damping) * v
        change = np.abs(new - x).sum()
        x = new
        if change < tol:
            return Ranking(x, iteration, True)
    return Ranking(x, max_iter, False)


def hits(
    adjacency: sparse.csr_matrix,
    *,
    authorities: np.ndarray,
    rejected: np.ndarray | None = None,
    hub_start: FloatArray | None = None,
    authority_start: FloatArray | None = None,
    tol: float = 1e-6,
    max_iter: int = 100,
) -> HubsAndAuthorities:
    """Return HITS weights with the validator's verdicts fixed, max-normalised each round.

    1. Start from 1/n everywhere (or the given vectors); authorities get authority 1, pages
       the validator `rejected` authority 0 (its verdict overwrites the authority weight).
    2. H: hub(v) = sum of authority over the pages v links to; an authority's hub is 0.
    3. A: authority(v) = sum of hub over the pages linking to v; after normalising, the
       verdicts are set again, so only pages not validated yet get a computed authority.
    4. Stop when no weight moves more than `tol`, or after `max_iter` rounds.
    """
    n = adjacency.shape[0]
    pinned = np.asarray(authorities, dtype=bool)
    zeroed = np.zeros(n, bool) if rejected is None else np.asarray(rejected, dtype=bool)
    if n == 0:
        return HubsAndAuthorities(np.zeros(0), np.zeros(0), 0, True)
    a = np.full(n, 1.0 / n) if authority_start is None else np.array(authority_start, float)
    h = np.full(n, 1.0 / n) if hub_start is None else np.array(hub_start, float)
    a[zeroed] = 0.0
    a[pinned] = 1.0
    h[pinned] = 0.0
    transposed = adjacency.T.tocsr()
    for iteration in range(1, max_iter + 1):
        new_h = adjacency @ a
        new_h[pinned] = 0.0
        new_h = _max_normalised(new_h)
        new_a = _max_normalised(transposed @ new_h)
        new_a[zeroed] = 0.0
        new_a[pinned] = 1.0
        change = max(np.abs(new_h - h).max(), np.abs(new_a - a).max())
        h, a = new_h, new_a
        if change < tol:
            return HubsAndAuthorities(h, a, iteration, True)
    return HubsAndAuthorities(h, a, max_iter, False)


def node_weights(*weights: FloatArray) -> FloatArray:
    """Return, per node, the mean of its non-zero weights (0 when all are zero)."""
    stacked = np.vstack(weights)
    counts = np.count_nonzero(stacked, axis=0)
    return np.divide(stacked.sum(axis=0), counts, out=np.zeros(stacked.shape[1]), where=counts > 0)


def edge_weights(adjacency: sparse.csr_matrix, weights: FloatArray) -> sparse.csr_matrix:
    """Return the matrix of link weights: weight(v) / outdegree(v) on every link of v."""
    degree = out_degree(adjacency)
    share = np.divide(weights, degree, out=np.zeros_like(weights, dtype=float), where=degree > 0)
    return sparse.diags(share) @ adjacency


def _distribution(vector: FloatArray | None, n: int) -> FloatArray:
    if vector is None:
        return np.full(n, 1.0 / n)
    values = np.asarray(vector, dtype=np.float64)
    if values.shape != (n,) or (values < 0).any():
        raise ValueError(f"expected {n} non-negative weights, got shape {values.shape}")
    total = values.sum()
    return values / total if total > 0 else np.full(n, 1.0 / n)


def _max_normalised(values: FloatArray) -> FloatArray:
    top = values.max() if len(values) else 0.0
    return values / top if top > 0 else values
