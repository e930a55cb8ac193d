"""What happens to one URL: fetch (and render) it, then store what came back.

`fetch_page` runs on the fetching event loop and touches no database; `process` runs in the
crawl thread and writes one page in one transaction (through `crawler.store.pages`). Neither
enqueues work: a script shell left to the render queue comes back as `Processed.render`.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone

from analyzer.kind import Averages
from crawler.canonical import BadURL, origin, pager_links, served_alias
from crawler.extract.extracted import Extracted, judged
from crawler.extract.feeds import Discovered, DiscoveryError
from crawler.extract.hints import declared_canonical
from crawler.extract.page import Ahead, discover, extract, is_discovery
from crawler.fetch.result import ErrorKind, FetchError, FetchResult
from crawler.fetch.words import is_miss
from crawler.models import CrawlRun, Link, Page, PageVersion
from crawler.models.hiddenweb import RunRender
from crawler.render.host import BrowserError
from crawler.run.fetching import FetchBackend, is_html, looks_like_script_shell
from crawler.run.frontier import Frontier
from crawler.run.lessons import declares_itself
from crawler.store import held
from crawler.store import pages as storage
from crawler.store.held import HeldBatch
from crawler.strategies.base import ANNOUNCED, LinkRecord, PageObservation

logger = logging.getLogger(__name__)

LEFT_THE_CRAWL = FetchError(ErrorKind.REDIRECTS, "left the crawl")


@dataclass
class Processed:
    """What processing one fetch produced: the strategy's observation and counter increments."""

    observation: PageObservation
    counts: dict[str, int] = field(default_factory=dict)
    # The new version stored (its id is set once the batch's rows are written).
    version: PageVersion | None = None
    # Seconds the host asked us to keep away; set when a URL was not asked because of it.
    deferred: float | None = None
    # The id of a page stored as served that the render queue should render (a script shell).
    render: int | None = None

    @property
    def version_id(self) -> int | None:
        return self.version.id if self.version is not None else None


async def fetch_page(
    backend: FetchBackend,
    url: str,
    *,
    etag: str,
    last_modified: str,
    needs_browser: bool,
    render_shells: str,
    known: Callable[[str], bool] | None = None,
) -> FetchResult:
    """Fetch a URL conditionally, rendering it in the browser when the site or page needs it
    (a redirect to a URL `known` to be fetched already is not followed)."""
    fetched = await backend.fetch(url, etag=etag, last_modified=last_modified, known=known)
    if not fetched.succeeded or not is_html(fetched):
        return fetched
    inline = render_shells == "inline"
    reason = backend.render_reason(
        fetched, needs_browser=needs_browser, inline=inline, probe=render_shells != "off"
    )
    if reason:
        try:
            rendered = await backend.render(fetched.final_url, served=fetched)
        except BrowserError as exc:
            if needs_browser:
                raise  # the site cannot be read without it: the run fails and says why
            logger.warning("No browser for %s (%s); keeping the HTML as served.", url, exc)
            return fetched
        rendered.render_notes["reason"] = reason
        if rendered.succeeded:
            backend.rendered(fetched, rendered)
            rendered.etag, rendered.last_modified = fetched.etag, fetched.last_modified
            rendered.source_hash = storage.content_hash(fetched.body)
            return rendered
        logger.info("Rendering %s failed (%s); keeping the HTML as served.", url, rendered.error)
    return fetched


def fetched_already(frontier: Frontier, own: str) -> Callable[[str], bool]:
    """Return a test of whether a URL, spelt canonically, is another page than `own` that was
    handed out in this run (a redirect to one is not followed; one to the page's own address,
    a tracking parameter or a cookie added, is); asked on the fetching thread, it only reads."""

    def known(url: str) -> bool:
        with suppress(BadURL):
            canonical = frontier.canonical(url)
            return canonical != own and canonical in frontier.taken
        return False

    return known


def process(
    frontier: Frontier,
    run: CrawlRun | None,
    page: Page,
    fetched: FetchResult,
    *,
    render_shells: str = "off",
    ahead: Ahead | None = None,
    batch: HeldBatch | None = None,
    averages: Averages | None = None,
) -> Processed:
    """Store one fetch result for `page` and return the observation for the strategy.

    `averages`: the site's page averages a page analysed here (not ahead) is weighed against.

    Everything one fetch writes (page state, version, links, new frontier URLs) commits
    together, so a worker killed at any point leaves each page stored whole or not at all:
    in the `batch` of pages being stored together (`held.stored_together`), else in a
    transaction of its own.
    """
    if batch is not None:
        return _process(frontier, run, page, fetched, render_shells, ahead, batch, averages)
    with held.stored_together() as alone:
        return _process(frontier, run, page, fetched, render_shells, ahead, alone, averages)


