"""Search engines xCrawl asks for sites (a SearxNG API), and the reading of results pages.

`SearchProvider.search(query, limit=n)` returns the first n result URLs and, when the engine
says, the total hit count (the search weight of a one-token query). The provider is
`SearxngProvider`: any SearxNG-compatible JSON API (`GET {base}/search?q=..&format=json`).
A site's own search results pages are read with `result_links` and `parse_hit_count`.

Errors come out as `SearchError`, never as a half-read answer.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from crawler.sitesearch.template import is_search_url

# "1,234 results", "Showing 12 products", "42 matches for" ... in the engine's language.
_HIT_COUNT = re.compile(
    r"(\d{1,3}(?:[,.\u202f\u00a0 ]\d{3})+|\d+)\s+(?:results?|matches|hits|items|products|"
    r"articles|pages|documents|entries|treffer|r[ée]sultats?|resultados?|risultati|"
    r"αποτελέσματα)\b",
    re.IGNORECASE,
)


class SearchError(RuntimeError):
    """A search engine could not be asked, or its answer could not be read."""


@dataclass(frozen=True)
class SearchHit:
    """One result: its URL and what the engine said about it."""

    url: str
    title: str = ""
    snippet: str = ""


@dataclass(frozen=True)
class SearchResults:
    """The first results of a query and the engine's total hit count (None if it gave none)."""

    query: str
    hits: list[SearchHit] = field(default_factory=list)
    total: int | None = None

    @property
    def hit_count(self) -> int:
        """Return the total hit count, or the number of results when the engine gave none."""
        return self.total if self.total is not None else len(self.hits)


class SearchProvider(ABC):
    """A search engine xCrawl can ask for documents."""

    name: str = "search"

    @abstractmethod
    def search(self, query: str, *, limit: int = 10) -> SearchResults:
        """Return the first `limit` results of `query`; raise SearchError on failure."""

    def hit_count(self, query: str) -> int:
        """Return how many documents the engine has for `query`."""
        return self.search(query, limit=10).hit_count


# --- SearxNG-compatible JSON API ------------------------------------------------------------


class SearxngProvider(SearchProvider):
    """Ask a SearxNG-compatible API: GET {base}/search?q=...&format=json."""

    name = "searxng"

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 15.0,
        params: dict[str, str] | None = None,
        client: httpx.Client | None = None,
        user_agent: str = "WebclipBot/0.1",
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in {"http", "https"} or not parts.netloc:
            raise ValueError(f"{base_url!r} is not an http(s) URL of a SearxNG instance.")
        self.endpoint = urljoin(base_url.rstrip("/") + "/", "search")
        self.params = dict(params or {})
        self.client = client or httpx.Client(
            timeout=timeout, headers={"User-Agent": user_agent}, follow_redirects=True
        )

    def search(self, query: str, *, limit: int = 10) -> SearchResults:
        """Return the first `limit` results, reading as many result pages as needed (max 5)."""
        hits: list[SearchHit] = []
        total: int | None = None
        seen: set[str] = set()
        for page_number in range(1, 6):
            data = self._get(query, page_number)
            total = total or _positive_int(data.get("number_of_results"))
            results = data.get("results")
            if not isinstance(results, list) or not results:
                break
            for item in results:
                hit = _hit(item)
                if hit is not None and hit.url not in seen:
                    seen.add(hit.url)
                    hits.append(hit)
            if len(hits) >= limit:
                break
        return SearchResults(query=query, hits=hits[:limit], total=total)

    def _get(self, query: str, page_number: int) -> dict[str, Any]:
        params = {**self.params, "q": query, "format": "json", "pageno": str(page_number)}
        try:
            response = self.client.get(self.endpoint, params=params)
        except httpx.HTTPError as exc:
            raise SearchError(f"{self.endpoint}: {type(exc).__name__}: {exc}") from exc
        if response.status_code != 200:
            raise SearchError(f"{self.endpoint} answered HTTP {response.status_code}.")
        try:
            data = response.json()
        except ValueError as exc:
            raise SearchError(f"{self.endpoint} did not answer JSON ({exc}).") from exc
        if not isinstance(data, dict):
            raise SearchError(f"{self.endpoint} answered JSON that is not an object.")
        return data

    def close(self) -> None:
        """Close the HTTP connections."""
        self.client.close()


def _hit(item: object) -> SearchHit | None:
    if not isinstance(item, dict):
        return None
    url = item.get("url")
    if not isinstance(url, str) or urlsplit(url).scheme not in {"http", "https"}:
        return None
    return SearchHit(
        url=url, title=str(item.get("title") or ""), snippet=str(item.get("content") or "")
    )


def _positive_int(value: object) -> int | None:
    try:
        number = int(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


# --- Reading a results page ---------------------------------------------------------------


def result_links(analysis: Any, template: str) -> list[str]:
    """Return a results page's result links: site links in its content areas, in page order.

    Links in hub or informational areas are the results; only when the analyzer found no
    such area do other links count. Navigation (menus, footers) never does, nor further
    pages of the search itself.
    """
    host = urlsplit(template).netloc.lower()
    usable = [
        link
        for link in analysis.links
        if link.area_kind != "navigation"
        and not link.nofollow
        and urlsplit(link.url).netloc.lower() == host
        and not is_search_url(link.url, template)
    ]
    content = [link for link in usable if link.area_kind in {"hub", "information"}]
    return list(dict.fromkeys(link.url for link in content or usable))


def parse_hit_count(text: str) -> int | None:
    """Return the hit count a results page states ("1,234 results"), None if it states none."""
    match = _HIT_COUNT.search(text or "")
    if match is None:
        return None
    return int(re.sub(r"\D", "", match.group(1)))
