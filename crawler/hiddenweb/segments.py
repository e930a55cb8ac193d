"""URL deduplication before fetching (He et al. section 7.3): selection segments decide.

A query string is a list of segments ("q=gps", "sort=4", "page=2", "from=7"). Segments that
occur on a large share of a site's result pages whatever was searched (sorting, paging,
tracking) only change how results are shown, or nothing; the others select which results
come back. Two URLs with the same path and the same selection segments are duplicates.

The prevalence of a segment is the share of result pages whose links carry it; above the
threshold (0.1 in the paper: precision 98%, recall 94%, 0.7% of URLs lost) it is noise. The
keyword-query argument is always a selection: it is the query itself, and with only a few
users' keywords each keyword's segment would otherwise look common.
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
    pages: Iterable[Iterable[str]], threshold: float, keep: Iterable[str] = ()
) -> frozenset[str]:
    """Return the segments above the prevalence threshold, except those of `keep` arguments."""
    kept = set(keep)
    return frozenset(
        segment
        for segment, share in prevalence(pages).items()
        if share > threshold and argument(segment) not in kept
    )


def selection_key(url: str, noise: frozenset[str]) -> Key:
    """Return what identifies a URL's results: scheme, host, path and selection segments."""
    parts = urlsplit(url)
    chosen = frozenset(s for s in segments(url) if s not in noise and not s.endswith("="))
    return (parts.scheme, parts.netloc.lower(), parts.path or "/", chosen)


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
