"""Turn a fetched body into what the crawler stores: kind, summary, links (with their areas).

HTML goes through the Page Analyzer (the same path for rendered DOMs); sitemaps and feeds go
through `crawler.extract.feeds` and are hubs by nature. Link URLs come out canonical.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from analyzer.errors import AnalyzerError
from analyzer.isolation import Reader, analyze_and_read_isolated
from analyzer.kind import Averages
from analyzer.model import PageAnalysis
from crawler.conf import MIB, analysis_settings
from crawler.extract.extracted import Extracted, packed_article
from crawler.extract.feeds import Discovered, DiscoveryError, feed_links, parse_feed, parse_sitemap
from crawler.fetch.result import FetchResult
from crawler.models.pages import pack_body
from crawler.store.pages import content_hash
from crawler.strategies.base import HUB, LinkRecord

Canonical = Callable[[str], str]


@dataclass(frozen=True)
class Ahead:
    """A page's analysis made as soon as it arrived, while the run stored earlier pages."""

    analysis: PageAnalysis | None = None
    error: Exception | None = None  # what analysing raised, raised again by `extract`
    digest: str = ""  # the body's content hash
    packed: bytes | None = None  # the body as a version keeps it
    read: Any = None  # what the crawl's strategy had read of it (`Strategy.read_ahead`)
    article: bytes | None = None  # an article's text as a version keeps it, for clipping
    discovered: Discovered | DiscoveryError | None = None  # a sitemap or feed, parsed


def extract(
    fetched: FetchResult,
    canonical: Canonical,
    ahead: Ahead | None = None,
    discovered: Discovered | DiscoveryError | None = None,
    averages: Averages | None = None,
) -> Extracted:
    """Analyse a successfully fetched body and return its kind, summary and canonical links.

    `ahead`: the body's analysis made by `analyse_ahead`, used instead of analysing again;
    `discovered`: a sitemap or feed body already parsed by `discover` (or why it could not be);
    `averages`: the site's page averages a page analysed here is weighed against.
    """
    base = fetched.final_url or fetched.url
    kind = fetched.body_kind
    if is_discovery(fetched):
        return _discovered(fetched, canonical, discovered)
    if kind != "html":
        return Extracted(summary={"kind": kind or "unknown"})
    try:
        analysis = _analysis(fetched, base, ahead, averages)
    except AnalyzerError as exc:
        return Extracted(summary={"error": f"{type(exc).__name__}: {exc}"[:500]})
    extracted = from_analysis(analysis, canonical)
    extracted.feeds = [canonical(url) for url in feed_links(fetched.body, base)]
    return extracted


def _analysis(
    fetched: FetchResult, base: str, ahead: Ahead | None, averages: Averages | None
) -> PageAnalysis:
    if ahead is None:
        return analyze_page(fetched.body, base, fetched.charset, averages)
    if ahead.error is not None:
        raise ahead.error
    assert ahead.analysis is not None
    return ahead.analysis


async def analyse_ahead(
    fetched: FetchResult, reader: Reader | None = None, averages: Averages | None = None
) -> Ahead | None:
    """Analyse the page `extract` would analyse, in an analysing process, without blocking
    the event loop (a sitemap or feed is parsed in a thread); None for a body `extract`
    does not read (an error, a body of another kind).

    A crawl run calls it for each page as it arrives, so that the pages in flight are
    analysed side by side (up to CRAWLER_ANALYSIS_PROCESSES at once) while it stores earlier
    ones, and `extract` finds the work done. `reader` (the strategy's `read_ahead`) reads
    the page in the analysing process beside its analysis; `averages`: the site's page
    averages its kind is weighed against.
    """
    if not fetched.succeeded:
        return None
    if is_discovery(fetched):
        return await asyncio.to_thread(_discover_ahead, fetched)
    if fetched.body_kind != "html":
        return None
    return await asyncio.to_thread(_ahead, fetched, reader, averages)


def _ahead(fetched: FetchResult, reader: Reader | None, averages: Averages | None) -> Ahead:
    # Hashing and packing let other threads run meanwhile: done here, off the thread that
    # stores pages.
    done = {"digest": content_hash(fetched.body), "packed": pack_body(fetched.body)}
    try:
        analysis, read = analyze_page_and_read(
            fetched.body, fetched.final_url or fetched.url, fetched.charset, reader, averages
        )
    except Exception as exc:  # noqa: BLE001 - raised again where the page is stored
        return Ahead(error=exc, **done)
    return Ahead(analysis=analysis, read=read, article=packed_article(analysis), **done)


def _discover_ahead(fetched: FetchResult) -> Ahead:
    return Ahead(
        digest=content_hash(fetched.body),
        packed=pack_body(fetched.body),
        discovered=discover(fetched),
    )


