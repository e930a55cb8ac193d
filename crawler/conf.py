"""Crawler core settings, read from Django settings with the defaults documented here."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class CrawlerSettings:
    versions_kept: int  # newest versions per page that keep their body (older: hash + summary)
    heartbeat_timeout: float  # seconds without heartbeat before another worker takes a run over
    run_seconds: float  # wall-clock cap of one crawl run
    max_links_per_page: int  # links stored per page version
    concurrency: int  # fetches in flight in one run (politeness per host is the fetcher's)


def crawler_settings() -> CrawlerSettings:
    """Return the crawler core settings in effect now."""
    return CrawlerSettings(
        versions_kept=int(getattr(settings, "CRAWLER_VERSIONS_KEPT", 10)),
        heartbeat_timeout=float(getattr(settings, "CRAWLER_HEARTBEAT_TIMEOUT", 300)),
        run_seconds=float(getattr(settings, "CRAWLER_RUN_SECONDS", 1200)),
        max_links_per_page=int(getattr(settings, "CRAWLER_MAX_LINKS_PER_PAGE", 1000)),
        concurrency=int(getattr(settings, "CRAWLER_RUN_CONCURRENCY", 16)),
    )
