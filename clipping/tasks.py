"""Celery tasks of clipping (the "publish" queue), and the one place clipping enqueues work.

The tasks are thin callers of ingest, backfill, publisher and digests, which return what must
happen next (new matches to mail, digests due); the tasks and the functions below queue it.
"""

from __future__ import annotations

from celery import shared_task

from clipping import backfill, channels, digests, ingest, pacing, publisher, watching
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
# Versions per ingest task when the sweep queues lost ones again.
INGEST_BATCH = 100
# Seconds a backfill waits beyond the keyword index's refresh interval.
BACKFILL_MARGIN = 5.0


@shared_task
def ingest_version(version_id: int) -> dict[str, object]:
    """Turn a new or changed page version into clips and matches, and mail the instant ones."""
    return ingest_versions(version_ids=[version_id])


@shared_task
def ingest_versions(version_ids: list[int]) -> dict[str, object]:
    """Ingest the versions one crawl step stored, then queue the mail of all their matches.

    One task carries every version a crawl stored within about a second, so the publish
    queue grows with crawl steps, not with pages; the mail tasks come after the ingests.
    """
    done = ingest.ingest_versions(version_ids)
    # A replay, after a worker died between the ingest's commit and queueing the mail, makes
    # no new match: the versions' matches still waiting are queued again (claims keep it once).
    queue_instant_mail(sorted({*done.match_ids, *publisher.waiting_matches(*version_ids)}))
    queue_channel_notices(done.match_ids)
    return {
        "versions": len(version_ids),
        "clips": done.clips,
        "matches": done.matches,
        "skipped": done.skipped,
    }


@shared_task
def backfill_list(list_id: int) -> dict[str, object]:
    """Match the recently crawled pages against a new or edited list, and mail what it found
    in one summary."""
    result = backfill.backfill_list(list_id)
    # What the list finds among pages already crawled is one summary, sent now: it does not
    # wait for the hour's instant mails nor count among them (digest users: their digest).
    # Pages crawled after the list was saved are news, mailed as any news is.
    found, news = backfill.split_news(result.match_ids, list_id)
    summary = digests.plan_summary(found)
    if summary is not None:
        deliver_digest.delay_on_commit(summary)
    else:
        queue_instant_mail(found)
    queue_instant_mail(news)
    queue_channel_notices(result.match_ids)
    return {"clips": result.clips, "matches": result.matches, "skipped": result.skipped}


@shared_task(**_RETRY)
def deliver_match(match_id: int) -> str:
    """Mail one match (retried with exponential backoff and jitter on transient errors).

    A match over its owner's hourly limit may complete an early digest: it goes at once.
    Paced first (clipping.pacing): it may wait for others found with it, or go in a burst.
    """
    paced = _follow_pace(pacing.pace(match_id), deliver_match, match_id, deliver_digest)
    if paced is not None:
        return paced
    outcome = publisher.deliver_match(match_id)
    if outcome == publisher.Outcome.DEFERRED:
        owner_id = publisher.owner_of(match_id)
        digest_id = digests.plan_early(owner_id) if owner_id is not None else None
        if digest_id is not None:
            deliver_digest.delay(digest_id)
    return outcome


@shared_task(**_RETRY)
def deliver_digest(digest_id: int) -> str:
    """Mail one digest (retried with exponential backoff and jitter on transient errors)."""
    return publisher.deliver_digest(digest_id)


@shared_task
def publish_due() -> dict[str, int]:
    """Send the digests now due and the mails of watched pages that changed, and re-queue mail
    and ingests whose task was lost or whose worker died."""
    digest_ids = digests.plan_digests()
    changed = watching.notify_changes()
    match_ids = publisher.stalled_matches()
    version_ids = ingest.stalled_versions()
    for digest_id in digest_ids:
        deliver_digest.delay(digest_id)
    for match_id in match_ids:
        deliver_match.delay(match_id)
    for start in range(0, len(version_ids), INGEST_BATCH):
        ingest_versions.delay(version_ids[start : start + INGEST_BATCH])
    return {
        "digests": len(digest_ids),
        "matches": len(match_ids),
        "versions": len(version_ids),
        "changed_pages": changed,
    }


def enqueue_ingest(version_ids: list[int]) -> None:
    """Crawler batch handler: ingest versions on the publish queue (called after commit)."""
    ingest_versions.delay(list(version_ids))


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


# --- Notification channels (clipping.channels) ------------------------------------------------


@shared_task(**_RETRY)
def deliver_notice(notice_id: int) -> str:
    """Send one clip through one channel (retried with backoff and jitter on failures).

    Paced first (clipping.pacing): it may wait for others found with it, or go in a burst.
    """
    paced = _follow_pace(
        pacing.pace_notice(notice_id), deliver_notice, notice_id, deliver_channel_digest
    )
    if paced is not None:
        return paced
    return channels.deliver_notice(notice_id)


def _follow_pace(step: pacing.Pace, task, item_id: int, burst_task) -> str | None:
    """Act on a pacing decision: run `task` again when the item must wait, or send the burst
    it went into; None when the item goes alone now."""
    if step.wait > 0:
        task.apply_async((item_id,), countdown=step.wait)
        return "waiting"
    if step.burst_id is not None:
        burst_task.delay(step.burst_id)
        return "burst"
    return None


@shared_task(**_RETRY)
def deliver_channel_digest(digest_id: int) -> str:
    """Send one channel digest (retried with backoff and jitter on failures)."""
    return channels.deliver_digest(digest_id)


@shared_task
def publish_channels_due() -> dict[str, int]:
    """Queue channel digests now due and notices whose task was lost or whose worker died."""
    notice_ids, digest_ids = channels.plan_due()
    for notice_id in notice_ids:
        deliver_notice.delay(notice_id)
    for digest_id in digest_ids:
        deliver_channel_digest.delay(digest_id)
    return {"notices": len(notice_ids), "digests": len(digest_ids)}


def queue_channel_notices(match_ids: list[int]) -> None:
    """Write the channel notices of new matches and queue the instant ones, after commit."""
    if not match_ids:
        return
    for notice_id in channels.plan_notices(match_ids):
        deliver_notice.delay_on_commit(notice_id)
