"""What happens to one URL: fetch (and render) it, then store what came back.

`fetch_page` runs on the fetching event loop and touches no database; `process` runs in the
crawl thread and writes one page in one transaction (through `crawler.store.pages`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.utils import timezone

from crawler.extract.page import extract
from crawler.models import CrawlRun, Link, Page
from crawler.run.backend import FetchBackend, is_html, looks_like_script_shell
from crawler.run.frontier import Frontier
from crawler.store import pages as storage
from crawler.store.pages import Fetched
from crawler.strategies.base import LinkRecord, PageObservation

logger = logging.getLogger(__name__)

# Fetch errors that mean "not allowed to fetch", not "the site failed".
SKIPS = frozenset({"robots", "ssrf", "url"})


@dataclass
class Outcome:
    """What processing one fetch produced: the strategy's observation and counter increments."""

    observation: PageObservation
    counts: dict[str, int] = field(default_factory=dict)
    version_id: int | None = None
    # Seconds the host asked us to keep away; set when a URL was not asked because of it.
    deferred: float | None = None


async def fetch_page(
    backend: FetchBackend,
    url: str,
    *,
    etag: str,
    last_modified: str,
    needs_browser: bool,
    render_shells: str,
) -> Fetched:
    """Fetch a URL conditionally, rendering it in the browser when the site or page needs it."""
    fetched = await backend.fetch(url, etag=etag, last_modified=last_modified)
    if not fetched.succeeded or not is_html(fetched):
        return fetched
    if needs_browser or (render_shells == "inline" and looks_like_script_shell(fetched.body)):
        rendered = await backend.render(fetched.final_url or url)
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
    fetched: Fetched,
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
    frontier: Frontier, run: CrawlRun | None, page: Page, fetched: Fetched, *, render_shells: str
) -> Outcome:
    now = timezone.now()
    kind = fetched.error.split(":", 1)[0]
    if kind == "backoff":
        # Not asked at all: the host is still in a Retry-After wait. Nothing is charged.
        storage.record_deferred(page, fetched, now=now)
        return Outcome(
            _observation(page, fetched, error=fetched.error),
            deferred=fetched.retry_after or 0.0,
        )
    if kind in SKIPS:
        storage.record_skip(page, fetched.error, now=now)
        counter = "robots_skipped" if kind == "robots" else "errors"
        return Outcome(_observation(page, fetched, error=fetched.error), {counter: 1})
    if fetched.error or not (fetched.succeeded or fetched.not_modified):
        storage.record_failure(page, fetched, now=now)
        error = fetched.error or f"http: HTTP {fetched.status}"
        return Outcome(_observation(page, fetched, error=error), {"fetched": 1, "errors": 1})
    target = _follow_redirect(frontier, page, fetched, now=now)
    if target is None:
        return Outcome(
            _observation(page, fetched, error="redirects: left the crawl"),
            {"fetched": 1, "errors": 1},
        )
    page = target
    counts = {"fetched": 1, "rendered": int(fetched.rendered)}
    digest = storage.content_hash(fetched.body) if fetched.succeeded else ""
    # A page never fetched before has no version: no need to ask.
    latest = storage.latest_hashes(page) if page.last_fetched_at is not None else None
    if fetched.not_modified or storage.is_unchanged(fetched, digest, latest):
        storage.record_unchanged(page, fetched, now=now)
        return Outcome(
            _observation(page, fetched, links=_stored_links(page)), counts | {"unchanged": 1}
        )
    extracted = extract(fetched, frontier.canonical)
    ids = frontier.add([link.url for link in extracted.links], depth=page.depth + 1, now=now)
    ids |= frontier.add(extracted.feeds, depth=page.depth + 1, role=Page.Role.FEED, now=now)
    ids |= frontier.add(extracted.sitemaps, depth=page.depth + 1, role=Page.Role.SITEMAP, now=now)
    new = latest is None
    version = storage.record_version(
        page, fetched, extracted, digest=digest, frontier_ids=ids, first=new, run=run, now=now
    )
    if (
        render_shells == "defer"
        and not fetched.rendered
        and is_html(fetched)
        and looks_like_script_shell(fetched.body)
    ):
        from crawler.tasks import render_page  # the task module imports the run loop

        render_page.delay_on_commit(page.id)
    observation = _observation(
        page,
        fetched,
        new=new,
        changed=not new,
        kind=extracted.kind or None,
        analysis=extracted.analysis,
        links=extracted.links,
    )
    return Outcome(observation, counts | {"new" if new else "changed": 1}, version.id)


def _follow_redirect(frontier: Frontier, page: Page, fetched: Fetched, *, now) -> Page | None:
    """Return the page the content belongs to: `page`, or the redirect target (None if refused)."""
    if not fetched.final_url:
        return page
    target_url = frontier.canonical(fetched.final_url)
    if target_url == page.url:
        return page
    ids = frontier.add([target_url], depth=page.depth, role=page.role, now=now)
    if target_url not in ids:
        storage.record_failure(
            page,
            Fetched(
                url=page.url,
                status=fetched.status,
                error=f"redirects: to {target_url}, outside the crawl",
            ),
            now=now,
        )
        return None
    storage.record_redirect(page, target_url, now=now)
    frontier.take([target_url])
    return Page.objects.select_related("site").get(id=ids[target_url])


def _stored_links(page: Page) -> list[LinkRecord]:
    rows = Link.objects.filter(from_page=page).values_list(
        "target_url", "anchor", "area_path", "area_kind"
    )
    return [LinkRecord(*row) for row in rows]


def _observation(page: Page, fetched: Fetched, **values) -> PageObservation:
    fields = {
        "page_id": page.id,
        "url": page.url,
        "depth": page.depth,
        "status": fetched.status,
        "new": False,
        "changed": False,
        "kind": page.kind or None,
    }
    fields.update(values)
    return PageObservation(**fields)
