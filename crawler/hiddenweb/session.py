"""Searching one form in one run: probe, submit the best assignments, read the answers.

1. Probe: nonsensical queries teach the form's "no results" page (kept a week).
2. Submit up to Smax assignments; each answer too similar to a probe's is empty; the
   share of non-empty answers is the form's submission efficiency.
3. A non-empty answer gives result links and the pages of the same result list, walked up
   to DEEPWEB_RESULT_PAGES pages.
4. Second-level URLs from every result page are kept when they carry the keyword-query
   argument, deduplicated by selection segments, then fetched; their result links count.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from urllib.parse import parse_qsl, urlsplit

from crawler.conf import DeepWebSettings
from crawler.hiddenweb.assignments import Assignment, Plan, request_for_assignment
from crawler.hiddenweb.requester import TIME_UP, Answer, Requester
from crawler.hiddenweb.responses import EmptyPageModel, nonsense_queries, signature
from crawler.hiddenweb.secondlevel import keyword_urls, page_links, split_result_links
from crawler.hiddenweb.segments import dedupe, noise_segments, selection_key
from crawler.hiddenweb.store import empty_model, record_submission, save_probes
from crawler.models.sitesearch import SiteSearch
from crawler.sitesearch.analysis import Form

PROBE_EVERY = timedelta(days=7)


@dataclass
class FormOutcome:
    """What searching one form did: counts for the run report and the found result links."""

    action: str
    method: str
    status: str
    reason: str = ""
    form_id: int | None = None
    probes: int = 0
    submissions: int = 0
    with_results: int = 0
    result_pages: int = 0  # first-level answers and their list pages fetched
    second_level_found: int = 0  # distinct URLs on result pages that are not results
    second_level_kept: int = 0  # of those, carrying the keyword-query argument
    second_level_deduped: int = 0  # of those, left after deduplication
    second_level_fetched: int = 0
    results: list[str] = field(default_factory=list)  # absolute result links, in order found

    @property
    def efficiency(self) -> float | None:
        """Return the share of submissions that returned results, None before any."""
        return self.with_results / self.submissions if self.submissions else None


@dataclass
class FormContext:
    """The form's page as result pages are read against it."""

    boilerplate: frozenset[str]
    known_links: frozenset[str]
    hosts: frozenset[str]


