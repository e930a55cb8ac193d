"""Find new sites for the topic with an external search engine; admins approve them.

GetAuthorities and GetWebSites of the paper: generated queries go to a SearxNG-compatible
engine, the first n results are fetched and validated, and the origins of the accepted
pages become `ProposedSite` rows waiting for an admin. Nothing is crawled before approval.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.utils import timezone

from crawler.canonical import origin
from crawler.conf import XcrawlSettings, xcrawl_settings
from crawler.fetch import SiteRules, fetch_url
from crawler.models import Site
from crawler.models.xcrawl import ProposedSite, SampleDocument, SearchEngine
from crawler.strategies.xcrawl.querygen import QueryPlanner, topic_tokens
from crawler.strategies.xcrawl.search import SearchError, SearchProvider, SearxngProvider
from crawler.strategies.xcrawl.validator import validate
from crawler.topic import Topic, get_topic

logger = logging.getLogger(__name__)

Validate = Callable[[str], bool]


@dataclass
class Discovery:
    """What one discovery run found."""

    queries: list[str] = field(default_factory=list)
    authorities: dict[str, str] = field(default_factory=dict)  # URL -> the query that found it
    checked: int = 0
    proposed: list[ProposedSite] = field(default_factory=list)


def find_sites(
    engine: SearchEngine,
    *,
    topic: Topic | None = None,
    samples: list[str] | None = None,
    provider: SearchProvider | None = None,
    rules: SiteRules | None = None,
    settings: XcrawlSettings | None = None,
) -> Discovery:
    """Run query generation on `engine` and propose the sites of the accepted results."""
    config = settings or xcrawl_settings()
    topic = topic if topic is not None else discovery_topic()
    samples = samples if samples is not None else discovery_samples()
    provider = provider or SearxngProvider(engine.base_url, params=engine.params)
    tokens = topic_tokens(topic, samples, limit=config.sample_terms)[: config.search_max_tokens]
    discovery = Discovery()
    if topic.is_empty() or not tokens:
        return discovery
    check = page_validator(topic, rules or SiteRules(), config.validator_min_score)
    planner = QueryPlanner(
        tokens,
        max_length=config.search_query_length,
        max_iterations=config.max_iterations,
        max_queries=config.discovery_max_queries,
    )
    error = ""
    try:
        run_queries(planner, provider, check, engine.results_per_query, discovery)
    except SearchError as exc:
        error = str(exc)[:300]
        logger.warning("Search engine %s failed: %s", engine, error)
    SearchEngine.objects.filter(id=engine.id).update(last_used_at=timezone.now(), last_error=error)
    discovery.proposed = propose(discovery.authorities, engine)
    return discovery


def run_queries(
    planner: QueryPlanner,
    provider: SearchProvider,
    check: Validate,
    results: int,
    discovery: Discovery,
) -> None:
    """Send the planner's queries, validate the first results, record the authorities."""
    seen: set[str] = set()
    while (query := planner.next_query()) is not None:
        discovery.queries.append(query.text)
        if query.measure:
            planner.record_hits(query.text, provider.hit_count(query.text))
            continue
        new = 0
        for hit in provider.search(query.text, limit=results).hits:
            if hit.url in seen:
                continue
            seen.add(hit.url)
            discovery.checked += 1
            if check(hit.url):
                discovery.authorities[hit.url] = query.text
                new += 1
        planner.record_outcome(query, new)


def page_validator(topic: Topic, rules: SiteRules, min_score: float) -> Validate:
    """Return a function that fetches a URL and tells whether it is an authority."""
    from analyzer import AnalyzerError, analyze

    def check(url: str) -> bool:
        result = fetch_url(url, rules)
        if result.error is not None or not result.body or (result.status or 0) >= 400:
            return False
        try:
            analysis = analyze(
                result.body, result.final_url or url, declared_encoding=result.charset
            )
        except AnalyzerError:
            return False
        return validate(analysis, topic, min_score=min_score).accepted

    return check


def propose(authorities: dict[str, str], engine: SearchEngine | None) -> list[ProposedSite]:
    """Create or extend a pending proposal per origin not monitored yet."""
    by_origin: dict[str, list[str]] = {}
    for url in authorities:
        by_origin.setdefault(origin(url), []).append(url)
    # A host is monitored whichever scheme its site was added with.
    monitored = {
        origin(root).partition("://")[2] for root in Site.objects.values_list("root_url", flat=True)
    }
    proposals = []
    for found, urls in sorted(by_origin.items()):
        if found.partition("://")[2] in monitored:
            continue
        proposal, created = ProposedSite.objects.get_or_create(
            root_url=found + "/",
            defaults={
                "engine": engine,
                "authority_urls": urls,
                "queries": sorted({authorities[u] for u in urls}),
            },
        )
        if not created and proposal.status == ProposedSite.Status.PENDING:
            proposal.authority_urls = list(dict.fromkeys([*proposal.authority_urls, *urls]))
            proposal.queries = sorted({*proposal.queries, *(authorities[u] for u in urls)})
            proposal.save(update_fields=["authority_urls", "queries"])
        proposals.append(proposal)
    return proposals


def discovery_topic() -> Topic:
    """Return the union of the enabled sites' topics (the audience's keywords)."""
    sites: Iterable[Site] = Site.objects.enabled()
    topics = [get_topic(site) for site in sites] or [
        get_topic(Site(name="discovery", root_url="http://discovery.invalid/"))
    ]
    terms: dict[str, float] = {}
    phrases: dict[tuple[str, ...], None] = {}
    for topic in topics:
        for term, weight in topic.terms.items():
            if topic.searchable(term):  # a search engine is asked: private words stay home
                terms[term] = max(weight, terms.get(term, 0.0))
        phrases.update(dict.fromkeys(p for p in topic.phrases if topic.searchable(" ".join(p))))
    language = topics[0].language if topics else "en"
    return Topic(terms=terms, language=language, phrases=tuple(phrases))


def discovery_samples() -> list[str]:
    """Return the texts of every sample document already read."""
    return [s.content() for s in SampleDocument.objects.all() if s.content()]


def find_sites_with(engine_id: int) -> Discovery | None:
    """Run `find_sites` on the enabled engine `engine_id`; None if it is gone or disabled."""
    engine = SearchEngine.objects.filter(id=engine_id, enabled=True).first()
    if engine is None:
        return None
    return find_sites(engine)
