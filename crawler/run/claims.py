"""Claiming and closing crawl runs: a site never crawls twice at once.

The claim is a `CrawlRun` row with `finished_at` NULL, backed by a partial UniqueConstraint
(one unfinished run per site). A run whose heartbeat stopped longer than
CRAWLER_HEARTBEAT_TIMEOUT ago (its worker was killed), or whose worker process on this very
host no longer exists (a pool process killed: Celery gives its task back at once, long
before the heartbeat times out), is closed as interrupted and the site can be claimed
again; the new run continues from the stored frontier.

A worker killed between committing a page version and queueing its handlers loses that
hand-on, and the next run finds the page unchanged: so the new run hands on again every
version the interrupted runs stored. Page handlers are idempotent (clipping ingests a
version once), so the versions whose hand-on did go out cost a cheap no-op.
"""

from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from crawler import hooks
from crawler.conf import crawler_settings
from crawler.models import CrawlRun, PageVersion, Site


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
    interrupted = take_over_stale(site, now=now)
    try:
        with transaction.atomic():
            run = CrawlRun.objects.create(
                site=site,
                strategy=strategy,
                started_at=now,
                heartbeat_at=now,
                page_budget=budget,
                worker=worker_name(),
            )
    except IntegrityError:
        raise CrawlAlreadyRunning(
            site, CrawlRun.objects.running().filter(site=site).first()
        ) from None
    hand_on_again(interrupted)
    return run


def worker_name() -> str:
    """Return this process's name in `CrawlRun.worker`: host and pid."""
    return f"{socket.gethostname()}:{os.getpid()}"[:200]


def take_over_stale(site: Site, *, now: datetime | None = None) -> list[int]:
    """Close the site's unfinished runs whose worker is gone; return their ids.

    A worker is gone when its heartbeat is too old, or when it ran on this host in a process
    that no longer exists.
    """
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=crawler_settings().heartbeat_timeout)
    running = CrawlRun.objects.running().filter(site=site)
    closed = []
    for run_id, heartbeat_at, worker in running.values_list("id", "heartbeat_at", "worker"):
        reason = "heartbeat-timeout" if heartbeat_at < cutoff else ""
        if not reason and _process_gone(worker):
            reason = "worker-gone"
        # Conditional on the heartbeat read: a run that beat meanwhile is alive after all.
        if reason and running.filter(id=run_id, heartbeat_at=heartbeat_at).update(
            finished_at=now, status=CrawlRun.Status.INTERRUPTED, stop_reason=reason
        ):
            closed.append(run_id)
    return closed


def hand_on_again(run_ids: list[int]) -> int:
    """Hand on once more the versions that interrupted runs stored; return how many."""
    versions = list(
        PageVersion.objects.filter(run_id__in=run_ids, has_information=True)
        .order_by("id")
        .values_list("id", flat=True)
    )
    for version_id in versions:
        hooks.hand_on(version_id)
    return len(versions)


def _process_gone(worker: str) -> bool:
    """Tell whether `worker` (host:pid) ran on this host in a process that has exited.

    Another host's worker, or this process itself, is never judged here: only its heartbeat
    tells. A pid reused by another process counts as alive, so the error is only ever a wait.
    """
    host, _, pid = worker.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


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