class FormSearch:
    """Search one submittable form for one run."""

    def __init__(
        self,
        requester: Requester,
        settings: DeepWebSettings,
        plan: Plan,
        record: SiteSearch,
        context: FormContext,
        *,
        rng: random.Random,
        now: datetime,
    ) -> None:
        self.requester = requester
        self.settings = settings
        self.plan = plan
        self.form: Form = plan.form
        self.record = record
        self.context = context
        self.rng = rng
        self.now = now
        keyword = plan.keyword_element
        self.query_arg = keyword.name if keyword else ""
        self.outcome = FormOutcome(
            self.form.action, self.form.method, record.status, form_id=record.id
        )
        self.model = empty_model(record, settings.empty_threshold)
        self._second_level: dict[str, None] = {}  # ordered set
        self._units: list[set[str]] = []  # per result page, its search-endpoint links
        self._pages: list[str] = []  # result page URLs fetched (their selections are done)
        self._results: dict[str, None] = {}

    # --- Probing -------------------------------------------------------------------------------

    def probe(self) -> None:
        """Learn the "no results" page from nonsensical queries, unless learnt this week."""
        fresh = self.record.probed_at and self.now - self.record.probed_at < PROBE_EVERY
        if fresh and self.model.signatures:
            return
        target = self.plan.keyword_element or next(iter(self.form.text_elements), None)
        if target is None:
            return  # only finite elements: every answer is a real selection
        signatures = []
        for query in nonsense_queries(self.settings.probes, self.rng):
            values = {s.element.name: s.choices[0].value for s in self.plan.sets if s.choices}
            values[target.name] = query
            assignment = Assignment(tuple(values.items()), 0.0, query)
            answer = self.requester.send(self.form, request_for_assignment(self.form, assignment))
            if answer.error == TIME_UP:
                break  # not sent; without a signature the answers are read as non-empty
            self.outcome.probes += 1
            if answer.ok:
                signatures.append(self._signature(answer, query))
        if signatures:
            self.model = EmptyPageModel(tuple(signatures), self.settings.empty_threshold)
            save_probes(self.record, self.model, self.now)

    # --- Submitting ----------------------------------------------------------------------------

    def submit_all(self, assignments: list[Assignment]) -> FormOutcome:
        """Submit each assignment, walk its result list, then fetch the second-level URLs."""
        for assignment in assignments:
            if self.requester.expired():
                break
            self.submit(assignment)
        self._second_level_pass()
        self.outcome.results = list(self._results)
        return self.outcome

    def submit(self, assignment: Assignment) -> bool:
        """Submit one assignment; return whether it returned results."""
        request = request_for_assignment(self.form, assignment)
        answer = self.requester.send(self.form, request)
        if answer.error == TIME_UP:
            return False  # not sent: nothing to count
        had_results = answer.ok and not self._empty(answer, assignment.keyword)
        self.outcome.submissions += 1
        self.outcome.with_results += int(had_results)
        record_submission(self.record, assignment, had_results=had_results, now=self.now)
        if had_results:
            self._walk(answer, assignment.keyword)
        return had_results

    def _walk(self, first: Answer, query: str) -> None:
        """Read a result page and the further pages of the same list."""
        queue = [first]
        visited = {first.url}
        while queue:
            answer = queue.pop(0)
            self.outcome.result_pages += 1
            for url in self._read(answer, query, list_pages=True):
                if url not in visited and len(visited) < self.settings.result_pages:
                    visited.add(url)
                    following = self.requester.get(url)
                    if following.ok:
                        queue.append(following)

    def _read(self, answer: Answer, query: str, *, list_pages: bool) -> list[str]:
        """Collect a result page's result links and second-level URLs; return its list pages."""
        links = page_links(answer.html, answer.url)
        split = split_result_links(
            links,
            endpoint=self.form.action,
            query_arg=self.query_arg,
            query=query,
            known=self.context.known_links,
            hosts=self.context.hosts,
        )
        self._pages.append(answer.url)
        self._results.update(dict.fromkeys(split.results))
        self._units.append({link.url for link in links})
        self._second_level.update(dict.fromkeys(split.second_level))
        if not list_pages:
            return []
        return split.list_pages

    def _second_level_pass(self) -> None:
        """Filter, deduplicate and fetch the second-level URLs of this run's result pages."""
        fetched = set(self._pages)
        found = [u for u in self._second_level if u not in fetched]
        kept = keyword_urls(found, self.query_arg) if self.query_arg else []
        keep_args = {self.query_arg} if self.query_arg else set()
        noise = noise_segments(self._units, self.settings.dedup_prevalence, keep=keep_args)
        done = {selection_key(url, noise) for url in self._pages}
        deduped = dedupe(kept, noise, done)
        self.outcome.second_level_found = len(found)
        self.outcome.second_level_kept = len(kept)
        self.outcome.second_level_deduped = len(deduped)
        for url in deduped[: self.settings.second_level]:
            answer = self.requester.get(url)
            if answer.error == TIME_UP:
                break
            self.outcome.second_level_fetched += 1
            query = _argument(url, self.query_arg)
            if answer.ok and not self._empty(answer, query):
                self._read(answer, query, list_pages=False)

    # --- Responses -----------------------------------------------------------------------------

    def _signature(self, answer: Answer, query: str) -> frozenset[str]:
        return signature(answer.html, query=query, common=self.context.boilerplate, url=answer.url)

    def _empty(self, answer: Answer, query: str) -> bool:
        return self.model.is_empty(self._signature(answer, query))


def _argument(url: str, name: str) -> str:
    return next((v for k, v in parse_qsl(urlsplit(url).query) if k == name), "")
