"""Breadth-first crawling: the frontier's own order (hubs, new URLs by depth, due pages)."""

from __future__ import annotations

from crawler.strategies.base import PageObservation, Strategy, register


@register
class BreadthFirst(Strategy):
    """Fetch what the frontier offers, shallowest first; accept information pages."""

    name = "bfs"

    def next_urls(self, limit: int) -> list[str]:
        return self.frontier.next_batch(limit)

    def observe(self, observation: PageObservation) -> None:
        # Breadth-first needs no memory: new links are already in the frontier with their depth.
        return None
