"""URL deduplication before fetching (He et al. section 7.3): selection segments decide.

A query string is a list of segments ("q=gps", "sort=4", "page=2", "from=7"). Segments that
occur on a large share of a site's result pages whatever was searched (sorting, paging,
tracking) only change how results are shown, or nothing; the others select which results
come back. Two URLs with the same path and the same selection segments are duplicates.

The prevalence of a segment is the share of result pages whose links carry it; above the
threshold (0.1 in the paper: precision 98%, recall 94%, 0.7% of URLs lost) it is noise. The
keyword-query argument is always a selection: it is the query itself, and with only a few
users' keywords each keyword's segment would otherwise look common.

The paper's reason for prevalence is that a selection segment is sensitive to the query:
a facet for a maker shows only when the query finds its products. A site whose facets
name every section on every result page hides that sensitivity from prevalence, but not
from the facet links' words: "Culture (3)" for one query, "Culture (7)" for the next.
`query_sensitive` finds such segments (the one link on a page that sets the segment reads
differently from query to query), and they stay selections whatever their prevalence;
sorting, paging and tracking links read the same on every page ("Newest", "2", "Next"), or
one segment marks many links of a page (a tracking argument).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from urllib.parse import unquote_plus, urlsplit

Key = tuple[str, str, str, frozenset[str]]


def segments(url: str) -> list[str]:
    """Return a URL's query segments as decoded "name=value" strings ("&" or ";" separated)."""
    query = urlsplit(url).query
    pairs = []
    for part in query.replace(";", "&").split("&"):
        if not part:
            continue
        name, _, value = part.partition("=")
        pairs.append(f"{unquote_plus(name)}={unquote_plus(value)}")
    return pairs


def argument(segment: str) -> str:
    """Return the argument name of a segment."""
    return segment.partition("=")[0]


def prevalence(pages: Iterable[Iterable[str]]) -> dict[str, float]:
    """Return, per segment, the share of result pages whose URLs carry it.

    `pages` holds, per result page, the URLs found on it.
    """
    counts: Counter[str] = Counter()
    total = 0
    for urls in pages:
        total += 1
        counts.update({segment for url in urls for segment in segments(url)})
    return {segment: count / total for segment, count in counts.items()} if total else {}


def noise_segments(
    pages: Iterable[Iterable[str]],
    threshold: float,
    keep: Iterable[str] = (),
    selections: Iterable[str] = (),
) -> frozenset[str]:
    """Return the segments above the prevalence threshold, except those of `keep` arguments
    and the `selections` (segments known to select, see `query_sensitive`)."""
    kept, chosen = set(keep), set(selections)
    return frozenset(
        segment
        for segment, share in prevalence(pages).items()
        if share > threshold and argument(segment) not in kept and segment not in chosen
    )


def query_sensitive(pages: Iterable[tuple[str, Iterable[tuple[str, str]]]]) -> frozenset[str]:
    """Return the segments whose links read differently from one result page to another.

    `pages` holds, per result page, its URL and its links as (URL, anchor text). A link's
    own segments are those the page's URL lacks: what following it changes. A segment
    counts when, on every page, the links it is own to share one anchor text, and that text
    differs between pages (a facet's result count); one reading everywhere (a sort or page
    link) or several on one page (a tracking argument on many links) does not.
    """
    readings: dict[str, list[frozenset[str]]] = {}
    for page_url, links in pages:
        here = set(segments(page_url))
        on_page: dict[str, set[str]] = {}
        for url, anchor in links:
            words = " ".join(anchor.split()).casefold()
            for segment in set(segments(url)) - here:
                on_page.setdefault(segment, set()).add(words)
        for segment, anchors in on_page.items():
            readings.setdefault(segment, []).append(frozenset(anchors))
    return frozenset(
        segment
        for segment, seen in readings.items()
        if all(len(anchors) == 1 for anchors in seen) and len(set().union(*seen)) > 1
    )


def selection_key(url: str, noise: frozenset[str]) -> Key:
    """Return what identifies a URL's results: scheme, host, path and selection segments."""
    parts = urlsplit(url)
    chosen = frozenset(s for s in segments(url) if s not in noise and not s.endswith("="))
    return (parts.scheme, parts.netloc.lower(), parts.path or "/", chosen)


def narrows_whole(
    url: str, noise: frozenset[str], whole: Iterable[Key], sensitive: frozenset[str]
) -> bool:
    """Tell whether the URL only narrows a selection whose result list was read whole: its
    selection is that one's plus query-sensitive segments (facets) alone, so every record it
    selects was seen; a list cut short leaves its facets worth fetching."""
    scheme, host, path, chosen = selection_key(url, noise)
    return any(
        (scheme, host, path) == (s, h, p) and base < chosen and chosen - base <= sensitive
        for s, h, p, base in whole
    )


def dedupe(urls: Sequence[str], noise: frozenset[str], seen: Iterable[Key] = ()) -> list[str]:
    """Return one URL per selection key not already `seen`, the plainest (fewest segments) first.

    Order among the kept URLs follows their first appearance in `urls`.
    """
    done = set(seen)
    best: dict[Key, tuple[int, int, str]] = {}
    for position, url in enumerate(urls):
        key = selection_key(url, noise)
        if key in done:
            continue
        candidate = (len(segments(url)), position, url)
        if key not in best or candidate[0] < best[key][0]:
            best[key] = (candidate[0], best.get(key, candidate)[1], url)
    return [url for _, _, url in sorted(best.values(), key=lambda item: item[1])]
