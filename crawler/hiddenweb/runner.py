"""Hidden-web crawling inside a crawl run: search every user's keywords on a site's forms.

`search_pass` is a run pass (`crawler.run.passes`, registered in crawler/apps.py): each crawl
run calls `search_site` once, in the crawl thread, with the run's fetch backend; `forms_pass`,
a page pass (`crawler.hiddenweb.pageforms`), calls it again for each page the crawl fetches
that holds a search-like form not searched yet in the run (a listing, table or section page):

1. The users' keywords (the topic's queries) become the LVS row "search" (for admins; a
   run matches forms against its own topic's keywords); without any, nothing is sent.
2. The forms of each seed page (He et al.: the home page's, for 99 of 100 sites), of the
   pages linked as searches ("Archive", "Advanced search"; up to SEARCH_PAGES) and of every
   page the crawl fetches with a search-like form (a text box, not refused) are analysed, each
   signature once a run. Forms that change state are refused and recorded; the rest get visual
   labels from Chromium where the DOM lacks them, teach their finite domains to the LVS table
   and are matched against it.
3. Each submittable form is probed, then searched with the users' keywords as written (at
   most Smax, least recently tried first: `crawler.hiddenweb.session`), recorded (`RunSearch`);
   in a run, a form searched before is searched by its change rate (`...hiddenweb.schedule`).
4. Result links enter the frontier one level below the form's page, fetched like any page.
5. Nothing is sent after DEEPWEB_TIME_SHARE of CRAWLER_RUN_SECONDS; the rest waits in the frontier.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone

from crawler.canonical import BadURL
from crawler.conf import DeepWebSettings, crawler_settings, deepweb_settings
from crawler.fetch.result import FetchResult
from crawler.hiddenweb import schedule
from crawler.hiddenweb.assignments import Plan, best_assignments, plan_form, template_for
from crawler.hiddenweb.lvs import with_keywords
from crawler.hiddenweb.requester import Call, Requester
from crawler.hiddenweb.responses import boilerplate
from crawler.hiddenweb.secondlevel import page_links, search_pages
from crawler.hiddenweb.session import FormContext, FormOutcome, FormSearch
from crawler.hiddenweb.store import (
    learn_domains,
    load_table,
    order_by_staleness,
    record_searches,
    site_names,
    sync_keywords,
    with_feedback,
)
from crawler.models import CrawlRun, Page, Site
from crawler.models.sitesearch import SiteSearch
from crawler.run import lessons, step
from crawler.run.fetching import FetchBackend, open_backend
from crawler.run.frontier import Frontier
from crawler.run.passes import RunContext
from crawler.sitesearch.analysis import Form, FormParseError, analyze_forms
from crawler.sitesearch.safety import refusal
from crawler.topic import Topic, get_topic

logger = logging.getLogger(__name__)

Handle = Callable[[Page, FetchResult], object]
# Assignments ranked per form before the least recently tried Smax are chosen.
CANDIDATES_PER_SUBMISSION = 10
# Pages linked as searches whose forms are read too (an archive, its advanced search), per
# page and in all.
SEARCH_PAGES = 6
STATE = "hidden-web"  # the passes' key in `RunContext.state` (a `FormMemory`)


@dataclass
class FormMemory:
    """What one run's hidden-web work has read: pages, form signatures, and its deadline."""

    read: set[str] = field(default_factory=set)  # pages whose forms were read
    done: set[str] = field(default_factory=set)  # form fingerprints searched or refused
    pages: int = 0  # fetched pages whose forms were searched (at most FORM_PAGES)
    tags: set[bytes] = field(default_factory=set)  # <form ...> tags already judged on pages
    deadline: float | None = None
    keywords: frozenset[str] = frozenset()  # a run's users' keywords: searched by schedule

    def until(self, clock: Callable[[], float], settings: DeepWebSettings) -> float:
        """Return the run's deadline for form work: its time share from the first call."""
        if self.deadline is None:
            self.deadline = clock() + crawler_settings().run_seconds * settings.time_share
        return self.deadline


