"""A watch: a short look at where a site's news appears, between (and during) its crawl runs.

A crawl run walks the whole site once per revisit interval; news appears in a few places,
and a watch looks only there, on each place's own schedule (`crawler.store.revisit`):

1. Take the site's feeds, sitemaps and hubs whose next visit has come (`Page.objects.hubs_due`:
   those that gained new links last time first, then by measured change rate), at most
   WATCH_HUBS, and fetch them with conditional requests (ETag, Last-Modified): an unchanged
   feed costs a 304.
2. Store each answer as the run loop does (`crawler.run.step.process`): a changed hub's new
   links enter the frontier.
3. Fetch at once the pages that entered the frontier in this watch (at most WATCH_NEW,
   shallowest first), so a new article is stored, and handed on, seconds after its hub.
4. Move the site's next watch to its earliest hub visit.

A watch takes no `CrawlRun` claim, so it also runs while a long crawl run of the site goes
on; both fetch through the shared per-host slots (`crawler.fetch.politeness`), so the site
sees one polite crawler. A page both store at once is at worst stored twice with the same
content, which its handlers already take as nothing new.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from django.db.models import Min
from django.utils import timezone

from crawler.fetch.result import FetchResult
from crawler.fetch.robots import RobotsCache
from crawler.models import Page, Site
from crawler.run import step
from crawler.run.fetching import FetchBackend, open_backend
from crawler.run.frontier import Frontier
from crawler.run.loop import LoopThread
from crawler.sitesearch.template import looks_like_search

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Most hubs one watch looks at, and most new pages it fetches: a watch stays short, the
# rest waits for the next watch or the crawl run.
WATCH_HUBS = 20
WATCH_NEW = 50


@dataclass
class WatchResult:
    """What one watch did."""

    hubs: int = 0  # feeds, sitemaps and hubs asked
    unchanged: int = 0  # of those, unchanged (304 or the same body)
    new_pages: int = 0  # pages first seen in this watch and fetched in it
    versions: list[int] = field(default_factory=list)  # versions stored
    render: list[int] = field(default_factory=list)  # script shells for the render queue


def watch(site: Site | int) -> WatchResult:
    """Look at a site's due feeds, sitemaps and hubs, and fetch what they newly link to."""
    site = site if isinstance(site, Site) else Site.objects.get(id=site)
    started = timezone.now()
    frontier = Frontier(site)
    result = WatchResult()
    # The loop runs in its own thread (as a run's does), so a caller's running loop is no bar.
    try:
        with LoopThread() as io:
            backend = io.call(open_backend(site))
            # Watches come every few seconds: robots.txt is kept across them, as a run keeps it.
            backend.fetcher.robots_cache = _robots_cache(backend)
            try:
                due = Page.objects.filter(site=site).hubs_due(started).select_related("site")
                hubs = _open_hubs(frontier, due[: WATCH_HUBS * 2])[:WATCH_HUBS]
                frontier.take(page.url for page in hubs)
                result.hubs = len(hubs)
                for page, fetched in zip(
                    hubs, _run(io, _fetch_all(backend, site, hubs)), strict=True
                ):
                    outcome = _store(frontier, page, fetched, result)
                    result.unchanged += bool(outcome and outcome.counts.get("unchanged"))
                fresh = _first_seen_since(frontier, site, started)
                result.new_pages = len(fresh)
                for page, fetched in zip(
                    fresh, _run(io, _fetch_all(backend, site, fresh)), strict=True
                ):
                    _store(frontier, page, fetched, result)
            finally:
                io.call(backend.aclose())
    finally:
        schedule_next_watch(site)
    return result


_ROBOTS: dict[tuple[float, float], RobotsCache] = {}


def _robots_cache(backend: FetchBackend) -> RobotsCache:
    """Return this process's robots.txt cache for the backend's policy."""
    policy = backend.fetcher.policy
    key = (policy.robots_ttl, policy.robots_error_ttl)
    if key not in _ROBOTS:
        _ROBOTS[key] = RobotsCache(*key)
    return _ROBOTS[key]


def _open_hubs(frontier: Frontier, pages: Iterable[Page]) -> list[Page]:
    """Return the hubs a watch may ask: none of a shape closed as a trap or a copy, none
    spelt with a parameter learnt to change nothing, no search result page (asked again by
    its search's own schedule)."""
    return [
        page
        for page in pages
        if frontier.refusal(page.url) is None
        and frontier.respelt(page.url) == page.url
        and not looks_like_search(page.url)
    ]


def schedule_next_watch(site: Site) -> None:
    """Set the site's next watch to its earliest hub visit (none without fetched hubs)."""
    hubs = Page.objects.filter(site=site).hubs().fetched()
    Site.objects.filter(id=site.id).update(
        next_watch_at=hubs.aggregate(first=Min("next_visit_at"))["first"]
    )


def _first_seen_since(frontier: Frontier, site: Site, since: datetime) -> list[Page]:
    """Return the never-fetched pages that entered the frontier since `since`, shallowest first."""
    pages = (
        Page.objects.filter(site=site, first_seen_at__gte=since)
        .unfetched()
        .select_related("site")
        .order_by("depth", "id")
    )
    picked = []
    for page in pages[: WATCH_NEW * 2]:
        if page.url in frontier.taken or frontier.refusal(page.url, page.depth) is not None:
            continue
        picked.append(page)
        if len(picked) >= WATCH_NEW:
            break
    frontier.take(page.url for page in picked)
    return picked


def _store(
    frontier: Frontier, page: Page, fetched: FetchResult | BaseException, result: WatchResult
) -> step.Processed | None:
    if isinstance(fetched, BaseException):
        # A fault in one fetch must not cost the others; the page stays due for the next watch.
        logger.error("Watching %s failed: %r", page.url, fetched)
        return None
    outcome = step.process(frontier, None, page, fetched, render_shells="defer")
    if outcome.version_id is not None:
        result.versions.append(outcome.version_id)
    if outcome.render is not None:
        result.render.append(outcome.render)
    return outcome


async def _fetch_all(
    backend: FetchBackend, site: Site, pages: list[Page]
) -> list[FetchResult | BaseException]:
    """Fetch pages concurrently (the fetcher keeps each host's turns), conditionally."""
    return await asyncio.gather(
        *(
            step.fetch_page(
                backend,
                page.url,
                etag=page.etag,
                last_modified=page.last_modified,
                needs_browser=site.needs_browser,
                render_shells="defer",
            )
            for page in pages
        ),
        return_exceptions=True,
    )


def _run(io: LoopThread, coro: Coroutine[Any, Any, T]) -> T:
    # The database is used between fetch rounds, in this thread, while the loop is idle.
    return io.call(coro)