def _process(
    frontier: Frontier,
    run: CrawlRun | None,
    page: Page,
    result: FetchResult,
    render_shells: str,
    ahead: Ahead | None,
    batch: HeldBatch,
    averages: Averages | None = None,
) -> Processed:
    """Store one result according to what came back.

    1. Not asked because the host asked us to wait: nothing is charged.
    2. Not allowed (robots.txt, address, URL): skipped for long.
    3. Any other error, or no usable answer: a failure, retried later.
    4. A redirect to a page this run has fetched (not followed): recorded as a redirect.
    5. An answer: stored under the page it belongs to (the redirect target, if any).
    """
    now = timezone.now()
    match result.error:
        case FetchError(kind=ErrorKind.BACKOFF) as error:
            storage.record_deferred(page, error, now=now)
            observation = _observation(page, result, error=error)
            return Processed(observation, deferred=error.retry_after or 0.0)
        case FetchError(kind=ErrorKind.ROBOTS | ErrorKind.SSRF | ErrorKind.URL) as error:
            storage.record_skip(page, error, now=now)
            counter = "robots_skipped" if error.kind == ErrorKind.ROBOTS else "errors"
            return Processed(_observation(page, result, error=error), {counter: 1})
        case FetchError() as error:
            return _failed(page, result, error, now=now)
        case None if result.known_target:  # the page this run fetched under that address
            fetched = frontier.canonical(result.known_target)
            storage.record_redirect(page, fetched, now=now)
            return Processed(_observation(page, result, alias_of=fetched), {"fetched": 1})
        case None if not (result.succeeded or result.not_modified):
            return _failed(
                page, result, FetchError(ErrorKind.HTTP, f"HTTP {result.status}"), now=now
            )
    target = _follow_redirect(frontier, page, result, batch, now=now)
    repeated = False
    if target is not None:
        target, repeated = _under_clean_url(frontier, target, result, batch, now=now)
    if target is None:
        return Processed(
            _observation(page, result, error=LEFT_THE_CRAWL), {"fetched": 1, "errors": 1}
        )
    processed = _answered(
        frontier, run, target, result, render_shells, ahead, batch, averages, now=now
    )
    if repeated:
        processed.counts["duplicate_fetches"] = processed.counts.get("duplicate_fetches", 0) + 1
    return processed


def _failed(page: Page, result: FetchResult, error: FetchError, *, now: datetime) -> Processed:
    """Record a fetch that brought nothing usable back."""
    storage.record_failure(page, error, status=result.status, now=now)
    counter = "misses" if is_miss(error, result.status) else "errors"  # a 404 is no failure
    return Processed(_observation(page, result, error=error), {"fetched": 1, counter: 1})


def _answered(
    frontier: Frontier,
    run: CrawlRun | None,
    page: Page,
    result: FetchResult,
    render_shells: str,
    ahead: Ahead | None,
    batch: HeldBatch,
    averages: Averages | None = None,
    *,
    now: datetime,
) -> Processed:
    """Store an answer: a visit when the page is unchanged, else a new version."""
    counts = {"fetched": 1, "rendered": int(result.rendered)}
    if result.rendered and run is not None:
        RunRender.objects.note(run, page.url, result)
    digest = _digest(result, ahead)
    # A page never fetched before has no version: no need to ask.
    latest = storage.latest_hashes(page) if page.last_fetched_at is not None else None
    if result.not_modified or storage.is_unchanged(result, digest, latest):
        storage.record_unchanged(page, result, now=now, batch=batch)
        observation = _observation(page, result, links=_stored_links(page))
        return Processed(observation, counts | {"unchanged": 1})
    new = latest is None
    discovered = (ahead.discovered if ahead is not None else None) or _discovered(result)
    declared = _learn_from_head(frontier, page, result, discovered)
    analysed = extract(result, frontier.canonical, ahead, discovered, averages)
    extracted = judged(analysed, page.site_id, page.url)
    pagers = _pager_links(page, extracted)
    ids = _admit_links(frontier, page, extracted, pagers, batch, now=now)
    counts |= _judge_shape(frontier, page, extracted, declared)
    version = storage.record_version(
        page,
        result,
        extracted,
        digest=digest,
        packed=ahead.packed if ahead is not None else None,
        article=ahead.article if ahead is not None else None,
        frontier_ids=ids,
        first=new,
        run=run,
        now=now,
        batch=batch,
    )
    observation = _observation(
        page,
        result,
        new=new,
        changed=not new,
        kind=extracted.kind or None,
        analysis=extracted.analysis,
        links=extracted.links + _discovery_links(extracted),
        canonical=declared,
        link_texts=extracted.item_texts,
        body=result.body if extracted.analysis is not None else b"",
        read_ahead=ahead.read if ahead is not None else None,
        pagers=pagers,
    )
    render = page.id if _left_to_render(result, render_shells) else None
    return Processed(observation, counts | {"new" if new else "changed": 1}, version, render=render)


