"""Give failed mail another go: reset what the publisher gave up on and hand it back to it.

The reset is a conditional UPDATE from "failed" to "pending", so a double click, two operators
or two browser tabs re-enqueue a match or digest exactly once. Sending stays the publisher's:
the match goes back through `publisher.notify`, the digest through its `deliver_digest` task.
"""

from __future__ import annotations

from django.db import transaction

from clipping import publisher, tasks
from clipping.models import Digest, Match

# One click retries at most this many; a longer outage is better fixed at its cause first.
RETRY_ALL_CAP = 500


def retry_match(match_id: int) -> bool:
    """Put one failed instant match back in the queue. Return False if it was not failed."""
    with transaction.atomic():
        reset = Match.objects.filter(
            id=match_id, mail_status=Match.MailStatus.FAILED, digest__isnull=True
        ).update(mail_status=Match.MailStatus.PENDING, mail_note="", claimed_at=None)
        if reset != 1:
            return False
        # Enqueued on commit; an owner who switched to digests is left to the digest planner.
        publisher.notify([match_id])
    return True


def retry_digest(digest_id: int) -> bool:
    """Put one failed digest and its failed matches back in the queue. False if not failed."""
    with transaction.atomic():
        reset = Digest.objects.filter(id=digest_id, status=Digest.Status.FAILED).update(
            status=Digest.Status.PENDING, note="", claimed_at=None
        )
        if reset != 1:
            return False
        Match.objects.filter(digest_id=digest_id, mail_status=Match.MailStatus.FAILED).update(
            mail_status=Match.MailStatus.PENDING, mail_note="", claimed_at=None
        )
        tasks.deliver_digest.delay_on_commit(digest_id)
    return True


def retry_all_failed(cap: int = RETRY_ALL_CAP) -> tuple[int, int]:
    """Retry the newest failed instant matches and digests, up to cap each; return both counts."""
    match_ids = Match.objects.filter(
        mail_status=Match.MailStatus.FAILED, digest__isnull=True
    ).order_by("-created_at", "-id")
    digest_ids = Digest.objects.filter(status=Digest.Status.FAILED).order_by("-period", "-id")
    matches = sum(retry_match(i) for i in match_ids.values_list("id", flat=True)[:cap])
    digests = sum(retry_digest(i) for i in digest_ids.values_list("id", flat=True)[:cap])
    return matches, digests


def sweep() -> None:
    """Ask the publisher to send due digests and re-queue stalled mail now, not at its next beat."""
    tasks.publish_due.delay_on_commit()
