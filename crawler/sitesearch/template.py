"""URL templates (He et al. section 4): a site's search as a URL with one {query} slot.

Submitting query q with every other field at its default is the same as fetching the
template with {query} replaced by q. A POST search form keeps the same description; it is
submitted with the filled pairs as its body instead. A template an admin writes by hand may
put the slot anywhere (`search_url` and `is_search_url` work on any template).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote_plus, urlsplit, urlunsplit

from crawler.sitesearch.analysis import Form

QUERY = "{query}"
URLENCODED = "application/x-www-form-urlencoded"
# A path segment naming a search, in the languages of the watched sites.
SEARCH_SEGMENTS = frozenset(
    {"search", "suche", "recherche", "buscar", "busca", "cerca", "zoeken", "sok", "szukaj", "haku"}
)
# Query arguments that carry a search's keywords; "s" only at the site root (WordPress).
SEARCH_ARGUMENTS = frozenset({"q", "query", "search", "keywords", "searchword", "searchterm"})


@dataclass(frozen=True)
class SearchRequest:
    """One submission: method, URL, and the form body for POST (empty for GET)."""

    method: str
    url: str
    data: tuple[tuple[str, str], ...] = ()
    enctype: str = URLENCODED


@dataclass(frozen=True)
class SearchTemplate:
    """A site's keyword search: where it goes, how, and which argument takes the keywords."""

    page_url: str  # the page the form was found on ("" for a template written by hand)
    action: str
    method: str  # "GET" or "POST"
    query_arg: str  # the keyword-query argument (the element that takes the keywords)
    fields: tuple[tuple[str, str], ...]  # every pair sent, QUERY in the keyword argument
    enctype: str = URLENCODED
    form_index: int = 0

    @classmethod
    def of_form(
        cls, form: Form, query_arg: str, values: Mapping[str, str] | None = None
    ) -> SearchTemplate:
        """Return the template of `form` with `values` set and QUERY in `query_arg`."""
        return cls(
            page_url=form.page_url,
            action=form.action,
            method=form.method,
            query_arg=query_arg,
            fields=tuple(form.fill({**(values or {}), query_arg: QUERY})),
            enctype=form.enctype,
            form_index=form.index,
        )

    @property
    def url(self) -> str:
        """Return the URL template with {query} (the action itself for POST)."""
        if self.method != "GET":
            return self.action
        return _with_query(self.action, encode(self.fields, keep=QUERY))

    def url_for(self, query: str) -> str:
        """Return the GET URL that searches `query` (the action for POST)."""
        return self.request_for(query).url

    def request_for(self, query: str) -> SearchRequest:
        """Return the request that searches `query` with every other field at its default."""
        pairs = tuple((name, query if value == QUERY else value) for name, value in self.fields)
        return build_request(self.action, self.method, pairs, self.enctype)


def parse_template(url_template: str) -> SearchTemplate:
    """Return a GET template written by hand as its parts (the slot may sit in the path)."""
    parts = urlsplit(url_template)
    fields = tuple(parse_qsl(parts.query, keep_blank_values=True))
    query_arg = next((name for name, value in fields if QUERY in value), "")
    action = urlunsplit((parts.scheme, parts.netloc, parts.path or "/", "", ""))
    return SearchTemplate(
        page_url="", action=action, method="GET", query_arg=query_arg, fields=fields
    )


def build_request(
    action: str, method: str, pairs: Sequence[tuple[str, str]], enctype: str = ""
) -> SearchRequest:
    """Return the request a browser sends for a form's pairs (GET replaces the action's query)."""
    if method == "GET":
        return SearchRequest("GET", _with_query(action, encode(pairs)))
    return SearchRequest("POST", action, tuple(pairs), enctype or URLENCODED)


def encode(pairs: Sequence[tuple[str, str]], keep: str = "") -> str:
    """Return form-urlencoded pairs (spaces as "+"), leaving a `keep` value unescaped."""
    return "&".join(
        f"{quote_plus(name)}={value if keep and value == keep else quote_plus(value)}"
        for name, value in pairs
    )


def search_url(template: str, query: str) -> str:
    """Return the template with {query} replaced by the form-encoded query."""
    return template.replace(QUERY, quote_plus(query))


def looks_like_search(url: str) -> bool:
    """Tell whether a URL has the shape of a search result page (/search, ?q=...)."""
    parts = urlsplit(url)
    segments = {segment.lower() for segment in parts.path.split("/") if segment}
    if segments & SEARCH_SEGMENTS:
        return True
    names = {name.lower() for name, value in parse_qsl(parts.query) if value.strip()}
    return bool(names & SEARCH_ARGUMENTS) or ("s" in names and parts.path in ("", "/"))


def is_search_url(url: str, template: str) -> bool:
    """Tell whether `url` is a page of the template's search (same host and path)."""
    a, b = urlsplit(url), urlsplit(template.replace(QUERY, "q"))
    return a.netloc.lower() == b.netloc.lower() and a.path.rstrip("/") == b.path.rstrip("/")


def _with_query(action: str, query: str) -> str:
    parts = urlsplit(action)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", query, ""))