def _digest(result: FetchResult, ahead: Ahead | None) -> str:
    """Return the body's content hash, made beside its analysis when it was analysed ahead."""
    if ahead is not None and ahead.digest:
        return ahead.digest
    return storage.content_hash(result.body) if result.succeeded else ""


def _admit_links(
    frontier: Frontier,
    page: Page,
    extracted: Extracted,
    pagers: frozenset[str],
    batch: HeldBatch,
    *,
    now: datetime,
) -> dict[str, int]:
    """Add the page's links, feeds and nested sitemaps to the frontier; return their ids.

    Links to other pages of the same paginated list (`pagers`) keep the page's depth (a
    pager is one hub); every other link is one step deeper.
    """
    depth = page.depth + 1
    in_order = list(dict.fromkeys(link.url for link in extracted.links if link.url in pagers))
    add = functools.partial(frontier.add, now=now, batch=batch)
    ids = add(in_order, depth=page.depth) if in_order else {}
    ids |= add([link.url for link in extracted.links if link.url not in ids], depth=depth)
    ids |= add(extracted.feeds, depth=depth, role=Page.Role.FEED)
    ids |= add(extracted.sitemaps, depth=depth, role=Page.Role.SITEMAP)
    if extracted.item_dates:  # once the batch has written the pages it lists
        dates = extracted.item_dates
        batch.after.append(lambda: storage.remember_listed_dates(page.site_id, dates))
    return ids


def _discovery_links(extracted: Extracted) -> list[LinkRecord]:
    """Return the feeds a page announces and a sitemap index's sitemaps, as links to observe."""
    return [LinkRecord(url=url, area_kind=ANNOUNCED) for url in extracted.feeds] + [
        LinkRecord(url=url, area_kind=ANNOUNCED) for url in extracted.sitemaps
    ]


def _pager_links(page: Page, extracted: Extracted) -> frozenset[str]:
    """Return the page's links to other pages of its own paginated list."""
    rels = {}
    for link in getattr(extracted.analysis, "links", None) or ():
        if link.rel:
            rels[link.url] = link.rel
    return pager_links(page.url, extracted.links, rels)


def _discovered(result: FetchResult) -> Discovered | DiscoveryError | None:
    """Return a sitemap's or feed's URLs, parsed once for the aliases and the extraction
    (or why it could not be read); None for any other body."""
    return discover(result) if is_discovery(result) else None


def _learn_from_head(
    frontier: Frontier,
    page: Page,
    result: FetchResult,
    discovered: Discovered | DiscoveryError | None,
) -> str | None:
    """Return the URL the page declares canonical (on the served origin), learning aliases.

    1. A seed declaring the same path on another origin names the site's production host:
       its URLs (in sitemaps, feeds, absolute links) are crawled on the served origin.
    2. A sitemap whose URLs all sit on one other origin names it too (a sitemap may list
       only URLs of its own host).
    """
    if isinstance(discovered, Discovered) and discovered.kind == "sitemap":
        _learn_from_sitemap(frontier, discovered, result.final_url or result.url)
        return None
    if result.body_kind != "html":
        return None
    base = result.final_url or result.url
    raw = declared_canonical(result.body, base)
    if raw is None:
        return None
    try:
        declared = frontier.canonical(raw)
    except BadURL:
        return None
    alias = served_alias(declared, page.url)
    if alias is not None and page.role == Page.Role.SEED and frontier.learn_alias(*alias):
        declared = frontier.canonical(raw)
    return declared


