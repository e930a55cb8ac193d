"""Celery tasks of clipping (the "publish" queue): thin callers of ingest, publisher and digests."""

from __future__ import annotations

from celery import shared_task

from clipping import backfill, digests, ingest, publisher
from clipping.conf import SEND_MAX_RETRIES, SEND_RETRY_BACKOFF, SEND_RETRY_BACKOFF_MAX

_RETRY = {
    "autoretry_for": (publisher.TransientSendError,),
    "retry_backoff": SEND_RETRY_BACKOFF,
    "retry_backoff_max": SEND_RETRY_BACKOFF_MAX,
    "retry_jitter": True,
    "max_retries": SEND_MAX_RETRIES,
}


@shared_task
def ingest_version(version_id: int) -> dict[str, object]:
    """Turn a new or changed page version into clips and matches."""
    result = ingest.ingest_version(version_id)
    return {"clips": result.clips, "matches": result.matches, "skipped": result.skipped}


@shared_task
def backfill_list(list_id: int) -> dict[str, object]:
    """Match the recently crawled pages against a new or edited list."""
    result = backfill.backfill_list(list_id)
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
