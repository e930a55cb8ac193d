"""Only articles make clips: hubs (search results, sections, tags, archives, home pages) and a
site's search result pages never do, whatever text they show."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from analyzer import PageAnalysis
from crawler.models.sitesearch import SiteSearch
from crawler.sitesearch.template import is_search_url

# A path segment naming a search, in the languages of the watched sites.
SEARCH_SEGMENTS = frozenset(
    {"search", "suche", "recherche", "buscar", "busca", "cerca", "zoeken", "sok", "szukaj", "haku"}
)
# Query arguments that carry a search's keywords; "s" only at the site root (WordPress).
SEARCH_ARGUMENTS = frozenset({"q", "query", "search", "keywords", "searchword", "searchterm"})


def not_an_article(url: str, analysis: PageAnalysis, site_id: int | None) -> str:
    """Return why a page may not make clips ("" for an article)."""
    if analysis.kind == "hub":
        return "A hub page (a list of links to articles), not an article."
    if looks_like_search(url) or _site_search(url, site_id):
        return "A site-search result page, not an article."
    return ""


def looks_like_search(url: str) -> bool:
    """Tell whether a URL has the shape of a search result page (/search, ?q=...)."""
    parts = urlsplit(url)
    segments = {segment.lower() for segment in parts.path.split("/") if segment}
    if segments & SEARCH_SEGMENTS:
        return True
    names = {name.lower() for name, value in parse_qsl(parts.query) if value.strip()}
    return bool(names & SEARCH_ARGUMENTS) or ("s" in names and parts.path in ("", "/"))


def _site_search(url: str, site_id: int | None) -> bool:
    """Tell whether a URL is a page of one of the site's known search forms."""
    if site_id is None:
        return False
    rows = SiteSearch.objects.filter(site_id=site_id).values_list("url_template", "action")
    for template, action in rows:
        if template and is_search_url(url, template):
            return True
        if action and is_search_url(url, action):
            return True
    return False
