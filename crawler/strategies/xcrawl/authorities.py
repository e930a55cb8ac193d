"""GetAuthorities on the site's own search, with every page fetched by the crawl run itself.

The results pages and the results are ordinary fetches of the run (counted in its budget,
robots.txt and politeness applied by the fetcher). For each query of the `QueryPlanner`:

1. fetch the results page (the URL template with the query);
2. a one-token query only measures its hit count ("123 results", else the result links);
3. otherwise fetch the first n result links; when all are validated, tell the planner how
   many new authorities the query brought, which ends the search after `max_iterations`
   fruitless queries in a row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from crawler.fetch.result import ErrorKind, FetchError
from crawler.sitesearch.template import search_url
from crawler.strategies.xcrawl.querygen import Query, QueryPlanner
from crawler.strategies.xcrawl.search import parse_hit_count, result_links


@dataclass
class _Pending:
    query: Query
    results: list[str] = field(default_factory=list)
    open: set[str] = field(default_factory=set)
    new_authorities: int = 0


class GetAuthorities:
    """The query generation of one run against the site's search URL template."""

    def __init__(self, template: str, planner: QueryPlanner, *, results: int = 10) -> None:
        self.template = template
        self.planner = planner
        self.results = results
        self._pages: dict[str, _Pending] = {}  # results page URL -> its query
        self._by_result: dict[str, _Pending] = {}  # result URL -> its query
        self.queries_sent = 0
        self.failed = False

    @property
    def done(self) -> bool:
        """Tell whether the phase has nothing more to ask or wait for."""
        if self.failed:
            return True
        return self.planner.done and not self._pages and not self._by_result

    def next_search(self, admit) -> str | None:
        """Return the next results page URL to fetch (admitted by `admit`), or None for now."""
        if self.failed or self._pages:  # one results page at a time: the next depends on it
            return None
        while (query := self.planner.next_query()) is not None:
            url = admit(search_url(self.template, query.text))
            if url is None:
                self.planner.record_outcome(query, 0)
                if query.measure:
                    self.planner.record_hits(query.text, None)
                continue
            self._pages[url] = _Pending(query)
            self.queries_sent += 1
            return url
        return None

    def is_results_page(self, url: str) -> bool:
        """Tell whether `url` is a results page this phase is waiting for."""
        return url in self._pages

    def observe_results_page(
        self, url: str, analysis: Any, error: FetchError | None, admit
    ) -> list[str]:
        """Read a fetched results page and return the result URLs to fetch next."""
        pending = self._pages.pop(url)
        query = pending.query
        if error is not None or analysis is None:
            if error is not None and error.kind == ErrorKind.ROBOTS:
                self.failed = True  # the site does not want its search crawled
            if query.measure:
                self.planner.record_hits(query.text, None)
            self.planner.record_outcome(query, 0)
            return []
        links = result_links(analysis, self.template)
        if query.measure:
            hits = parse_hit_count(analysis.text)
            self.planner.record_hits(query.text, hits if hits is not None else len(links))
            self.planner.record_outcome(query, 0)
            return []
        wanted = [u for u in (admit(link) for link in links[: self.results]) if u]
        pending.results = wanted
        pending.open = set(wanted)
        for result in wanted:
            self._by_result.setdefault(result, pending)
        if not pending.open:
            self.planner.record_outcome(query, 0)
        return wanted

    def observe_result(self, url: str, new_authority: bool) -> None:
        """Record the verdict on a fetched result."""
        pending = self._by_result.pop(url, None)
        if pending is None:
            return
        pending.open.discard(url)
        pending.new_authorities += int(new_authority)
        if not pending.open:
            self.planner.record_outcome(pending.query, pending.new_authorities)

    def forget(self, url: str) -> None:
        """Stop waiting for a result that will not be fetched (already known, say)."""
        self.observe_result(url, False)
