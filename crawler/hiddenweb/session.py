"""Searching one form in one run: probe, search the users' keywords as written, walk the lists.

1. Probe: nonsensical queries teach the form's "no results" page (kept a week).
2. Each chosen assignment searches its user's keyword as written (`KeywordForms`): a word as
   is, a phrase quoted; a quoted phrase that finds nothing is searched unquoted, and the pair
   teaches whether the site reads quotes. Each answer too similar to a probe's is empty; the
   share of non-empty answers is the form's submission efficiency.
3. Once every keyword was searched, inflected forms (unless an inflection found exactly what
   its keyword found: the site stems) and synonyms use what is left of Smax.
4. A non-empty answer gives result links, and the further pages of its list: "next" links
   and page numbers carrying the query, or "next page" forms (GET or POST, the same safety
   rules as any form), walked until a page brings no new result, its text no longer holds
   the query's words, or DEEPWEB_RESULT_PAGES pages were read.
5. With what is left of Smax, at most DEEPWEB_ENTITY_QUERIES names recurring on this run's
   result pages are searched too (He et al.'s entities bootstrapped from crawled pages,
   `crawler.hiddenweb.entities`).
6. Second-level URLs from every result page are kept when they carry the keyword-query
   argument, deduplicated by selection segments, then fetched; their result links count.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import parse_qsl, urlsplit

from analyzer.text import stems, tokenize
from crawler.conf import DeepWebSettings
from crawler.hiddenweb.assignments import Assignment, Plan, request_for_assignment
from crawler.hiddenweb.entities import ENTITY, names_in, recurring_names
from crawler.hiddenweb.outcome import FormOutcome, SearchLog
from crawler.hiddenweb.requester import TIME_UP, Answer, Requester
from crawler.hiddenweb.responses import EmptyPageModel, nonsense_queries, signature, text_blocks
from crawler.hiddenweb.secondlevel import (
    is_next_label,
    keyword_urls,
    page_links,
    split_result_links,
)
from crawler.hiddenweb.segments import (
    dedupe,
    narrows_whole,
    noise_segments,
    query_sensitive,
    selection_key,
)
from crawler.hiddenweb.store import empty_model, record_submission, save_probes
from crawler.models.sitesearch import SiteSearch
from crawler.sitesearch.analysis import Form, FormParseError, analyze_forms
from crawler.sitesearch.safety import refusal
from crawler.sitesearch.template import SearchRequest, build_request
from crawler.strategies.xcrawl.querygen import (
    INFLECTED,
    QUOTED,
    TYPED,
    KeywordForm,
    KeywordForms,
    SearchStyle,
)

PROBE_EVERY = timedelta(days=7)


@dataclass
class FormContext:
    """The form's page as result pages are read against it."""

    boilerplate: frozenset[str]
    known_links: frozenset[str]
    hosts: frozenset[str]
    searches: frozenset[str] = frozenset()  # the site's search endpoints (form actions)


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
        language: str = "en",
        style: SearchStyle | None = None,
    ) -> None:
        self.requester = requester
        self.settings = settings
        self.plan = plan
        self.form: Form = plan.form
        self.record = record
        self.context = context
        self.rng = rng
        self.now = now
        self.language = language
        self.forms = KeywordForms(language, style)
        keyword = plan.keyword_element
        self.query_arg = keyword.name if keyword else ""
        self.outcome = FormOutcome(
            self.form.action, self.form.method, record.status, form_id=record.id
        )
        self.model = empty_model(record, settings.empty_threshold)
        self._second_level: dict[str, None] = {}  # ordered set
        self._units: list[set[str]] = []  # per result page, its search-endpoint links
        self._read_links: list[tuple[str, list[tuple[str, str]]]] = []  # and their anchors
        self._pages: list[str] = []  # result page URLs fetched (their selections are done)
        self._whole: list[str] = []  # first pages of the lists read to their last page
        self._results: dict[str, None] = {}
        self._typed: set[tuple[tuple[str, str], ...]] = set()  # assignments already sent
        self._page_results: list[str] = []  # the result links of the page read last
        self._texts: list[list[str]] = []  # per result page, its blocks outside boilerplate

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
        """Search each assignment's keyword as written, then its other forms, then second level.

        Smax (DEEPWEB_SMAX) caps the submissions of the whole form: keywords as written first,
        inflections and synonyms with what is left.
        """
        found: list[tuple[Assignment, set[str]]] = []
        for assignment in assignments:
            if self._spent():
                break
            found.append((assignment, self._search_keyword(assignment)))
        for assignment, results in found:
            if not assignment.keyword:
                continue
            for extra in self.forms.extras(assignment.keyword):
                if self._spent():
                    break
                if extra.form == INFLECTED and self.forms.style.stems:
                    continue  # the site stems: an inflection repeats the keyword's results
                got = self._search(assignment, extra)
                if extra.form == INFLECTED and got is not None:
                    self.forms.learn_stems(results, got)
        self._bootstrap(assignments)
        self._second_level_pass()
        self.outcome.results = list(self._results)
        self.outcome.style = self.forms.style.describe()
        return self.outcome

    def sentinel(self, assignment: Assignment) -> FormOutcome:
        """Search one assignment's keyword as written, and nothing else: a revisit's first
        question to a form searched before (`crawler.hiddenweb.schedule`)."""
        results = self._search_keyword(assignment)
        self.outcome.results = list(dict.fromkeys([*self._results, *results]))
        self.outcome.style = self.forms.style.describe()
        return self.outcome

    def _bootstrap(self, assignments: list[Assignment]) -> None:
        """Search the names that recur on this run's result pages, within Smax."""
        limit = self.settings.entity_queries
        if not self.query_arg or not assignments or limit <= 0 or self._spent():
            return
        done = [a.keyword for a in assignments] + [log.query for log in self.outcome.searches]
        done += names_in("\n".join(self.context.boilerplate), self.language)  # site chrome
        names = recurring_names(self._texts, exclude=done, limit=limit, language=self.language)
        for name in names:
            if self._spent():
                break
            self._search(assignments[0], KeywordForm(name, name, ENTITY))

    def _spent(self) -> bool:
        return self.requester.expired() or self.outcome.submissions >= self.settings.smax

    def _search_keyword(self, assignment: Assignment) -> set[str]:
        """Search one assignment's keyword as written; return the result links it found."""
        if not assignment.keyword or self.query_arg == "":
            got = self._search(
                assignment, KeywordForm(assignment.keyword, assignment.keyword, TYPED)
            )
            return got or set()
        first = self.forms.first(assignment.keyword)
        results = self._search(assignment, first)
        if first.form != QUOTED or results is None:
            return results or set()
        plain = self.forms.after_quoted(assignment.keyword, bool(results))
        if plain is None or self._spent():
            return results
        unquoted = self._search(assignment, plain)
        if unquoted is not None:
            self.forms.learn_quotes(bool(results), bool(unquoted))
        return results | (unquoted or set())

    def _search(self, assignment: Assignment, typed: KeywordForm) -> set[str] | None:
        """Submit `assignment` with `typed` in the keyword box and walk its result list.

        Returns the result links found (empty for a "no results" answer), None when nothing
        was sent (time is up, or the very same values were sent already in this run).
        """
        values = dict(assignment.values)
        if self.query_arg:
            values[self.query_arg] = typed.text
        key = tuple(sorted(values.items()))
        if key in self._typed:
            return None
        self._typed.add(key)
        sent = Assignment(tuple(values.items()), assignment.rank, typed.text)
        answer = self.requester.send(self.form, request_for_assignment(self.form, sent))
        if answer.error == TIME_UP:
            return None
        had_results = answer.ok and not self._empty(answer, typed.text)
        self.outcome.submissions += 1
        self.outcome.with_results += int(had_results)
        record_submission(self.record, sent, had_results=had_results, now=self.now)
        log = SearchLog(typed.text, typed.keyword, typed.form, had_results)
        self.outcome.searches.append(log)
        if not had_results:
            return set()
        return self._walk(answer, typed, log)

    def _walk(self, first: Answer, typed: KeywordForm, log: SearchLog) -> set[str]:
        """Read a result page and the further pages of its list; return the results found.

        1. Each page's result links are read; the list's next page is its "next" link or
           form, else the lowest page number above the current one (links carrying the
           query, or "page" forms going to the search endpoint).
        2. The walk stops at a page that brings no result not seen before in this form's
           run, at a page whose text no longer holds the query's words (when the first page
           showed them), at the last page, or after DEEPWEB_RESULT_PAGES pages.
        """
        query = typed.text
        wanted = set(stems(list(typed.words), self.language))
        found: set[str] = set()
        current: Answer | None = first
        visited = {("GET", first.url, ())}
        number = 1  # the page of the list being read
        judged = False  # whether the list's pages show the query's words
        while current is not None:
            log.pages += 1
            self.outcome.result_pages += 1
            before = set(self._results)
            following = self._read(current, query, list_pages=True)
            fresh = [u for u in self._results if u not in before]
            found.update(self._page_results)
            log.results += fresh
            if log.pages > 1 and not fresh:
                log.stopped = "no new results"
                break
            if log.pages == 1:
                # Only a list that shows the query's words on its first page can be seen to
                # stop holding them (titles alone may not show what matched).
                judged = bool(wanted) and self._holds(current, wanted)
            elif judged and not self._holds(current, wanted):
                log.stopped = "no match"
                break
            if log.pages >= self.settings.result_pages:
                log.stopped = "page limit"
                break
            candidates = [
                (request, label)
                for request, label in following + self._next_forms(current)
                if (request.method, request.url, request.data) not in visited
                and (label is None or label > number)
            ]
            if not candidates:
                log.stopped = "last page"
                break
            request, label = min(candidates, key=lambda c: -1 if c[1] is None else c[1])
            visited.add((request.method, request.url, request.data))
            page = self._follow(request)
            if page.error == TIME_UP:
                log.stopped = "time"
                break
            current = page if page.ok and not self._empty(page, query) else None
            number = label if label is not None else number + 1
            if current is None:
                log.stopped = "empty page"
        if log.stopped == "last page":
            self._whole.append(first.url)
        return found

    def _follow(self, request: SearchRequest) -> Answer:
        if request.method == "GET":
            return self.requester.get(request.url, search=True)
        return self.requester.post(request)

    def _holds(self, answer: Answer, wanted: set[str]) -> bool:
        """Tell whether a result page's own text (outside the site's boilerplate) holds any of
        the query's words, compared stemmed."""
        words: set[str] = set()
        for block in text_blocks(answer.html, answer.url):
            if block not in self.context.boilerplate:
                words.update(tokenize(block))
        return bool(wanted & set(stems(sorted(words), self.language)))

    def _next_forms(self, answer: Answer) -> list[tuple[SearchRequest, int | None]]:
        """Return a result page's "next page" forms that are safe to submit, with page numbers.

        A form counts when it goes to the search endpoint, a button names another page
        ("Next", "2", "More results") and the crawler may submit it (`refusal`).
        """
        try:
            forms = analyze_forms(answer.html, answer.url)
        except FormParseError:
            return []
        endpoint = urlsplit(self.form.action)
        found = []
        for form in forms:
            target = urlsplit(form.action)
            if (target.netloc.lower(), target.path) != (endpoint.netloc.lower(), endpoint.path):
                continue
            if form.scripted or refusal(form) is not None:
                continue
            labels = [b for b in form.buttons if is_next_label(b)]
            if not labels:
                continue
            request = build_request(form.action, form.method, form.default_values(), form.enctype)
            found.append((request, _page_number(labels[0])))
        return found

    def _read(
        self, answer: Answer, query: str, *, list_pages: bool
    ) -> list[tuple[SearchRequest, int | None]]:
        """Collect a result page's result links and second-level URLs; return its list pages
        with their page numbers (None for "Next")."""
        links = page_links(answer.html, answer.url)
        split = split_result_links(
            links,
            endpoint=self.form.action,
            query_arg=self.query_arg,
            query=query,
            known=self.context.known_links,
            hosts=self.context.hosts,
            searches=self.context.searches,
        )
        self._pages.append(answer.url)
        own = [b for b in text_blocks(answer.html, answer.url) if b not in self.context.boilerplate]
        self._texts.append(own)
        self._page_results = list(split.results)
        self._results.update(dict.fromkeys(split.results))
        self._units.append({link.url for link in links})
        self._read_links.append((answer.url, [(link.url, link.text) for link in links]))
        self._second_level.update(dict.fromkeys(split.second_level))
        if not list_pages:
            return []
        labels = {link.url: link for link in links}
        pages = []
        for url in split.list_pages:
            link = labels[url]
            number = None if "next" in link.rel.split() else _page_number(link.text)
            pages.append((SearchRequest("GET", url), number))
        return pages

    def _second_level_pass(self) -> None:
        """Filter, deduplicate and fetch the second-level URLs of this run's result pages."""
        fetched = set(self._pages)
        found = [u for u in self._second_level if u not in fetched]
        kept = keyword_urls(found, self.query_arg) if self.query_arg else []
        keep_args = {self.query_arg} if self.query_arg else set()
        sensitive = query_sensitive(self._read_links)  # facets: selections however common
        noise = noise_segments(self._units, self.settings.dedup_prevalence, keep_args, sensitive)
        done = {selection_key(url, noise) for url in self._pages}
        whole = [selection_key(url, noise) for url in self._whole]
        deduped = [
            url
            for url in dedupe(kept, noise, done)
            if not narrows_whole(url, noise, whole, sensitive)
        ]
        self.outcome.second_level_found = len(found)
        self.outcome.second_level_kept = len(kept)
        self.outcome.second_level_deduped = len(deduped)
        for url in deduped[: self.settings.second_level]:
            answer = self.requester.get(url, search=True)
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


def _page_number(label: str) -> int | None:
    """Return the page number a pager label names ("3"), None for "Next" and the like."""
    label = label.strip()
    return int(label) if label.isdigit() else None


def _argument(url: str, name: str) -> str:
    return next((v for k, v in parse_qsl(urlsplit(url).query) if k == name), "")
