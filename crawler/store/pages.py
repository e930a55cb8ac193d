"""Write what one fetch taught us: page state, new versions, links, revisit times.

Every function here runs in one transaction per page, so a killed worker leaves each page
either fully stored or untouched. A new `PageVersion` is written only when the body's hash
differs from the latest version; a changed page with informational areas is handed on
(`crawler.hooks.hand_on`) once the transaction commits.

Given a batch (`crawler.store.held.HeldBatch`), `record_version` and `record_unchanged` hold
their rows there (the version, the page's own state, its links), written with the batch's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from crawler import hooks
from crawler.conf import crawler_settings
from crawler.fetch.result import FetchError, FetchResult
from crawler.models import CrawlRun, Link, Page, PageVersion, Site
from crawler.store.held import HeldBatch, insert_links
from crawler.store.revisit import change_rate, is_hub, record_visit, visit_wait
from crawler.strategies.base import LinkRecord

if TYPE_CHECKING:
    from crawler.extract.extracted import Extracted
    from crawler.extract.feeds import ListedDate

NEW, CHANGED, UNCHANGED, FAILED, ROBOTS = "new", "changed", "unchanged", "failed", "robots"
ERROR_CHARS = 300  # Page.error's length


def content_hash(body: bytes) -> str:
    """Return the hex SHA-256 of a body."""
    return hashlib.sha256(body).hexdigest()


def latest_hashes(page: Page) -> tuple[str, str] | None:
    """Return (content hash, source hash) of the page's latest version, None if it has none."""
    return (
        PageVersion.objects.filter(page=page)
        .order_by("-fetched_at", "-id")
        .values_list("content_hash", "source_hash")
        .first()
    )


def error_text(error: FetchError) -> str:
    """Return an error as the text columns keep it: "kind: message", cut to fit."""
    return str(error)[:ERROR_CHARS]


def is_unchanged(fetched: FetchResult, digest: str, latest: tuple[str, str] | None) -> bool:
    """Tell whether a fetched body matches the page's latest stored version.

    A rendered body is compared as rendered. An HTML body as served also matches a latest
    version that was rendered from the same HTML, so a script shell rendered once is not
    stored again on every visit.
    """
    if latest is None:
        return False
    return digest == latest[0] or (not fetched.rendered and digest == latest[1])


def record_skip(page: Page, error: FetchError, *, now: datetime | None = None) -> None:
    """Record a URL the crawler may not fetch (robots.txt, refused address) and wait long."""
    now = now or timezone.now()
    Page.objects.filter(id=page.id).update(
        last_fetched_at=now,
        error=error_text(error),
        failures=page.failures + 1,
        next_visit_at=now + page.site.max_page_revisit,
    )


def record_failure(
    page: Page, error: FetchError, *, status: int | None, now: datetime | None = None
) -> None:
    """Record a failed fetch and back off: the minimum interval doubled per failure in a row."""
    now = now or timezone.now()
    site = page.site
    failures = page.failures + 1
    wait = min(site.max_page_revisit, site.min_page_revisit * (2 ** min(failures - 1, 20)))
    if error.retry_after is not None:  # never sooner than the host asked
        wait = max(wait, timedelta(seconds=error.retry_after))
    Page.objects.filter(id=page.id).update(
        last_fetched_at=now,
        status=status,
        error=error_text(error),
        failures=failures,
        fetch_count=page.fetch_count + 1,
        next_visit_at=now + wait,
    )


def record_deferred(page: Page, error: FetchError, *, now: datetime | None = None) -> None:
    """Record a URL not asked because its host asked us to wait: the page is not charged.

    A page never fetched stays in the frontier; a known page's next visit moves past the wait.
    """
    if page.last_fetched_at is None or error.retry_after is None:
        return
    until = (now or timezone.now()) + timedelta(seconds=error.retry_after)
    Page.objects.filter(
        Q(next_visit_at__isnull=True) | Q(next_visit_at__lt=until), id=page.id
    ).update(next_visit_at=until)


def record_redirect(page: Page, target_url: str, *, now: datetime | None = None) -> None:
    """Record that the page redirects elsewhere (its content is stored under `target_url`)."""
    now = now or timezone.now()
    Page.objects.filter(id=page.id).update(
        last_fetched_at=now,
        status=301,
        error="",
        failures=0,
        fetch_count=F("fetch_count") + 1,
        next_visit_at=now + page.site.max_page_revisit,
    )


