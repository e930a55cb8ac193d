"""Teasers followed to their article (Page Analyzer, Algorithm 2) within the same run.

A hub area's link whose text holds a keyword someone asked for, or a teaser whose headline
or text does, points at the article to tell people about: the article is clipped, never
the page linking to it. The run gives such links to the fetcher before whatever the
strategy offers (for every strategy), and counts the articles reached this way.

1. `candidates` reads a stored page's analysis: its teasers (informational areas marked
   teaser, with the URL they lead to) and its hub areas' links, and asks the keyword
   matcher (`crawler.topic.keyword_matcher`) which of their texts hold a keyword.
2. `Teasers.offer` keeps the matching same-site URLs that no earlier run fetched, in the
   order found; `Teasers.next` hands out those not taken yet this run.
3. `Teasers.reached` counts an information page fetched because of a teaser.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crawler.canonical import BadURL
from crawler.models import Page
from crawler.run.frontier import Frontier
from crawler.strategies.base import PageObservation

MAX_TEXTS_PER_PAGE = 400  # a hub page's teasers and links asked about at most
MAX_WAITING = 2000  # candidates kept waiting at most; the oldest are dropped first


def candidates(analysis: Any, matches: Callable[[list[str]], list[bool]]) -> list[str]:
    """Return the URLs a page's teasers and hub links lead to when their text holds a keyword."""
    if analysis is None:
        return []
    pairs: list[tuple[str, str]] = []
    for area in getattr(analysis, "informational_areas", ()):
        if area.teaser and area.follow_url:
            pairs.append((area.follow_url, f"{area.title}\n{area.text}"))
    for hub in getattr(analysis, "hub_areas", ()):
        pairs.extend((link.url, link.text) for link in hub.links if link.text.strip())
    pairs = pairs[:MAX_TEXTS_PER_PAGE]
    if not pairs:
        return []
    hits = matches([text for _, text in pairs])
    return list(dict.fromkeys(url for (url, _), hit in zip(pairs, hits, strict=True) if hit))


class Teasers:
    """The articles a run's hubs announced for someone's keywords, waiting to be fetched."""

    def __init__(self, frontier: Frontier, matches: Callable[[list[str]], list[bool]]) -> None:
        self.frontier = frontier
        self.matches = matches
        self.waiting: dict[str, None] = {}
        self.handed: set[str] = set()

    def offer(self, observation: PageObservation) -> int:
        """Queue the articles a freshly stored page's teasers lead to; return how many."""
        if observation.error is not None or not (observation.new or observation.changed):
            return 0
        urls: list[str] = []
        for url in candidates(observation.analysis, self.matches):
            try:
                canonical = self.frontier.canonical(url)
            except BadURL:
                continue
            if canonical != observation.url and canonical not in self.frontier.taken:
                urls.append(canonical)
        if not urls:
            return 0
        known = set(
            Page.objects.filter(
                site=self.frontier.site, url__in=urls, last_fetched_at__isnull=False
            ).values_list("url", flat=True)
        )
        fresh = [url for url in urls if url not in known and url not in self.waiting]
        self.waiting.update(dict.fromkeys(fresh))
        while len(self.waiting) > MAX_WAITING:
            self.waiting.pop(next(iter(self.waiting)))
        return len(fresh)

    def next(self, limit: int) -> list[str]:
        """Return up to `limit` waiting URLs not taken yet this run, oldest first."""
        picked: list[str] = []
        for url in list(self.waiting):
            if len(picked) >= limit:
                break
            del self.waiting[url]
            if url not in self.frontier.taken:
                picked.append(url)
        self.handed.update(picked)
        return picked

    def reached(self, observation: PageObservation) -> bool:
        """Tell whether this observation is an article fetched because a teaser named it."""
        url = observation.requested or observation.url
        if url not in self.handed:
            return False
        self.handed.discard(url)
        return observation.error is None and observation.kind == Page.Kind.INFORMATION
