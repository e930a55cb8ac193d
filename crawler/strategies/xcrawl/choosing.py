"""Which pages xCrawl fetches next: revisits first, then the candidates of most value.

Part of `XCrawl` (crawler.strategies.xcrawl.strategy), on the state it keeps: the walk's
restarts (FindHubs and the node weights) and which nodes it may hand out.
"""

from __future__ import annotations

from collections import deque

from crawler.canonical import url_shape
from crawler.models import Page
from crawler.sitesearch.template import is_search_url
from crawler.strategies.xcrawl.priority import Candidate

PENDING_KEPT = 32  # hand-outs not observed yet that still hold back weaker candidates


class ChoosingUrls:
    """XCrawl's choice of the next URLs."""

    def _choose(self, picked: list[int], limit: int) -> None:
        """Add the most valuable fetchable candidates to `picked`, up to `limit` in all."""
        # A URL the loop dropped is never observed: only recent hand-outs count.
        for node in [n for n in self._pending if self.graph.is_visited(n)]:
            del self._pending[node]
        while len(self._pending) > PENDING_KEPT:
            del self._pending[next(iter(self._pending))]
        pending = list(self._pending.values())
        chosen = self.priorities.best(
            limit - len(picked),
            self._weights,
            lambda n: n not in picked and self._fetchable(n),
            pending=max(pending, default=0.0),
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

    def _fetchable(self, node: int) -> bool:
        """Tell whether a candidate may be fetched now; forget it if it never may."""
        if not self._open(node):
            self.priorities.candidates.pop(node, None)
            return False
        candidate = self.priorities.candidates[node]
        url = self.graph.urls[node]
        if self.frontier.shapes.unproven(url) and any(
            self.priorities.candidates.get(n, candidate).shape == candidate.shape
            and url_shape(self.graph.urls[n]) == candidate.shape
            for n in self._pending
        ):
            return False  # one page of a new shape first: it may be a trap or a copy
        if self.frontier.refusal(url, candidate.depth) is not None:
            self.priorities.candidates.pop(node, None)  # a trap or copy shape, found since
            return False
        return True

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

    def _restart(self) -> None:
        """FindHubs, recompute the node weights, and DownloadAllAuthorities for new hubs."""
        self.stats.restarts += 1
        new_hubs = self.weights.find_hubs() if self.graph.accepted().any() else set()
        if new_hubs:
            self.no_new_hubs = 0
            self.stats.hubs += len(new_hubs)
            for hub in sorted(new_hubs):
                self._harvest(hub)
            self._store_hubs(new_hubs)
        else:
            self.no_new_hubs += 1
        weights = self.weights.weights()
        top = weights.max() if len(weights) else 0.0
        self._weights = weights / top if top > 0 else weights