def record_unchanged(
    page: Page,
    fetched: FetchResult,
    *,
    now: datetime | None = None,
    batch: HeldBatch | None = None,
) -> None:
    """Record a visit that found the stored version still current (304 or same hash); with a
    `batch`, the page's state is held there."""
    now = now or timezone.now()
    page.gained_links = 0
    _visited(page, fetched, changed=False, now=now)
    if batch is None:
        page.save(update_fields=_VISIT_FIELDS)
    else:
        batch.updates.append((page, _VISIT_FIELDS))
    _watch_hub(page, batch)


def record_version(
    page: Page,
    fetched: FetchResult,
    extracted: Extracted,
    *,
    digest: str,
    packed: bytes | None = None,
    article: bytes | None = None,
    frontier_ids: dict[str, int],
    first: bool,
    run: CrawlRun | None = None,
    now: datetime | None = None,
    batch: HeldBatch | None = None,
) -> PageVersion:
    """Store a new version of a page with its links, and hand it on if it has information.

    `packed`: the body packed already (`crawler.models.pages.pack_body`), `article` the
    article's text likewise (`ArticleText.pack`); `frontier_ids` maps link URLs already
    admitted to the frontier to their page ids; `first` says the page has no stored version
    yet. With a `batch`, the version, the page's state and its links are held there.
    """
    now = now or timezone.now()
    version = _new_version(page, fetched, extracted, digest=digest, run=run, now=now)
    version.set_body(fetched.body, packed)
    version.article = _article(extracted, article)
    _changed(page, fetched, extracted, first=first, now=now)
    if not first:
        Link.objects.filter(from_page=page).delete()
    links = _link_rows(page, extracted.links, frontier_ids, batch)

    def after() -> None:  # once the version has its id
        if not first:
            _prune_bodies(page)
        if extracted.has_information:
            hooks.hand_on(version.id)

    if batch is not None:
        _watch_hub(page, batch)  # held with the rows on PostgreSQL, else run now
        batch.versions.append(version)
        batch.updates.append((page, _VERSION_FIELDS))
        batch.links.extend(links)
        batch.after.append(after)
        return version
    # Inside the caller's transaction no savepoint is needed: a failure aborts it whole.
    with transaction.atomic(savepoint=False):
        version.save()
        page.save(update_fields=_VERSION_FIELDS)
        insert_links(links)
        _watch_hub(page, None)
        after()
    return version


def _new_version(
    page: Page,
    fetched: FetchResult,
    extracted: Extracted,
    *,
    digest: str,
    run: CrawlRun | None,
    now: datetime,
) -> PageVersion:
    """Return the unsaved version of what `fetched` brought (its body not set yet)."""
    return PageVersion(
        page=page,
        run=run,
        fetched_at=now,
        status=fetched.status or 200,
        content_hash=digest,
        source_hash=fetched.source_hash,
        content_type=fetched.content_type[:200],
        encoding=(extracted.encoding or fetched.charset or "")[:40],
        rendered=fetched.rendered,
        title=extracted.title[:500],
        kind=extracted.kind,
        has_information=extracted.has_information,
        analysis=extracted.summary,
    )


def _changed(
    page: Page, fetched: FetchResult, extracted: Extracted, *, first: bool, now: datetime
) -> None:
    """Update a page's state in memory for a new version: kind, title, visit, change."""
    page.kind = extracted.kind
    page.gained_links = 0 if first else _gained_links(page, extracted.links)
    # A hub changes, for its schedule, when it brings links it did not have before.
    changed = not first and (page.gained_links > 0 if is_hub(page) else True)
    _visited(page, fetched, changed=changed, now=now)
    page.title = extracted.title[:500]
    page.last_changed_at = now
    page.change_count += 1


def _article(extracted: Extracted, packed: bytes | None) -> bytes | None:
    """Return the text a version keeps for clipping: an article's only (a hub's verdict is
    its kind)."""
    if extracted.article is None or extracted.article.not_article:
        return None
    return packed if packed is not None else extracted.article.pack()


_VISIT_FIELDS = (
    "last_fetched_at",
    "next_visit_at",
    "status",
    "error",
    "failures",
    "etag",
    "last_modified",
    "content_type",
    "fetch_count",
    "revisit_history",
    "change_rate",
    "gained_links",
)
_VERSION_FIELDS = (*_VISIT_FIELDS, "kind", "title", "last_changed_at", "change_count")
# `_watch_hub` held with a batch's rows (our own names; the values are parameters).
_WATCH_SOONER = (
    'UPDATE "crawler_site" SET "next_watch_at" = %s WHERE "id" = %s '
    'AND ("next_watch_at" IS NULL OR "next_watch_at" > %s)'
)


