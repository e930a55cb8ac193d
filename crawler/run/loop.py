"""The crawl run loop: ask the strategy, fetch concurrently, store each page, repeat.

Fetching (and browser rendering) runs on an asyncio loop in a helper thread; everything that
touches the database runs in the calling thread, one transaction per batch of pages handled
together (each page whole), so a run can be killed at any point and the next run continues
from the stored frontier. A page never fetched before is analysed as soon as it arrives, in
one of the worker's analysing processes (`crawler.extract.page.analyse_ahead`).

1. Claim the site (`claims.start_run`), seed the frontier (root, seeds, sitemaps).
2. Keep up to CRAWLER_RUN_CONCURRENCY fetches in flight (the fetcher enforces politeness
   per host); ask the strategy for more whenever a slot is free.
3. Each finished fetch is stored (`crawler.run.step.process`), observed by the strategy and
   counted; counters and the heartbeat are written at most every second. Fetches are
   handled in the order they were started, a refill's worth at a time in one transaction,
   so what the strategy sees, and asks next, depends only on the site and the random seed.
4. Stop on the page budget, the strategy's stop reason, the run time cap, a host asking
   us to keep away longer than a fetch waits (429/503 Retry-After: "backoff", and the site's
   next crawl moves past the wait), or an empty frontier ("exhausted"); close the run with
   that reason. A strategy offering nothing while nothing is in flight (xCrawl, no evidence
   left) does not end the run while admissible pages are known: the frontier's breadth-first
   order takes over (`explored` on the run's record); "exhausted": no page is left in depth.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any, TypeVar, cast
from urllib.parse import urljoin

from celery.exceptions import SoftTimeLimitExceeded
from django.db.models import Q
from django.utils import timezone

from crawler import hooks
from crawler.canonical import BadURL
from crawler.conf import crawler_settings
from crawler.extract.page import Ahead, analyse_ahead
from crawler.fetch.result import FetchResult
from crawler.models import CrawlRun, Page, PageVersion, Site
from crawler.run import lessons, step
from crawler.run.averages import KEY, learnt, site_averages
from crawler.run.claims import beat, finish_run, start_run
from crawler.run.fetching import FetchBackend, open_backend
from crawler.run.frontier import Frontier
from crawler.run.passes import RunContext, page_passes, run_passes
from crawler.run.teasers import Teasers
from crawler.store import held
from crawler.store.pages import error_text
from crawler.strategies import PageObservation, Strategy, get_strategy
from crawler.topic import get_topic, keyword_matcher

logger = logging.getLogger(__name__)

T = TypeVar("T")
Progress = Callable[[CrawlRun, PageObservation], None]


class RunTakenOver(RuntimeError):
    """Another worker closed this run as stale while it was still going."""


def crawl(
    site: Site | int,
    *,
    max_pages: int | None = None,
    strategy: str | None = None,
    seed: int | None = None,
    render_shells: str = "inline",
    progress: Progress | None = None,
    backend: FetchBackend | None = None,
    to_render: list[int] | None = None,
) -> CrawlRun:
    """Run one crawl of a site and return the finished CrawlRun.

    `render_shells`: "inline" renders script-shell pages in this process, "defer" stores them
    as served and appends their page ids to `to_render` (the caller queues them, even when
    the run raises), "off" never renders them. Sites marked needs-browser are always
    rendered in this process. Raises CrawlAlreadyRunning.
    """
    site = site if isinstance(site, Site) else Site.objects.get(id=site)
    name = strategy or site.strategy
    strategy_cls = get_strategy(name)  # an unknown name fails before the site is claimed
    budget = max_pages if max_pages is not None else site.page_budget
    run = start_run(site, name, budget)
    status, reason, error = CrawlRun.Status.FAILED, "error", ""
    try:
        loop = RunLoop(
            site,
            run,
            strategy_cls,
            seed=seed,
            render_shells=render_shells,
            progress=progress,
            to_render=to_render,
        )
        reason = loop.execute(budget, backend=backend)
        status = CrawlRun.Status.FINISHED
        if loop.deferred is not None:
            _defer_site(site, loop.deferred)
            error = loop.deferred_why  # what the operator needs to see: why the run ended early
    except RunTakenOver:
        return CrawlRun.objects.get(id=run.id)
    except (KeyboardInterrupt, SystemExit, SoftTimeLimitExceeded) as exc:
        status, reason, error = CrawlRun.Status.INTERRUPTED, "interrupted", _describe(exc)
        raise
    except Exception as exc:
        status, reason, error = CrawlRun.Status.FAILED, "error", _describe(exc)
        raise
    finally:
        run = finish_run(run, status=status, stop_reason=reason, error=error)
    return run


def _defer_site(site: Site, seconds: float) -> None:
    """Keep the dispatcher from crawling the site again before its host's Retry-After ends."""
    until = timezone.now() + timedelta(seconds=seconds)
    Site.objects.filter(
        Q(next_crawl_at__isnull=True) | Q(next_crawl_at__lt=until), id=site.id
    ).update(next_crawl_at=until)
    logger.info("%s asked us to wait %.0f s; its next crawl is at %s.", site, seconds, until)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def render_stored_page(page_id: int) -> int | None:
    """Render one stored page in Chromium and store the result; return a new version's id.

    The render queue's task for script shells found by runs on the crawl queue. Robots.txt
    and the address checks apply as for any fetch; the DOM goes through the same path.
    """
    page = Page.objects.select_related("site").get(id=page_id)
    shell = page.latest_version()
    if shell is not None and shell.rendered:
        return None  # rendered already (the task ran twice): once per change of the shell
    served = _as_served(page, shell)
    with LoopThread() as loop:
        backend = loop.call(open_backend(page.site))
        try:
            fetched = loop.call(backend.render(page.url, served=served))
        finally:
            loop.call(backend.aclose())
    if served is not None and fetched.succeeded:
        # The next crawl finds the same shell as served: unchanged, not stored or queued again.
        fetched.source_hash = cast(PageVersion, shell).content_hash
    return step.process(Frontier(page.site), None, page, fetched).version_id


