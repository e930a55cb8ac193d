"""Claiming and closing crawl runs: a site never crawls twice at once.

The claim is a `CrawlRun` row with `finished_at` NULL, backed by a partial UniqueConstraint
(one unfinished run per site). A run whose heartbeat stopped longer than
CRAWLER_HEARTBEAT_TIMEOUT ago (its worker was killed) is closed as interrupted and the
site can be claimed again; the new run continues from the stored frontier.
"""

from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from crawler.conf import crawler_settings
from crawler.models import CrawlRun, Site


class CrawlAlreadyRunning(RuntimeError):
    """Another crawl of the same site is running (and its heartbeat is fresh)."""

    def __init__(self, site: Site, run: CrawlRun | None) -> None:
        self.site = site
        self.run = run
        since = f" since {run.started_at:%Y-%m-%d %H:%M:%S}" if run else ""
        super().__init__(
            f"Site {site} is already being crawled{since} (run {run.pk if run else '?'})."
        )


def start_run(site: Site, strategy: str, budget: int, *, now: datetime | None = None) -> CrawlRun:
    """Claim the site for a new run, taking over a stale one; raise CrawlAlreadyRunning."""
    now = now or timezone.now()
    take_over_stale(site, now=now)
    try:
        with transaction.atomic():
            return CrawlRun.objects.create(
                site=site,
                strategy=strategy,
                started_at=now,
                heartbeat_at=now,
                page_budget=budget,
                worker=f"{socket.gethostname()}:{os.getpid()}"[:200],
            )
    except IntegrityError:
        raise CrawlAlreadyRunning(
            site, CrawlRun.objects.running().filter(site=site).first()
        ) from None


def take_over_stale(site: Site, *, now: datetime | None = None) -> int:
    """Close the site's unfinished runs whose heartbeat is too old; return how many."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=crawler_settings().heartbeat_timeout)
    return (
        CrawlRun.objects.running()
        .filter(site=site, heartbeat_at__lt=cutoff)
        .update(
            finished_at=now, status=CrawlRun.Status.INTERRUPTED, stop_reason="heartbeat-timeout"
        )
    )


def beat(run: CrawlRun, counts: dict[str, int], *, now: datetime | None = None) -> bool:
    """Add `counts` to the run's counters and refresh its heartbeat; False if it was taken over."""
    updates: dict[str, object] = {name: F(name) + value for name, value in counts.items() if value}
    updated = CrawlRun.objects.filter(id=run.id, finished_at__isnull=True).update(
        heartbeat_at=now or timezone.now(), **updates
    )
    return updated == 1


def finish_run(
    run: CrawlRun, *, status: str, stop_reason: str, error: str = "", now: datetime | None = None
) -> CrawlRun:
    """Close the run with its status and stop reason, and return it fresh from the database."""
    CrawlRun.objects.filter(id=run.id, finished_at__isnull=True).update(
        finished_at=now or timezone.now(), status=status, stop_reason=stop_reason[:40], error=error
    )
    run.refresh_from_db()
    return run