def _learn_from_sitemap(frontier: Frontier, found: Discovered, base: str) -> None:
    urls = found.urls + found.sitemaps
    origins = {origin(url) for url in urls[:1000] if "://" in url}
    here = origin(base)
    if len(origins) == 1 and here not in origins:
        frontier.learn_alias(origins.pop(), here)


def _judge_shape(
    frontier: Frontier, page: Page, extracted: Extracted, declared: str | None
) -> dict[str, int]:
    """Count the fetch as a hub or post, and as a trap or duplicate once its shape is judged."""
    analysis = extracted.analysis
    text = (getattr(analysis, "text", "") or getattr(analysis, "main_text", "")) or None
    if declared is not None and not frontier.in_scope(declared):
        # An original on another website: the page is this site's content, not a copy.
        frontier.shapes.elsewhere(page.url, declared)
        declared = None
    traps, duplicates = frontier.shapes.observe(
        page.url,
        text=text,
        links=[link.url for link in extracted.links],
        canonical=declared,
        # A feed or sitemap (not analysed) lists items: never an empty generated page.
        informative=analysis is None or extracted.kind == "information",
    )
    kind = "post_fetches" if extracted.kind == "information" else "hub_fetches"
    counts = {kind: 1}
    if traps:
        counts["trap_fetches"] = traps
    if duplicates:
        counts["duplicate_fetches"] = duplicates
    return counts


def _left_to_render(result: FetchResult, render_shells: str) -> bool:
    """Tell whether a stored body is a script shell that the render queue should render."""
    return (
        render_shells == "defer"
        and not result.rendered
        and is_html(result)
        and looks_like_script_shell(result.body)
    )


def _under_clean_url(
    frontier: Frontier, page: Page, result: FetchResult, batch: HeldBatch, *, now: datetime
) -> tuple[Page | None, bool]:
    """Return the page an answer belongs to once the site's irrelevant parameters are
    dropped, and whether this run had fetched that page already (a duplicate fetch).

    A page whose rel=canonical names its own URL without some parameters is stored under
    that URL, as a redirect would be, and teaches the frontier to drop them
    (`Frontier.learn_parameters`); so is an answer for a URL spelt with a parameter learnt so.
    """
    clean = frontier.respelt(page.url) or page.url
    if result.succeeded and result.body_kind == "html":
        raw = declared_canonical(result.body, result.final_url or result.url)
        try:
            declared = frontier.canonical(raw) if raw else None
        except BadURL:
            declared = None
        if declared is not None and frontier.learn_parameters(page.url, declared):
            clean = frontier.respelt(page.url) or page.url
        if declared is not None and declared != clean and declares_itself(page.url, declared):
            clean = declared
    if clean == page.url:
        return page, False
    repeated = clean in frontier.taken
    return _store_under(frontier, page, clean, result, batch, now=now), repeated


def _follow_redirect(
    frontier: Frontier, page: Page, result: FetchResult, batch: HeldBatch, *, now: datetime
) -> Page | None:
    """Return the page the content belongs to: `page`, or the redirect target (None if refused)."""
    if not result.redirected:
        return page
    target_url = frontier.canonical(result.final_url)
    if target_url == page.url:
        return page
    return _store_under(frontier, page, target_url, result, batch, now=now)


def _store_under(
    frontier: Frontier,
    page: Page,
    target_url: str,
    result: FetchResult,
    batch: HeldBatch,
    *,
    now: datetime,
) -> Page | None:
    """Return the page at `target_url` that `page`'s answer is stored under (None if refused)."""
    ids = frontier.add([target_url], depth=page.depth, role=page.role, now=now, batch=batch)
    if target_url not in ids:
        outside = FetchError(ErrorKind.REDIRECTS, f"to {target_url}, outside the crawl")
        storage.record_failure(page, outside, status=result.status, now=now)
        return None
    storage.record_redirect(page, target_url, now=now)
    frontier.take([target_url])
    batch.write()  # the target may have been stored earlier in this batch
    return Page.objects.select_related("site").get(id=ids[target_url])


def _stored_links(page: Page) -> list[LinkRecord]:
    rows = Link.objects.filter(from_page=page).values_list(
        "target_url", "anchor", "area_path", "area_kind"
    )
    return [LinkRecord(*row) for row in rows]


def _observation(page: Page, result: FetchResult, **values: Any) -> PageObservation:
    fields: dict[str, Any] = {
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
