"""Hidden-web crawler settings, read from Django settings with the defaults documented here."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

RANKINGS = ("fuzzy", "average", "probabilistic")


@dataclass(frozen=True)
class DeepWebSettings:
    enabled: bool  # search every monitored site's search forms during its crawl runs
    label_threshold: float  # least rapidfuzz similarity (0..1) between a label and an LVS label
    ranking: str  # value-assignment ranking: "fuzzy" (min), "average" or "probabilistic"
    smax: int  # most submissions of one form in one run (HiWE's Smax)
    alpha: int  # fewest elements a form needs to be submitted (HiWE's alpha)
    empty_threshold: float  # a result page this similar to a "no results" page is empty
    dedup_prevalence: float  # query segments on more than this share of result pages are noise
    result_depth: int  # links followed from a result page (HiWE follows depth 1)
    result_pages: int  # pages of one result list walked ("next", page numbers)
    probes: int  # nonsensical queries sent to learn a form's "no results" page
    second_level: int  # most second-level URLs fetched per form per run, after dedup
    browser_labels: bool  # lay forms out in Chromium to label widgets the DOM leaves bare
    time_share: float  # share of a crawl run's time cap (CRAWLER_RUN_SECONDS) the pass may use


def deepweb_settings() -> DeepWebSettings:
    """Return the hidden-web settings in effect now, refusing values that cannot work."""
    values = DeepWebSettings(
        enabled=bool(getattr(settings, "DEEPWEB_ENABLED", True)),
        label_threshold=float(getattr(settings, "DEEPWEB_LABEL_THRESHOLD", 0.8)),
        ranking=str(getattr(settings, "DEEPWEB_RANKING", "fuzzy")),
        smax=int(getattr(settings, "DEEPWEB_SMAX", 50)),
        alpha=int(getattr(settings, "DEEPWEB_ALPHA", 1)),
        empty_threshold=float(getattr(settings, "DEEPWEB_EMPTY_THRESHOLD", 0.85)),
        dedup_prevalence=float(getattr(settings, "DEEPWEB_DEDUP_PREVALENCE", 0.1)),
        result_depth=int(getattr(settings, "DEEPWEB_RESULT_DEPTH", 1)),
        result_pages=int(getattr(settings, "DEEPWEB_RESULT_PAGES", 5)),
        probes=int(getattr(settings, "DEEPWEB_PROBES", 2)),
        second_level=int(getattr(settings, "DEEPWEB_SECOND_LEVEL", 100)),
        browser_labels=bool(getattr(settings, "DEEPWEB_BROWSER_LABELS", True)),
        time_share=float(getattr(settings, "DEEPWEB_TIME_SHARE", 0.5)),
    )
    if values.ranking not in RANKINGS:
        raise ImproperlyConfigured(
            f"DEEPWEB_RANKING must be one of {', '.join(RANKINGS)}, got {values.ranking!r}."
        )
    for name in ("label_threshold", "empty_threshold", "dedup_prevalence"):
        if not 0.0 <= getattr(values, name) <= 1.0:
            raise ImproperlyConfigured(f"DEEPWEB_{name.upper()} must lie in [0, 1].")
    for name in ("smax", "alpha", "result_pages", "probes"):
        if getattr(values, name) < 1:
            raise ImproperlyConfigured(f"DEEPWEB_{name.upper()} must be at least 1.")
    if not 0.0 < values.time_share <= 1.0:
        raise ImproperlyConfigured("DEEPWEB_TIME_SHARE must lie in (0, 1].")
    if values.result_depth < 0 or values.second_level < 0:
        raise ImproperlyConfigured("DEEPWEB_RESULT_DEPTH and DEEPWEB_SECOND_LEVEL must be >= 0.")
    return values