@dataclass
class HiddenWebReport:
    """What one run's hidden-web pass did on a site."""

    forms: list[FormOutcome] = field(default_factory=list)
    result_urls: list[str] = field(default_factory=list)  # canonical, admitted to the frontier
    followed: int = 0  # result pages fetched and stored through the run loop
    requests: int = 0  # form pages, probes, submissions, list pages, second-level pages
    skipped: str = ""  # why nothing was searched ("disabled", "no keywords"...)

    @property
    def submissions(self) -> int:
        return sum(f.submissions for f in self.forms)

    @property
    def with_results(self) -> int:
        return sum(f.with_results for f in self.forms)

    @property
    def efficiency(self) -> float | None:
        """Return the share of this run's submissions that returned results."""
        return self.with_results / self.submissions if self.submissions else None

    def refused(self) -> dict[str, str]:
        """Return action -> reason for every form the crawler would not submit."""
        return {f.action: f.reason for f in self.forms if f.status == SiteSearch.Status.REFUSED}


def search_site(
    site: Site,
    frontier: Frontier,
    *,
    call: Call,
    backend: FetchBackend,
    topic: Topic | None = None,
    handle: Handle | None = None,
    budget: Callable[[], int] | None = None,
    settings: DeepWebSettings | None = None,
    rng: random.Random | None = None,
    now: datetime | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    run: CrawlRun | None = None,
    pages: Mapping[str, str] | None = None,
    memory: FormMemory | None = None,
) -> HiddenWebReport:
    """Search the site's forms with every user's keywords; fetch and store what they find.

    `call` runs a coroutine on the run's fetching loop; `handle(page, fetched)` stores a result
    page (default `step.process`); `budget()`: pages the run may still fetch; past `deadline` (a
    `clock()` value; default: the time share from `memory`'s first call) nothing is sent.
    """
    settings = settings or deepweb_settings()
    if not settings.enabled:
        return HiddenWebReport(skipped="disabled")
    topic = topic if topic is not None else get_topic(site)
    sync_keywords(topic.queries)
    if not topic.queries:
        return HiddenWebReport(skipped="no keywords")
    memory = memory if memory is not None else FormMemory()
    memory.keywords = frozenset(topic.queries) if run is not None else memory.keywords
    deadline = memory.until(clock, settings) if deadline is None else deadline
    requester = Requester(
        backend, call, needs_browser=site.needs_browser, deadline=deadline, clock=clock
    )
    runner = _FormWork(
        site,
        frontier,
        requester,
        settings,
        queries=topic.queries,
        language=topic.language,
        rng=rng or random.Random(),  # noqa: S311 (probe words, not secrets)
        now=now or timezone.now(),
        memory=memory,
    )
    try:
        report = runner.search(pages)
        frontier.searches_quiet |= runner.revisited and not runner.searched_anew
        fetched = Page.objects.filter(site=site, last_fetched_at__isnull=False)
        known = set(fetched.filter(url__in=list(runner.results)).values_list("url", flat=True))
        record_searches(site, run, report.forms, known=known, canonical=frontier.canonical)
        if settings.result_depth > 0:
            report.followed = _follow(site, frontier, runner.results, requester, handle, budget)
    finally:
        runner.requester.close()
    report.requests = runner.requester.requests
    return report


def search_in_run(
    context: RunContext, memory: FormMemory, pages: Mapping[str, str] | None = None
) -> HiddenWebReport:
    """Search the site's forms with the run's frontier, backend, topic and budget: the forms of
    `pages` (url: HTML already fetched) when given, else those the seeds and links lead to."""
    return search_site(
        context.site,
        context.frontier,
        call=context.call,
        backend=context.backend,
        topic=context.topic,
        handle=context.handle,
        budget=context.budget,
        rng=context.rng,
        run=context.run,
        pages=pages,
        memory=memory,
    )


def search_pass(context: RunContext) -> HiddenWebReport:
    """Run the hidden-web pass inside a crawl run (registered in crawler/apps.py)."""
    report = search_in_run(context, context.state.setdefault(STATE, FormMemory()))
    if report.submissions:
        logger.info(
            "Hidden web on %s: %d submission(s), %d with results, %d result page(s) stored",
            context.site,
            report.submissions,
            report.with_results,
            report.followed,
        )
    return report


def search_now(site: Site, **options: object) -> HiddenWebReport:
    """Run the hidden-web pass alone (commands, benches, tests), its loop in this thread."""
    loop = asyncio.new_event_loop()
    try:
        backend = loop.run_until_complete(open_backend(site))
        try:
            return search_site(
                site,
                Frontier(site),
                call=loop.run_until_complete,
                backend=backend,
                **options,  # type: ignore[arg-type]
            )
        finally:
            loop.run_until_complete(backend.aclose())
    finally:
        loop.close()


