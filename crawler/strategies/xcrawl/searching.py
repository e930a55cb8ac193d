"""GetAuthorities: xCrawl's queries through the site's own search, and their results.

Part of `XCrawl` (crawler.strategies.xcrawl.strategy), on the state it keeps.
"""

from __future__ import annotations

from crawler.models import Page
from crawler.models.sitesearch import SiteSearch
from crawler.strategies.base import PageObservation
from crawler.strategies.xcrawl.authorities import GetAuthorities
from crawler.strategies.xcrawl.querygen import QueryPlanner
from crawler.strategies.xcrawl.validator import Verdict


class SearchingSite:
    """XCrawl's use of the site's search."""

    def _start_search(self, template: str | None) -> None:
        self.search_template = template or self.search_template
        if template is None or not self.config.search or not self.tokens:
            return
        planner = QueryPlanner(
            self.tokens[: self.config.search_max_tokens],
            max_length=self.config.search_query_length,
            max_iterations=self.config.search_max_iterations,
            max_queries=self.config.search_max_queries,
        )
        self.search = GetAuthorities(template, planner, results=self.config.search_results)

    def _stored_template(self) -> str | None:
        found = SiteSearch.objects.filter(site=self.site).url_templates()
        return found.values_list("url_template", flat=True).first()

    def _maybe_find_search(self, observation: PageObservation) -> None:
        """Look for a GET search form on the first seed fetched, once per run."""
        if self.search is not None or self.search_checked or observation.url not in self._seeds:
            return
        self.search_checked = True
        body = observation.body or self._stored_body(observation.page_id)
        template = (
            SiteSearch.objects.find_template(self.site, body, observation.url) if body else None
        )
        if template is None:
            return
        self._start_search(template)

    @staticmethod
    def _stored_body(page_id: int | None) -> bytes | None:
        version = Page.objects.get(id=page_id).latest_version() if page_id else None
        return version.raw_body() if version is not None else None

    def _search_observed(self, observation: PageObservation, verdict: Verdict, node: int) -> None:
        if self.search is None:
            return
        if self.search.is_results_page(observation.url):
            self.stats.searches += 1
            results = self.search.observe_results_page(
                observation.url, observation.analysis, observation.error, self._admit
            )
            for url in results:
                target = self.graph.node(url)
                if self._open(target) and target not in self.revisits:
                    self.revisits.append(target)  # results go first, like revisits
                else:
                    self.search.forget(url)
        else:
            self.search.observe_result(observation.url, verdict.accepted)

    def _admit(self, url: str) -> str | None:
        """Store a URL the strategy made up (a search page) in the frontier; None if refused
        or fetched in this run already (the hidden-web pass sends the users' keywords)."""
        canonical = self.frontier.canonical(url)
        if canonical in self.frontier.taken:
            return None
        ids = self.frontier.add([canonical], depth=1)
        if canonical not in ids:
            return None
        self.graph.node(canonical)
        return canonical