def _visited(page: Page, fetched: FetchResult, *, changed: bool, now: datetime) -> None:
    """Update a page's visit state in memory: validators, history, next visit."""
    site = page.site
    if page.last_fetched_at is not None and page.fetch_count > 0 and not page.error:
        elapsed = (now - page.last_fetched_at).total_seconds()
        page.revisit_history = record_visit(page.revisit_history, elapsed, changed)
    rate = change_rate(page.revisit_history)
    page.change_rate = None if rate is None else rate * 86400
    if not fetched.not_modified:  # a 304 may omit the validators; keep the stored ones
        page.etag = fetched.etag[:500]
        page.last_modified = fetched.last_modified[:100]
        page.content_type = fetched.content_type[:200]
    elif fetched.etag:
        page.etag = fetched.etag[:500]
    # After the content type: a seed that turned out to be a feed is polled as one.
    page.next_visit_at = now + visit_wait(page, site)
    page.last_fetched_at = now
    page.status = fetched.status
    page.error = ""
    page.failures = 0
    page.fetch_count += 1


def _gained_links(page: Page, links: list[LinkRecord]) -> int:
    """Count the link targets the page's stored links did not have."""
    before = set(Link.objects.filter(from_page=page).values_list("target_url", flat=True))
    return len({link.url for link in links} - before)


def _watch_hub(page: Page, batch: HeldBatch | None) -> None:
    """Bring the site's next watch forward to this hub's next visit, if that is sooner (with
    the batch's held rows, if any)."""
    if page.next_visit_at is None or not is_hub(page):
        return
    when = page.next_visit_at
    if batch is not None and batch.hold_statement(_WATCH_SOONER, [when, page.site_id, when]):
        return
    Site.objects.filter(id=page.site_id).filter(
        Q(next_watch_at__isnull=True) | Q(next_watch_at__gt=when)
    ).update(next_watch_at=when)


def _link_rows(
    page: Page, links: list[LinkRecord], frontier_ids: dict[str, int], batch: HeldBatch | None
) -> list[tuple[object, ...]]:
    """Return the page's Link rows (values in `_LINK_COLUMNS` order), each link once per area."""
    seen: set[tuple[str, str]] = set()
    rows = []
    cap = batch.max_links() if batch is not None else crawler_settings().max_links_per_page
    for link in links[:cap]:
        key = (link.url, link.area_path)
        if key in seen or len(link.url) > 2083:
            continue
        seen.add(key)
        rows.append(
            (
                page.id,
                link.url,
                frontier_ids.get(link.url),
                link.anchor[:500],
                link.area_path[:500],
                link.area_kind[:12],
            )
        )
    return rows


def _prune_bodies(page: Page) -> None:
    """Drop the bodies (and the text kept for clipping) of versions older than the newest
    CRAWLER_VERSIONS_KEPT."""
    kept = crawler_settings().versions_kept
    old = (
        PageVersion.objects.filter(page=page, body__isnull=False)
        .order_by("-fetched_at", "-id")
        .values_list("id", flat=True)[kept:]
    )
    old_ids = list(old)
    if old_ids:
        PageVersion.objects.filter(id__in=old_ids).update(body=None, article=None)


LISTED_BATCH = 1000


def remember_listed_dates(site_id: int, dates: Mapping[str, ListedDate]) -> None:
    """Keep, on each listed page of the site, when its feed or sitemap says it was published.

    A publication date (a feed item's, a news sitemap's) replaces what a page had; a sitemap's
    last modification only fills a page that had none. Clipping dates a clip by it when the
    article itself declares no date. Run after the batch that created the pages is written.
    """
    urls = list(dates)
    changed = []
    for start in range(0, len(urls), LISTED_BATCH):
        chunk = urls[start : start + LISTED_BATCH]
        rows = Page.objects.filter(site_id=site_id, url__in=chunk)
        for page in rows.only("id", "url", "listed_published_at"):
            listed, before = dates[page.url], page.listed_published_at
            if before == listed.moment or (not listed.published and before is not None):
                continue
            page.listed_published_at = listed.moment
            changed.append(page)
    Page.objects.bulk_update(changed, ["listed_published_at"], batch_size=LISTED_BATCH)