def analyze_page(
    body: bytes, url: str, encoding: str | None = None, averages: Averages | None = None
) -> PageAnalysis:
    """Analyse a page in this worker's analysing processes, under the CRAWLER_ANALYSIS_* caps.

    Raises AnalyzerError, AnalysisLimitError included (over a cap: the page is refused).
    """
    return analyze_page_and_read(body, url, encoding, None, averages)[0]


def analyze_page_and_read(
    body: bytes,
    url: str,
    encoding: str | None,
    reader: Reader | None,
    averages: Averages | None = None,
) -> tuple[PageAnalysis, Any]:
    """Analyse a page as `analyze_page` does, and read it with `reader` in the same analysing
    process (see `analyzer.isolation.analyze_and_read_isolated`; None without a reader)."""
    caps = analysis_settings()
    return analyze_and_read_isolated(
        body,
        url,
        reader=reader,
        declared_encoding=encoding,
        averages=averages,
        memory_bytes=caps.memory_mb * MIB,
        seconds=caps.seconds,
        processes=caps.processes,
    )


def from_analysis(analysis: PageAnalysis, canonical: Canonical) -> Extracted:
    """Return the crawler's view of a Page Analyzer result."""
    links = []
    for link in analysis.links:
        if link.nofollow:
            continue  # the site asked crawlers not to follow it
        url = _canonical_or_none(link.url, canonical)
        if url:
            links.append(
                LinkRecord(
                    url=url, anchor=link.text, area_path=link.area_path, area_kind=link.area_kind
                )
            )
    return Extracted(
        kind=analysis.kind,
        title=analysis.title,
        has_information=bool(analysis.informational_areas),
        summary=summarize(analysis),
        links=links,
        encoding=analysis.encoding or "",
        analysis=analysis,
    )


def summarize(analysis: PageAnalysis) -> dict[str, object]:
    """Return the small JSON summary of an analysis kept with each version."""
    return {
        "kind": analysis.kind,
        "kind_score": round(analysis.kind_score, 4),
        "title": analysis.title,
        "language": analysis.language,
        "main_text_chars": len(analysis.main_text),
        "links": len(analysis.links),
        "informational_areas": [
            {
                "path": a.path,
                "iv": round(a.iv, 2),
                "chars": a.text_chars,
                "title": a.title,
                "teaser": a.teaser,
            }
            for a in analysis.informational_areas
        ],
        "hub_areas": [
            {"path": a.path, "hv": a.hv, "links": a.link_count} for a in analysis.hub_areas
        ],
        "navigational_areas": [
            {"path": a.path, "links": a.link_count} for a in analysis.navigational_areas
        ],
    }


def is_discovery(fetched: FetchResult) -> bool:
    """Tell whether a body is a sitemap (sitemap.xml.gz included) or a feed."""
    return _is_sitemap(fetched) or fetched.body_kind == "feed"


def discover(fetched: FetchResult) -> Discovered | DiscoveryError:
    """Parse a sitemap or feed body once: its URLs as written, resolved against its URL, or
    why it cannot be read (too large, broken compression), which its version records."""
    base = fetched.final_url or fetched.url
    try:
        if _is_sitemap(fetched):
            return parse_sitemap(fetched.body, base)
        return parse_feed(fetched.body, base)
    except DiscoveryError as exc:
        return exc


def _is_sitemap(fetched: FetchResult) -> bool:
    return fetched.body_kind == "sitemap" or fetched.body.startswith(b"\x1f\x8b")


def _discovered(
    fetched: FetchResult, canonical: Canonical, discovered: Discovered | DiscoveryError | None
) -> Extracted:
    area = "sitemap" if _is_sitemap(fetched) else "feed"
    if discovered is None:
        discovered = discover(fetched)
    if isinstance(discovered, DiscoveryError):
        return Extracted(summary={"kind": area, "error": str(discovered)[:500]})
    found = discovered
    links = [
        LinkRecord(url=url, area_kind=area)
        for url in (_canonical_or_none(u, canonical) for u in found.urls)
        if url
    ]
    nested = [url for url in (_canonical_or_none(u, canonical) for u in found.sitemaps) if url]
    texts = {}
    for raw, words in found.texts.items():
        url = _canonical_or_none(raw, canonical)
        if url:
            texts[url] = words
    dates = {}
    for raw, listed in found.dates.items():
        url = _canonical_or_none(raw, canonical)
        if url:
            dates[url] = listed
    return Extracted(
        kind=HUB,
        summary={"kind": area, "urls": len(links), "sitemaps": len(nested)},
        links=links,
        sitemaps=nested,
        item_texts=texts,
        item_dates=dates,
    )


def _canonical_or_none(url: str, canonical: Canonical) -> str | None:
    try:
        return canonical(url)
    except ValueError:
        return None
