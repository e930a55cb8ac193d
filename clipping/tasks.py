"""Celery tasks of clipping (the "publish" queue), and the one place clipping enqueues work.

The tasks are thin callers of ingest, backfill, publisher and digests, which return what must
happen next (new matches to mail, digests due); the tasks and the functions below queue it.
"""

from __future__ import annotations

from celery import shared_task

from clipping import backfill, digests, ingest, publisher
from clipping.conf import (
    SEND_MAX_RETRIES,
    SEND_RETRY_BACKOFF,
    SEND_RETRY_BACKOFF_MAX,
    clipping_settings,
)

_RETRY = {
    "autoretry_for": (publisher.TransientSendError,),
    "retry_backoff": SEND_RETRY_BACKOFF,
    "retry_backoff_max": SEND_RETRY_BACKOFF_MAX,
    "retry_jitter": True,
    "max_retries": SEND_MAX_RETRIES,
}
# Seconds a backfill waits beyond the keyword index's refresh interval.
BACKFILL_MARGIN = 5.0


@shared_task
def ingest_version(version_id: int) -> dict[str, object]:
    """Turn a new or changed page version into clips and matches, and mail the instant ones."""
    result = ingest.ingest_version(version_id)
    queue_instant_mail(result.match_ids)
    return {"clips": result.clips, "matches": result.matches, "skipped": result.skipped}


@shared_task
def backfill_list(list_id: int) -> dict[str, object]:
    """Match the recently crawled pages against a new or edited list, and mail the instant ones."""
    result = backfill.backfill_list(list_id)
    queue_instant_mail(result.match_ids)
    return {"clips": result.clips, "matches": result.matches, "skipped": result.skipped}


@shared_task(**_RETRY)
def deliver_match(match_id: int) -> str:
    """Mail one match (retried with exponential backoff and jitter on transient errors)."""
    return publisher.deliver_match(match_id)


@shared_task(**_RETRY)
def deliver_digest(digest_id: int) -> str:
    """Mail one digest (retried with exponential backoff and jitter on transient errors)."""
    return publisher.deliver_digest(digest_id)


@shared_task
def publish_due() -> dict[str, int]:
    """Send the digests now due and re-queue mail whose task was lost or whose worker died."""
    digest_ids = digests.plan_digests()
    match_ids = publisher.stalled_matches()
    for digest_id in digest_ids:
        deliver_digest.delay(digest_id)
    for match_id in match_ids:
        deliver_match.delay(match_id)
    return {"digests": len(digest_ids), "matches": len(match_ids)}


def enqueue_ingest(version_id: int) -> None:
    """Crawler page handler: ingest a version on the publish queue (called after commit)."""
    ingest_version.delay(version_id)


def queue_instant_mail(match_ids: list[int]) -> None:
    """Queue, after commit, the mail of the matches whose owners want each one at once."""
    for match_id in publisher.instant_matches(match_ids):
        deliver_match.delay_on_commit(match_id)


def request_backfill(list_id: int) -> None:
    """Queue the backfill of a new or widened list, after commit and every index's refresh."""
    # A page ingested before every worker's index has the list was matched without it; the
    # backfill, coming after, covers it.
    delay = clipping_settings().index_refresh_seconds + BACKFILL_MARGIN
    backfill_list.apply_async_on_commit((list_id,), countdown=delay)
