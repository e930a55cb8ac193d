"""What happens to one URL: fetch (and render) it, then store what came back.

`fetch_page` runs on the fetching event loop and touches no database; `process` runs in the
crawl thread and writes one page in one transaction (through `crawler.store.pages`). Neither
enqueues work: a script shell left to the render queue comes back as `Outcome.render`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

from crawler.extract.page import extract
from crawler.fetch.result import ErrorKind, FetchError, FetchResult
from crawler.models import CrawlRun, Link, Page
from crawler.run.fetching import FetchBackend, is_html, looks_like_script_shell
from crawler.run.frontier import Frontier
from crawler.store import pages as storage
from crawler.store.pages import Extracted
from crawler.strategies.base import LinkRecord, PageObservation

logger = logging.getLogger(__name__)

LEFT_THE_CRAWL = FetchError(ErrorKind.REDIRECTS, "left the crawl")


@dataclass
class Outcome:
    """What processing one fetch produced: the strategy's observation and counter increments."""

    observation: PageObservation
    counts: dict[str, int] = field(default_factory=dict)
    version_id: int | None = None
    # Seconds the host asked us to keep away; set when a URL was not asked because of it.
    deferred: float | None = None
    # The id of a page stored as served that the render queue should render (a script shell).
    render: int | None = None


async def fetch_page(
    backend: FetchBackend,
    url: str,
    *,
    etag: str,
    last_modified: str,
    needs_browser: bool,
    render_shells: str,
) -> FetchResult:
    """Fetch a URL conditionally, rendering it in the browser when the site or page needs it."""
    fetched = await backend.fetch(url, etag=etag, last_modified=last_modified)
    if not fetched.succeeded or not is_html(fetched):
        return fetched
    if needs_browser or (render_shells == "inline" and looks_like_script_shell(fetched.body)):
        rendered = await backend.render(fetched.final_url)
        if rendered.succeeded:
            rendered.etag, rendered.last_modified = fetched.etag, fetched.last_modified
            rendered.source_hash = storage.content_hash(fetched.body)
            return rendered
        logger.info("Rendering %s failed (%s); keeping the HTML as served.", url, rendered.error)
    return fetched


def process(
    frontier: Frontier,
    run: CrawlRun | None,
    page: Page,
    fetched: FetchResult,
    *,
    render_shells: str = "off",
) -> Outcome:
    """Store one fetch result for `page` and return the observation for the strategy.

    Everything one fetch writes (page state, version, links, new frontier URLs) commits
    together, so a worker killed at any point leaves each page stored whole or not at all.
    """
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # The commit need not wait for the disk: a killed worker loses nothing, and a
            # database crash loses at most the last moments of pages, which the frontier
            # (written in the same transactions) fetches again. Consistency is unaffected.
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
        return _process(frontier, run, page, fetched, render_shells=render_shells)


def _process(
    frontier: Frontier, run: CrawlRun | None, page: Page, result: FetchResult, *, render_shells: str
) -> Outcome:
    """Store one result according to what came back.

    1. Not asked because the host asked us to wait: nothing is charged.
    2. Not allowed (robots.txt, address, URL): skipped for long.
    3. Any other error, or no usable answer: a failure, retried later.
    4. An answer: stored under the page it belongs to (the redirect target, if any).
    """
    now = timezone.now()
    match result.error:
        case FetchError(kind=ErrorKind.BACKOFF) as error:
            storage.record_deferred(page, error, now=now)
            observation = _observation(page, result, error=error)
            return Outcome(observation, deferred=error.retry_after or 0.0)
        case FetchError(kind=ErrorKind.ROBOTS | ErrorKind.SSRF | ErrorKind.URL) as error:
            storage.record_skip(page, error, now=now)
            counter = "robots_skipped" if error.kind == ErrorKind.ROBOTS else "errors"
            return Outcome(_observation(page, result, error=error), {counter: 1})
        case FetchError() as error:
            return _failed(page, result, error, now=now)
        case None if not (result.succeeded or result.not_modified):
            return _failed(
                page, result, FetchError(ErrorKind.HTTP, f"HTTP {result.status}"), now=now
            )
    target = _follow_redirect(frontier, page, result, now=now)
    if target is None:
        return Outcome(
            _observation(page, result, error=LEFT_THE_CRAWL), {"fetched": 1, "errors": 1}
        )
    return _answered(frontier, run, target, result, render_shells=render_shells, now=now)