def _as_served(page: Page, shell: PageVersion | None) -> FetchResult | None:
    """Return the stored shell as the answer Chromium gets, so the site is not asked again."""
    body = shell.raw_body() if shell is not None else None
    if shell is None or body is None or shell.status != 200:
        return None
    return FetchResult(
        url=page.url,
        final_url=page.url,
        status=200,
        body=body,
        content_type=shell.content_type or "text/html",
        charset=shell.encoding or None,
    )


class RunLoop:
    """One crawl run in progress."""

    def __init__(
        self,
        site: Site,
        run: CrawlRun,
        strategy_cls: type[Strategy],
        *,
        seed: int | None,
        render_shells: str,
        progress: Progress | None,
        to_render: list[int] | None = None,
    ) -> None:
        self.site = site
        self.run = run
        self.settings = crawler_settings()
        self.frontier = Frontier(site)
        topic = get_topic(site)
        self.strategy = strategy_cls(site, run, self.frontier, rng=random.Random(seed), topic=topic)
        # Articles a hub's teasers announced for someone's keywords go first (Algorithm 2).
        self.teasers = Teasers(self.frontier, keyword_matcher(site, topic))
        self.averages = site_averages(site)  # page averages, learnt as pages are classified
        self.render_shells = render_shells
        self.progress = progress
        self.pending: Counter[str] = Counter()
        self.fetched = 0
        self.explored = 0  # URLs taken breadth-first because the strategy offered none
        self.context: RunContext | None = None  # what run passes see (`_search_forms`)
        self.observed: list[PageObservation] = []  # stored pages the page passes await
        self.last_beat = time.monotonic()
        self.deferred: float | None = None  # longest wait a host asked for (Retry-After)
        self.deferred_why = ""
        # Script shells stored as served, for the caller to queue for rendering.
        self.to_render = to_render if to_render is not None else []

    def execute(self, budget: int, *, backend: FetchBackend | None = None) -> str:
        """Crawl until a stop condition and return the stop reason."""
        self.frontier.seed()
        # The pages stored go to the batch handlers a heartbeat's worth at a time.
        with hooks.gathering(), held.commits_relaxed(), _prompt_threads(), LoopThread() as loop:
            fetcher = backend or loop.call(open_backend(self.site))
            fetcher.renders.shapes |= self.frontier.lessons.rendered
            try:
                return self._crawl(loop, fetcher, budget)
            finally:
                self.strategy.close()
                self._record_learned(fetcher.renders.learnt)
                self._beat(force=True)
                if backend is None:
                    loop.call(fetcher.aclose())

    def _crawl(self, loop: LoopThread, fetcher: FetchBackend, budget: int) -> str:
        deadline = time.monotonic() + self.settings.run_seconds
        for url in loop.call(fetcher.sitemaps(self.site.root_url)):
            # robots.txt may name a sitemap by a relative or broken URL; one bad line skips only itself.
            try:
                sitemap = self.frontier.canonical(urljoin(self.site.root_url, url))
            except BadURL:
                logger.info("Skipping sitemap %r of %s: not a URL.", url, self.site)
                continue
            self.frontier.add([sitemap], depth=1, role=Page.Role.SITEMAP)
        self._search_forms(loop, fetcher, budget)
        # Started fetches in order; the oldest is handled first (see the module's step 3).
        in_flight: dict[concurrent.futures.Future[tuple[FetchResult, Ahead | None]], Page] = {}
        reason = ""
        # Refill in batches, not one URL per finished fetch: each ask costs queries.
        batch = max(1, self.settings.concurrency // 4)
        while True:
            if not reason:
                reason = self._stop_reason(budget, deadline)
            if not reason:
                room = min(
                    self.settings.concurrency - len(in_flight),
                    budget - self.fetched - len(in_flight),
                )
                if room >= batch or (room > 0 and not in_flight):
                    for page in self._next_pages(room, idle=not in_flight):
                        in_flight[loop.submit(self._fetch(fetcher, page))] = page
                if not in_flight:
                    reason = "exhausted"
            if not in_flight:
                return reason
            # The oldest results, a batch of them, stored in one transaction: when the
            # strategy is asked again never depends on which fetches happened to finish
            # meanwhile, and the batch costs one commit.
            # Waited for outside the transaction, which holds its locks only while it writes.
            done = [(in_flight.pop(oldest), oldest.result()) for oldest in list(in_flight)[:batch]]
            with held.stored_together(relaxed=True) as stored:
                for page, (fetched, ahead) in done:
                    self._handle(page, fetched, ahead, stored)
            self._beat()
            self._page_passes()

    async def _fetch(self, fetcher: FetchBackend, page: Page) -> tuple[FetchResult, Ahead | None]:
        """Fetch (and render) a page; analyse it as soon as it arrives if it is new.

        A page never fetched before has no stored version to be unchanged from: it will be
        analysed, so the analysis starts at once, side by side with the other pages in
        flight, while the run stores earlier ones.
        """
        fetched = await step.fetch_page(
            fetcher,
            page.url,
            etag=page.etag,
            last_modified=page.last_modified,
            needs_browser=self.site.needs_browser,
            render_shells=self.render_shells,
            known=step.fetched_already(self.frontier, page.url),
        )
        if page.last_fetched_at is not None:
            return fetched, None
        read = self.strategy.read_ahead(fetched)
        return fetched, await analyse_ahead(fetched, read, self.averages)

    def _search_forms(self, loop: LoopThread, fetcher: FetchBackend, budget: int) -> None:
        """Make the registered run passes (hidden-web form search among them), in order."""
        context = self.context = RunContext(
            site=self.site,
            frontier=self.frontier,
            backend=fetcher,
            call=lambda coro: self._beating(loop.call(coro)),
            handle=self._handle,
            budget=lambda: budget - self.fetched,
            topic=self.strategy.topic,
            rng=self.strategy.rng,
            run=self.run,
        )
        for name, run_pass in run_passes():
            try:
                run_pass(context)
            except RunTakenOver:
                raise
            except Exception:
                # A fault in one pass must not cost the site its crawl; the log keeps it.
                logger.exception("Run pass %s failed on %s; the crawl goes on.", name, self.site)

    def _page_passes(self) -> None:
        """Make the registered page passes on each page stored since (theirs included)."""
        passes = page_passes() if self.context is not None else []
        while self.observed:
            observation = self.observed.pop(0)
            for name, page_pass in passes:
                try:
                    page_pass(cast(RunContext, self.context), observation)
                except RunTakenOver:
                    raise
                except Exception:
                    logger.exception("Page pass %s failed on %s.", name, observation.url)

    def _beating(self, value: T) -> T:
        """Return `value` after keeping the heartbeat fresh (long form passes included)."""
        self._beat()
        return value

    def _stop_reason(self, budget: int, deadline: float) -> str:
        if self.deferred is not None:
            # A host asked us to keep away longer than a fetch waits: every further URL of
            # it would only be deferred too, so the run ends and the next one comes later.
            return "backoff"
        if self.fetched >= budget:
            return "budget"
        if time.monotonic() > deadline:
            return "time-limit"
        return self.strategy.stop_reason() or ""

    def _next_pages(self, limit: int, *, idle: bool = False) -> list[Page]:
        first = self.teasers.next(limit)
        if first:
            known = self.frontier.pages(first)  # a link the frontier refused is not fetched
            fresh = [u for u in first if u in known and known[u].last_fetched_at is None]
            first = [u for u in fresh if self.frontier.respelt(u) == u]
            self.frontier.take(first)
            if len(first) >= limit:
                return [known[url] for url in first]
        urls = self.strategy.next_urls(limit - len(first))[: limit - len(first)]
        if first:
            urls = [url for url in urls if url not in known]
            return [known[url] for url in first] + self._pages(urls)
        if not urls and idle:
            # Nothing in flight can show the strategy more: explore rather than stop.
            urls = self.frontier.next_batch(limit)
            self.explored += len(urls)
        return self._pages(urls)

    def _pages(self, urls: list[str]) -> list[Page]:
        if not urls:
            return []
        urls = lessons.respelt_offer(self.frontier, urls)  # parameters learnt since offered
        self.frontier.take(urls)
        pages = self.frontier.pages(urls)
        unknown = [u for u in urls if u not in pages]
        if unknown:
            logger.warning(
                "Strategy %s offered %d URL(s) not in the frontier, e.g. %s",
                self.strategy.name,
                len(unknown),
                unknown[0],
            )
        return [pages[u] for u in urls if u in pages]

    def _handle(
        self,
        page: Page,
        fetched: FetchResult,
        ahead: Ahead | None = None,
        batch: held.HeldBatch | None = None,
    ) -> None:
        outcome = step.process(
            self.frontier,
            self.run,
            page,
            fetched,
            render_shells=self.render_shells,
            ahead=ahead,
            batch=batch,
            averages=self.averages,
        )
        observation = outcome.observation
        self.averages = learnt(self.averages, observation)
        if observation.url != page.url:
            observation.requested = page.url  # the content came under another address
        self.frontier.done(page.url)
        if outcome.deferred is not None and observation.error is not None:
            self.deferred = max(self.deferred or 0.0, outcome.deferred)
            why = f"{page.url}: {error_text(observation.error)}"
            self.deferred_why = self.deferred_why or why
        if outcome.render is not None:
            self.to_render.append(outcome.render)
        if outcome.counts.get("fetched"):
            self.fetched += 1
        self.pending.update(outcome.counts)
        # The strategy judges a page when it observes it (xCrawl's validator), so it is
        # asked whether the page was relevant only after that.
        self.strategy.observe(observation)
        if self.teasers.reached(observation):
            self.pending["teaser_articles"] += 1
        self.teasers.offer(observation)
        if observation.body:
            self.observed.append(observation)
        if self.strategy.accepts(observation):
            self.pending["relevant"] += 1
        if self.progress is not None:
            self.progress(self.run, observation)
        if batch is None:  # else after the batch's commit (its versions handed on then)
            self._beat()

    def _record_learned(self, rendered: dict[str, str]) -> None:
        """Keep what the run learnt (terms, trap and copy shapes, aliases, parameters to drop,
        shapes to render) on its record, and as the site's lessons for later runs."""
        searches = self.strategy.search_fetches() - self.run.search_fetches
        if searches > 0:
            self.pending["search_fetches"] += searches
        judged = self.frontier.shapes.judged()
        learned = {
            **self.strategy.learned(),
            **judged,
            **lessons.keep(self.run, self.frontier.lessons, judged, rendered),
            "host_aliases": dict(sorted(self.frontier.aliases.items())),
            "explored": self.explored,
            KEY: self.averages.to_data(),
        }
        CrawlRun.objects.filter(id=self.run.id).update(learned=learned)
        self.run.learned = learned

    def _beat(self, *, force: bool = False) -> None:
        if not force and time.monotonic() - self.last_beat < 1.0:
            return
        counts = dict(self.pending)
        self.pending.clear()
        self.last_beat = time.monotonic()
        if not beat(self.run, counts, now=timezone.now()):
            raise RunTakenOver(f"Run {self.run.pk} was closed by another worker.")
        # The versions stored since the last beat go to their handlers as one batch.
        hooks.flush()
        for name, value in counts.items():
            setattr(self.run, name, getattr(self.run, name) + value)


@contextmanager
def _prompt_threads() -> Iterator[None]:
    """Let a thread whose answer came back take the interpreter within half a millisecond.

    The storing thread waits on the database several times per batch, and the fetching
    thread is often busy meanwhile: at Python's default 5 ms switch interval each answer can
    wait that long before the storing thread runs again.
    """
    before = sys.getswitchinterval()
    sys.setswitchinterval(min(before, _SWITCH_INTERVAL))
    try:
        yield
    finally:
        sys.setswitchinterval(before)


_SWITCH_INTERVAL = 0.0005  # seconds


class LoopThread:
    """An asyncio event loop running in a daemon thread, fed from the calling thread."""

    def __enter__(self) -> LoopThread:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="crawl-io", daemon=True)
        self.thread.start()
        return self

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.submit(coro).result()

    def __exit__(self, *exc_info: object) -> None:
        async def cancel_rest() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            self.submit(cancel_rest()).result(timeout=10)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
            self.loop.close()
