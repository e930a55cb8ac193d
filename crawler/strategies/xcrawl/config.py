"""xCrawl settings, read from Django settings (XCRAWL_*) with the paper's defaults."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from crawler.strategies.xcrawl.weights import Variant


@dataclass(frozen=True)
class XcrawlSettings:
    """Every knob of the focused walk, the query generation and link probing."""

    restart_probability: float = 0.15  # the paper's best (tried 0.05 to 0.3)
    max_iterations: int = 50  # restarts in a row without a new hub before the walk stops
    variant: str = Variant.HITS_TOPIC_PAGERANK.value  # "hits", "hits+pagerank", "hits+tspr"
    damping: float = 0.85  # PageRank damping factor c
    tolerance: float = 1e-6  # PageRank / HITS stop: L1 (PageRank) or max (HITS) change
    weight_iterations: int = 50  # PageRank / HITS iteration cap
    hub_threshold: float = 0.1  # max-normalised HITS hub weight that makes a hub
    hub_min_authorities: int = 2  # a hub links to at least this many known authorities
    validator_min_score: float = 2.0  # topic weight an authority's informational text needs
    download_all: str = "eager"  # "eager": a hub's subtree at once; "end": after the walk
    free_moves: int = 0  # moves over fetched pages to reach a new link; 0: a dead end jumps
    # to the heaviest unfetched page of the whole graph instead of wandering fetched pages
    sample_terms: int = 30  # TF-IDF tokens of the sample documents added to the topic
    search: bool = True  # run query generation on the site's own search
    search_query_length: int = 3  # longest generated query, in tokens
    search_results: int = 10  # first n results of each query are fetched
    search_max_iterations: int = 3  # queries in a row without a new authority end the search
    search_max_tokens: int = 8  # tokens whose hit counts are measured
    search_max_queries: int = 12  # queries per run at most
    discovery_max_queries: int = 30  # queries per run of an external engine at most
    probe: bool = True  # probe pages of sites that need a browser
    probe_pages: int = 10  # pages probed per run at most
    probe_states: int = 12  # page states explored per probed page
    probe_seconds: float = 30.0  # time cap per probed page

    def __post_init__(self) -> None:
        if not 0 < self.restart_probability < 1:
            raise ImproperlyConfigured("XCRAWL_RESTART_PROBABILITY must be between 0 and 1.")
        if not 0 <= self.damping < 1:
            raise ImproperlyConfigured("XCRAWL_DAMPING must be in [0, 1).")
        if self.variant not in {v.value for v in Variant}:
            choices = ", ".join(v.value for v in Variant)
            raise ImproperlyConfigured(f"XCRAWL_VARIANT must be one of {choices}.")
        if self.download_all not in {"eager", "end"}:
            raise ImproperlyConfigured('XCRAWL_DOWNLOAD_ALL must be "eager" or "end".')
        for name in ("max_iterations", "weight_iterations", "search_query_length"):
            if getattr(self, name) < 1:
                raise ImproperlyConfigured(f"XCRAWL_{name.upper()} must be at least 1.")


def xcrawl_settings(**overrides: Any) -> XcrawlSettings:
    """Return the settings in effect: XCRAWL_<NAME> Django settings, then `overrides`."""
    values: dict[str, Any] = {}
    for item in fields(XcrawlSettings):
        value = getattr(settings, f"XCRAWL_{item.name.upper()}", None)
        if value is not None:
            values[item.name] = _cast(item.name, value, type(getattr(XcrawlSettings, item.name)))
    return replace(XcrawlSettings(**values), **overrides)


def _cast(name: str, value: Any, kind: type) -> Any:
    try:
        if kind is bool and isinstance(value, str):
            return value.strip().lower() in {"1", "true", "yes", "on"}
        return kind(value)
    except (TypeError, ValueError):
        raise ImproperlyConfigured(
            f"XCRAWL_{name.upper()} must be {kind.__name__}, got {value!r}"
        ) from None