class _FormWork:
    """The form work of one run on one site."""

    def __init__(
        self,
        site: Site,
        frontier: Frontier,
        requester: Requester,
        settings: DeepWebSettings,
        *,
        queries: Mapping[str, float],
        language: str,
        rng: random.Random,
        now: datetime,
        memory: FormMemory,
    ) -> None:
        self.site = site
        self.memory = memory
        self.frontier = frontier
        self.requester = requester
        self.settings = settings
        room = min(settings.entity_queries, settings.smax - len(queries))
        # Names the site's own articles keep mentioning beside the keywords: more LVS values.
        self.queries = dict(queries) | site_names(site.id, queries, language, room)
        self.language = language
        self.rng = rng
        self.now = now
        self.hosts = frozenset(site.host_list())
        self.report = HiddenWebReport()
        self.done = memory.done  # fingerprints searched this run (a header form repeats)
        self.results: dict[str, int] = {}  # canonical result URL -> depth
        self.revisited = self.searched_anew = False  # a form searched before; one in full
        # The site's search endpoints: their pages are searches, never results.
        self.endpoints: set[str] = set(
            SiteSearch.objects.filter(site=site)
            .exclude(status=SiteSearch.Status.REFUSED)
            .values_list("action", flat=True)
        )

    def search(self, given: Mapping[str, str] | None = None) -> HiddenWebReport:
        """Analyse and search the forms of every seed page and of its search pages, or of
        the `given` pages (URL -> HTML) the crawl fetched."""
        seeds = list(given or self.site.seeds())
        pages = list(seeds)
        read: set[str] = set()
        while pages:
            url = pages.pop(0)
            if self.requester.expired():
                break
            if url in read or url in self.memory.read:
                continue
            read.add(url)
            self.memory.read.add(url)
            page = self._read(url, given)
            if page is None:
                continue
            html, url, forms = page
            links = page_links(html, url)
            if given is None and len(read) + len(pages) < len(seeds) + SEARCH_PAGES:
                pages += search_pages(links, self.hosts, read | set(pages))
            self.endpoints.update(f.action for f in forms if refusal(f) is None)
            context = FormContext(
                boilerplate=boilerplate(html, url),
                known_links=frozenset(link.url for link in links),
                hosts=self.hosts,
                searches=frozenset(self.endpoints),
            )
            depth = self._depth(url)
            for form in forms:
                key = form.fingerprint
                if key not in self.done:
                    self.done.add(key)
                    self._form(form, context, depth)
        self.report.result_urls = list(self.results)
        # Searches sent by GET were fetched: the crawl does not ask them again this run.
        self.frontier.take(self.frontier.canonical(url) for url in self.requester.searched)
        return self.report

    def _read(
        self, url: str, given: Mapping[str, str] | None
    ) -> tuple[str, str, list[Form]] | None:
        """Return a page's HTML, final URL and labelled forms (fetched unless `given`)."""
        if given is not None and url in given:
            html = given[url]
        else:
            answer = self.requester.get(url, keep_as=self._canonical(url))
            if not answer.ok:
                logger.info("Hidden web: %s could not be read (%s)", url, answer.error)
                return None
            html, url = answer.html, answer.url
        try:
            forms = analyze_forms(html, url)
        except FormParseError as exc:
            logger.info("Hidden web: %s", exc)
            return None
        return html, url, self._labelled(forms, html, url)

    def _labelled(self, forms: list[Form], html: str, url: str) -> list[Form]:
        """Give unlabelled elements of forms worth filling their visual labels."""
        wanted = [f for f in forms if f.unlabelled() and refusal(f) is None]
        if not wanted or not self.settings.browser_labels or self.requester.expired():
            return forms
        layouts = self.requester.visual_labels(html, url)
        if layouts is None or len(layouts) != len(forms):
            return forms
        return [form.with_labels(labels) for form, labels in zip(forms, layouts, strict=True)]

    def _form(self, form: Form, context: FormContext, depth: int) -> None:
        """Search through a form: its best assignments submitted, their results kept."""
        plan = self._plan(form)
        if plan is None:
            return
        record, _ = SiteSearch.objects.record_form(
            self.site,
            form,
            status=SiteSearch.Status.SEARCH,
            template=template_for(plan),
            uses_browser=self.site.needs_browser and form.method == "POST",
        )
        plan = with_feedback(plan, record)  # what earlier answers taught (HiWE 5.4)
        limit = self.settings.smax * CANDIDATES_PER_SUBMISSION
        candidates = best_assignments(plan, self.settings.ranking, limit)
        chosen = order_by_staleness(record, candidates)[: self.settings.smax]
        self.revisited |= (revisit := schedule.is_revisit(record, chosen, self.memory.keywords))
        if revisit and not schedule.search_due(record, self.site, self.now):
            self.report.forms.append(schedule.left_alone(form, record))
            return
        search = FormSearch(
            self.requester,
            self.settings,
            plan,
            record,
            context,
            rng=self.rng,
            now=self.now,
            language=self.language,
        )
        if chosen:
            search.probe()
        outcome = search.sentinel(schedule.sentinel_of(record, chosen)) if revisit else None
        if outcome is None or schedule.brought_news(self.site, outcome, self.frontier.canonical):
            self.searched_anew = True
            outcome = search.submit_all(chosen)
        self.report.forms.append(outcome)
        for url in outcome.results:
            canonical = self.frontier.canonical(url)
            self.results.setdefault(canonical, depth + 1)

    def _plan(self, form: Form) -> Plan | None:
        """Return how to fill a form, or None once why it is not filled is recorded."""
        reason = refusal(form)
        if reason is not None:
            record, _ = SiteSearch.objects.record_form(
                self.site, form, status=SiteSearch.Status.REFUSED, reason=reason
            )
            self.report.forms.append(
                FormOutcome(form.action, form.method, record.status, reason, record.id)
            )
            return None
        first_sighting = not SiteSearch.objects.filter(
            site=self.site, fingerprint=form.fingerprint
        ).exists()
        if first_sighting:
            learn_domains(form, self.language)
        plan = plan_form(
            form,
            with_keywords(load_table(), self.queries),
            threshold=self.settings.label_threshold,
            alpha=self.settings.alpha,
            language=self.language,
        )
        if not plan.submittable:
            record, _ = SiteSearch.objects.record_form(
                self.site,
                form,
                status=SiteSearch.Status.UNMATCHED,
                reason=plan.reason,
                query_arg=_keyword_name(plan),
            )
            self.report.forms.append(
                FormOutcome(form.action, form.method, record.status, plan.reason, record.id)
            )
            return None
        return plan

    def _canonical(self, url: str) -> str:
        try:
            return self.frontier.canonical(url)
        except BadURL:
            return ""

    def _depth(self, url: str) -> int:
        canonical = self.frontier.canonical(url)
        found = Page.objects.filter(site=self.site, url=canonical).values_list("depth", flat=True)
        return next(iter(found), 0)


