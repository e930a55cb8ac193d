"""Which pages xCrawl fetches next: revisits, a breadth-first share, downloads, then the
candidates of most value (best-first) or the walk's next step.

Part of `XCrawl` (crawler.strategies.xcrawl.strategy), on the state it keeps: the walk's
restarts (FindHubs and the node weights) and which nodes it may hand out.

The walk (the paper's SelectLink): from the page it stands on (the last page it chose that
was fetched), the link whose target has the most value; a link v -> t carries
weight(t) / outdegree(v), so on one page the heaviest target wins, ties broken by the run's
seeded generator (`walk.Walk.heaviest`). Before each step, with probability
restartProbability, and at a dead end (no link to a page not fetched yet), it restarts at a
random known authority, or at a seed before any is known. After a few dead ends in a row it
takes the best candidate of the whole graph, so a run never stalls. With `walk_floor` above
0 (the default), a link worth less than that share of the best candidate's value does not
count: a page with no better link is a dead end (the paper's walk, `walk_floor` 0, follows
its best link wherever it leads).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np

from crawler.canonical import url_shape
from crawler.models import Page
from crawler.sitesearch.template import is_search_url
from crawler.strategies.xcrawl.priority import Candidate

PENDING_KEPT = 32  # hand-outs not observed yet that still hold back weaker candidates
REFRESH_EVERY = 8  # hand-outs between two recomputations of the node weights
DEAD_ENDS = 3  # restarts at dead ends in a row before the walk takes the best candidate


class ChoosingUrls:
    """XCrawl's choice of the next URLs."""

    def _choose(self, picked: list[int], limit: int) -> None:
        """Add the most valuable fetchable candidates to `picked`, up to `limit` in all."""
        # A URL the loop dropped is never observed: only recent hand-outs count.
        for node in [n for n in self._pending if self.graph.is_visited(n)]:
            del self._pending[node]
        while len(self._pending) > PENDING_KEPT:
            del self._pending[next(iter(self._pending))]
        self._refresh_weights()
        pending = list(self._pending.values())
        taken = list(picked)  # what this ask handed out so far, the chosen included

        def allowed(node: int) -> bool:
            if node in picked or not self._fetchable(node, taken):
                return False
            taken.append(node)  # `best` takes every candidate allowed, in turn
            return True

        chosen = self.priorities.best(
            limit - len(picked), self._weights, allowed, pending=max(pending, default=0.0)
        )
        for node in chosen:
            self._pending[node] = self.priorities.value(node)
        self.stats.walk_steps += len(chosen)
        picked.extend(chosen)

    def _adopt_frontier(self) -> None:
        """Make the frontier's unfetched pages candidates: seeds, sitemaps and feeds first."""
        self._adopted = True
        first = {Page.Role.SEED, Page.Role.SITEMAP, Page.Role.FEED}
        rows = Page.objects.filter(site=self.site, last_fetched_at__isnull=True).order_by(
            "depth", "id"
        )
        for url, depth, role in rows.values_list("url", "depth", "role"):
            node = self.graph.node(url)
            if node in self.blocked or self.graph.is_visited(node):
                continue
            candidate = self.priorities.candidates.setdefault(
                node, Candidate(depth=depth, shape=url_shape(url))
            )
            if role in first:
                candidate.boost = candidate.evidence = 1.0

    def _fetchable(self, node: int, picked: list[int] | None = None) -> bool:
        """Tell whether a candidate may be fetched now (besides `picked`); forget it if it
        never may."""
        if not self._open(node):
            self.priorities.candidates.pop(node, None)
            return False
        candidate = self.priorities.candidates[node]
        url = self.graph.urls[node]
        if self._shape_out(url, picked or []):
            return False  # one page of a new shape first: it may be a trap or a copy
        if self.frontier.refusal(url, candidate.depth) is not None:
            self.priorities.candidates.pop(node, None)  # a trap or copy shape, found since
            return False
        return True

    def _shape_out(self, url: str, picked: list[int]) -> bool:
        """Tell whether `url` has a shape that may be a trap or a copy (a query, a /print/
        view) and a page of that shape is picked or in flight, whoever handed it out: one
        page of a new shape is fetched before the others."""
        if not self.frontier.shapes.unproven(url):
            return False
        shape = url_shape(url)
        return shape in self._suspects.values() or any(
            url_shape(self.graph.urls[n]) == shape for n in picked
        )

    def _note_suspects(self, picked: list[int]) -> None:
        """Remember the handed-out pages whose shape may be a trap or a copy (until observed)."""
        for node in picked:
            url = self.graph.urls[node]
            if self.frontier.shapes.unproven(url):
                self._suspects[node] = url_shape(url)

    def _pick(self, picked: list[int], queue: deque[int], limit: int) -> None:
        while queue and len(picked) < limit:
            node = queue.popleft()
            if node not in self.blocked and node not in picked:
                picked.append(node)

    def _open(self, node: int) -> bool:
        """Tell whether the walk or DownloadAllAuthorities may fetch `node`.

        Pages of the site's search are left to the query generation (the first n results
        of each query, as in the paper): the walk would otherwise page through results
        lists of pages it mostly knows.
        """
        if node in self.blocked or self.graph.is_visited(node):
            return False
        template = self.search_template
        return template is None or not is_search_url(self.graph.urls[node], template)

    def _explore(self, picked: list[int], limit: int) -> None:
        """Take the frontier's breadth-first next URLs while they are below `explore_share`.

        A page taken so is pending like one the run chose: a list page in flight holds back
        weaker candidates until it shows its items.
        """
        share = self.config.explore_share
        while len(picked) < limit and self.explored < share * (self.handed + len(picked) + 1):
            urls = self.frontier.next_batch(1)
            if not urls:
                return
            node = self.graph.node(urls[0])
            self.explored += 1
            if node not in self.blocked and node not in picked:
                picked.append(node)
                if node in self.priorities.candidates:
                    self._pending[node] = self.priorities.value(node)

    def _walk(self, picked: list[int], limit: int) -> None:
        """Add the walk's next steps to `picked`: the best links of the page it stands on."""
        dead_ends = 0
        while len(picked) < limit:
            if self.walk.current is None or self.walk.wants_restart():
                self._restart()
                self._walk_restart()
            self._refresh_weights()
            values = self._walk_values()
            node = self.walk.choose(values, self._walk_step(picked, values))
            if node is None:
                dead_ends += 1
                if dead_ends > DEAD_ENDS:
                    self._choose(picked, limit)
                    return
                self._restart(counted=False)  # a dead end is no iteration of the walk
                self._walk_restart()
                continue
            dead_ends = 0
            picked.append(node)
            self.walked.add(node)
            self.stats.walk_steps += 1

    def _walk_step(self, picked: list[int], values) -> Callable[[int], bool]:
        """Return which links the walk may take now: unfetched candidates not picked, worth
        `walk_floor` of the best candidate's value (a page whose links are all worth less is
        a dead end); any such link for the paper's walk (`walk_floor` 0)."""
        floor = -1.0
        if self.config.walk_floor > 0:
            floor = self.config.walk_floor * self._best_value(picked)
        return lambda n: n not in picked and self._walkable(n, picked) and values[n] >= floor

    def _best_value(self, picked: list[int]) -> float:
        """Return the value of the best fetchable candidate not picked (0 with none).

        Worked out once per ask while that candidate stays unpicked: the downloads and the
        walk ask it at every page they hand out, and nothing it depends on changes between.
        """
        known = self._best_known
        if known is not None and known[0] not in picked:
            return known[1]
        top = self.priorities.best(
            1, self._weights, lambda n: n not in picked and self._fetchable(n, picked)
        )
        if not top:
            return 0.0
        value = self.priorities.value(top[0], float(self._weights_at(top[0])))
        self._best_known = (top[0], value)
        return value

    def _walk_restart(self) -> None:
        """Start the walk again at a random known authority, or a seed before any is known."""
        known = [int(n) for n in self.graph.accepted().nonzero()[0] if self.graph.is_visited(n)]
        if known:
            self.walk.start_at(self.rng.choice(sorted(known)))
            return
        seeds = sorted(self.graph.index[url] for url in self._seeds if url in self.graph.index)
        if seeds:
            self.walk.start_at(self.rng.choice(seeds))

    def _walk_values(self):
        """Return every node's value for the walk: its candidate value, else its node weight."""
        values = self._weights.copy() if len(self._weights) else self._weights
        if len(values) < len(self.graph):
            values = np.concatenate([values, np.zeros(len(self.graph) - len(values))])
        values = values * self.config.graph_share
        current = self.walk.current
        successors = self.graph.successors(current) if current is not None else []
        memo: dict[object, float] = {}
        for node in successors:
            if node in self.priorities.candidates:
                values[node] = self.priorities.value(node, float(self._weights_at(node)), memo)
        return values

    def _weights_at(self, node: int) -> float:
        return self._weights[node] if node < len(self._weights) else 0.0

    def _walkable(self, node: int, picked: list[int]) -> bool:
        return node in self.priorities.candidates and self._fetchable(node, picked)

    def _find_hubs(self) -> set[int]:
        """FindHubs, and DownloadAllAuthorities for the new hubs; return them."""
        new_hubs = self.weights.find_hubs() if self.graph.accepted().any() else set()
        if new_hubs:
            self.no_new_hubs = 0
            self.stats.hubs += len(new_hubs)
            for hub in sorted(new_hubs):
                self._raise_evidence(hub)
                self._harvest(hub)
            self._store_hubs(new_hubs)
        return new_hubs

    def _restart(self, *, counted: bool = True) -> None:
        """A restart: FindHubs, counted for noNewHubsFound (a restart drawn at random, not one
        forced by a dead end), and the node weights recomputed."""
        self.stats.restarts += 1
        if not self._find_hubs() and counted:
            self.no_new_hubs += 1
        self._refresh_weights(force=True)

    def _refresh_weights(self, *, force: bool = False) -> None:
        """Recompute the node weights (incrementally, max-normalised) at a restart, and
        between restarts every `REFRESH_EVERY` hand-outs: PageRank over the whole graph at
        every choice would cost more than the fetches it orders."""
        if not force and self.handed - self._weights_handed < REFRESH_EVERY:
            return
        self._weights_handed = self.handed
        self._best_known = None  # new weights (and the hubs a restart found) change the values
        weights = self.weights.weights()
        top = weights.max() if len(weights) else 0.0
        self._weights = weights / top if top > 0 else weights