def _failed(page: Page, result: FetchResult, error: FetchError, *, now: datetime) -> Outcome:
    """Record a fetch that brought nothing usable back."""
    storage.record_failure(page, error, status=result.status, now=now)
    return Outcome(_observation(page, result, error=error), {"fetched": 1, "errors": 1})


def _answered(
    frontier: Frontier,
    run: CrawlRun | None,
    page: Page,
    result: FetchResult,
    *,
    render_shells: str,
    now: datetime,
) -> Outcome:
    """Store an answer: a visit when the page is unchanged, else a new version."""
    counts = {"fetched": 1, "rendered": int(result.rendered)}
    digest = storage.content_hash(result.body) if result.succeeded else ""
    # A page never fetched before has no version: no need to ask.
    latest = storage.latest_hashes(page) if page.last_fetched_at is not None else None
    if result.not_modified or storage.is_unchanged(result, digest, latest):
        storage.record_unchanged(page, result, now=now)
        observation = _observation(page, result, links=_stored_links(page))
        return Outcome(observation, counts | {"unchanged": 1})
    new = latest is None
    extracted = extract(result, frontier.canonical)
    ids = _admit_links(frontier, page, extracted, now=now)
    version = storage.record_version(
        page, result, extracted, digest=digest, frontier_ids=ids, first=new, run=run, now=now
    )
    observation = _observation(
        page,
        result,
        new=new,
        changed=not new,
        kind=extracted.kind or None,
        analysis=extracted.analysis,
        links=extracted.links,
    )
    render = page.id if _left_to_render(result, render_shells) else None
    return Outcome(
        observation, counts | {"new" if new else "changed": 1}, version.id, render=render
    )


def _admit_links(
    frontier: Frontier, page: Page, extracted: Extracted, *, now: datetime
) -> dict[str, int]:
    """Add the page's links, feeds and nested sitemaps to the frontier; return their ids."""
    depth = page.depth + 1
    ids = frontier.add([link.url for link in extracted.links], depth=depth, now=now)
    ids |= frontier.add(extracted.feeds, depth=depth, role=Page.Role.FEED, now=now)
    ids |= frontier.add(extracted.sitemaps, depth=depth, role=Page.Role.SITEMAP, now=now)
    return ids


def _left_to_render(result: FetchResult, render_shells: str) -> bool:
    """Tell whether a stored body is a script shell that the render queue should render."""
    return (
        render_shells == "defer"
        and not result.rendered
        and is_html(result)
        and looks_like_script_shell(result.body)
    )


def _follow_redirect(
    frontier: Frontier, page: Page, result: FetchResult, *, now: datetime
) -> Page | None:
    """Return the page the content belongs to: `page`, or the redirect target (None if refused)."""
    if not result.redirected:
        return page
    target_url = frontier.canonical(result.final_url)
    if target_url == page.url:
        return page
    ids = frontier.add([target_url], depth=page.depth, role=page.role, now=now)
    if target_url not in ids:
        outside = FetchError(ErrorKind.REDIRECTS, f"to {target_url}, outside the crawl")
        storage.record_failure(page, outside, status=result.status, now=now)
        return None
    storage.record_redirect(page, target_url, now=now)
    frontier.take([target_url])
    return Page.objects.select_related("site").get(id=ids[target_url])


def _stored_links(page: Page) -> list[LinkRecord]:
    rows = Link.objects.filter(from_page=page).values_list(
        "target_url", "anchor", "area_path", "area_kind"
    )
    return [LinkRecord(*row) for row in rows]


def _observation(page: Page, result: FetchResult, **values) -> PageObservation:
    fields = {
        "page_id": page.id,
        "url": page.url,
        "depth": page.depth,
        "status": result.status,
        "new": False,
        "changed": False,
        "kind": page.kind or None,
    }
    fields.update(values)
    return PageObservation(**fields)