def _keyword_name(plan: Plan) -> str:
    element = plan.keyword_element
    return element.name if element else ""


def _follow(
    site: Site,
    frontier: Frontier,
    results: dict[str, int],
    requester: Requester,
    handle: Handle | None,
    budget: Callable[[], int] | None,
) -> int:
    """Fetch and store result pages not fetched yet or due again; return how many."""
    if not results:
        return 0
    now = timezone.now()
    ids: dict[str, int] = {}
    for depth in sorted(set(results.values())):
        ids |= frontier.add([u for u, d in results.items() if d == depth], depth=depth, now=now)
    urls = list(results)
    pages = {
        p.url: p
        for p in Page.objects.filter(id__in=list(ids.values())).select_related("site")
        if p.last_fetched_at is None or (p.next_visit_at is not None and p.next_visit_at <= now)
    }
    wanted = [u for u in urls if u in pages and u not in frontier.taken]
    followed = 0
    for url in wanted:
        if (budget is not None and budget() <= 0) or requester.expired():
            break
        page = lessons.clean_page(frontier, pages[url], now)
        if page is None:
            continue
        frontier.take([page.url])
        fetched = requester.call(
            step.fetch_page(
                requester.backend,
                page.url,
                etag=page.etag,
                last_modified=page.last_modified,
                needs_browser=site.needs_browser,
                render_shells="off",
            )
        )
        if handle is not None:
            handle(page, fetched)
        else:
            step.process(frontier, None, page, fetched)
        followed += 1
    return followed
