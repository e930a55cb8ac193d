"""The links of a result page: results to follow, the list's own pages, second-level URLs.

HiWE follows a result page's links (depth 1). He et al. call every URL on a result page a
second-level URL and keep only those carrying the keyword-query argument (related queries,
facets, other sort orders, other pages), a 3 to 5 times cut before deduplication.

Here a result page's links fall in three groups:

1. result links: off the search endpoint and not on the form's own page (not menus or
   footers): the articles the search found, followed and analysed like any page;
2. pages of the same result list ("2", "Next", rel=next with the same keywords): walked as
   part of the same submission, because the service wants every matching article, where
   the paper settles for one page per selection;
3. second-level URLs: every other link (search URLs with other sorts, facets, related
   queries, tracking arguments, and the site's menus), filtered by the keyword-query
   argument, then deduplicated (`crawler.hiddenweb.segments`).

On a seed page, `search_pages` names the links that lead to searches (the pass reads their
forms too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urljoin, urlsplit, urlunsplit

from crawler.sitesearch.analysis import FormParseError, parse_html
from crawler.sitesearch.labels import text_of

SEARCH_PAGES_PER_PAGE = 3
_SEARCH_LINK = re.compile(r"\b(advanced|search|archive|find)\b", re.I)
_SEARCH_SEGMENT = re.compile(r"^(advanced[_-]?)?(search|archives?|find)([_-]?advanced)?$")
_NEXT = re.compile(
    r"^(\d{1,4}|next( page)?|((load|show) )?more( results| articles| stories)?|"
    r"older( (posts|articles))?|[›»>→]+|next ?[›»>→]+)$",
    re.I,
)


@dataclass(frozen=True)
class PageLink:
    """A link as written on a page: absolute URL, anchor text, rel."""

    url: str
    text: str = ""
    rel: str = ""


@dataclass
class ResultLinks:
    """A result page's links, sorted into the three groups."""

    results: list[str] = field(default_factory=list)
    list_pages: list[str] = field(default_factory=list)
    second_level: list[str] = field(default_factory=list)


def page_links(html: str | bytes, url: str) -> list[PageLink]:
    """Return a page's http(s) links, absolute and without fragments, in document order."""
    try:
        doc = parse_html(html, url)
    except FormParseError:
        return []
    base = url
    for node in doc.iter("base"):
        if node.get("href"):
            base = urljoin(url, node.get("href").strip())
            break
    links = []
    for anchor in doc.iter("a", "area"):
        href = (anchor.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "mailto:", "tel:")):
            continue
        absolute = urljoin(base, href)
        parts = urlsplit(absolute)
        if parts.scheme not in {"http", "https"}:
            continue
        absolute = urlunsplit(parts._replace(fragment=""))
        rel = " ".join((anchor.get("rel") or "").lower().split())
        links.append(PageLink(absolute, text_of(anchor, frozenset({"script", "style"})), rel))
    return links


def same_endpoint(url: str, endpoint: str) -> bool:
    """Tell whether `url` goes to the search endpoint (same host and path) with a query."""
    a, b = urlsplit(url), urlsplit(endpoint)
    return (
        a.netloc.lower() == b.netloc.lower()
        and (a.path or "/") == (b.path or "/")
        and bool(a.query)
    )


def carries_argument(url: str, name: str, value: str | None = None) -> bool:
    """Tell whether `url`'s query has argument `name` non-empty (and equal to `value`)."""
    for key, found in parse_qsl(urlsplit(url).query, keep_blank_values=True):
        if key == name and found.strip() and (value is None or found == value):
            return True
    return False


def split_result_links(
    links: list[PageLink],
    *,
    endpoint: str,
    query_arg: str,
    query: str,
    known: frozenset[str],
    hosts: frozenset[str],
    searches: frozenset[str] = frozenset(),
) -> ResultLinks:
    """Sort a result page's links into results, the list's own pages and second-level URLs.

    `endpoint` is the search form's action; `known` holds the links of the form's page (its
    menus and footer); `hosts` the site's hosts (other hosts' links are left out);
    `searches` the site's other search endpoints, whose pages are never results either.
    """
    out = ResultLinks()
    seen: set[str] = set()
    for link in links:
        if link.url in seen:
            continue
        seen.add(link.url)
        host = (urlsplit(link.url).hostname or "").lower()
        if hosts and host not in hosts:
            continue
        if same_endpoint(link.url, endpoint):
            same_list = carries_argument(link.url, query_arg, query) and (
                "next" in link.rel.split() or is_next_label(link.text)
            )
            (out.list_pages if same_list else out.second_level).append(link.url)
        elif link.url in known or any(same_endpoint(link.url, other) for other in searches):
            out.second_level.append(link.url)
        else:
            out.results.append(link.url)
    return out


def is_next_label(text: str) -> bool:
    """Tell whether a link's or button's text names another page of a list ("Next", "2")."""
    return bool(_NEXT.match(" ".join(text.split())))


def keyword_urls(urls: list[str], query_arg: str) -> list[str]:
    """Return the second-level URLs that carry the keyword-query argument."""
    return [url for url in urls if carries_argument(url, query_arg)]


def search_pages(links: list[PageLink], hosts: frozenset[str], read: set[str]) -> list[str]:
    """Return the pages a page links to as searches ("Advanced search", /search/archive).

    Links carrying a query are result pages, not search pages; at most SEARCH_PAGES_PER_PAGE.
    """
    found: dict[str, None] = {}
    for link in links:
        parts = urlsplit(link.url)
        if parts.query or (parts.hostname or "").lower() not in hosts or link.url in read:
            continue
        short = len(link.text.split()) <= 4  # a menu item, not a headline
        segments = [segment for segment in parts.path.lower().split("/") if segment]
        if (short and _SEARCH_LINK.search(link.text)) or any(
            _SEARCH_SEGMENT.match(segment) for segment in segments
        ):
            found[link.url] = None
    return list(found)[:SEARCH_PAGES_PER_PAGE]
