"""Give failed mail another go: reset what the publisher gave up on, so it can be queued again.

The reset is a conditional UPDATE from "failed" to "pending", so a double click, two operators
or two browser tabs reset a match or digest exactly once; only the caller that reset it queues
it (the views, through `clipping.tasks`). Sending stays the publisher's.
"""

from __future__ import annotations

from django.db import transaction

from clipping.models import Digest, Match

# One click retries at most this many; a longer outage is better fixed at its cause first.
RETRY_ALL_CAP = 500


def retry_match(match_id: int) -> bool:
    """Reset one failed instant match to pending. Return False if it was not failed."""
    with transaction.atomic():
        reset = Match.objects.filter(
            id=match_id, mail_status=Match.MailStatus.FAILED, digest__isnull=True
        ).update(mail_status=Match.MailStatus.PENDING, mail_note="", claimed_at=None)
    return reset == 1


def retry_digest(digest_id: int) -> bool:
    """Reset one failed digest and its failed matches to pending. False if it was not failed."""
    with transaction.atomic():
        reset = Digest.objects.filter(id=digest_id, status=Digest.Status.FAILED).update(
            status=Digest.Status.PENDING, note="", claimed_at=None
        )
        if reset != 1:
            return False
        Match.objects.filter(digest_id=digest_id, mail_status=Match.MailStatus.FAILED).update(
            mail_status=Match.MailStatus.PENDING, mail_note="", claimed_at=None
        )
    return True


def retry_all_failed(cap: int = RETRY_ALL_CAP) -> tuple[list[int], list[int]]:
    """Reset the newest failed instant matches and digests, up to cap each; return their ids."""
    match_ids = Match.objects.filter(
        mail_status=Match.MailStatus.FAILED, digest__isnull=True
    ).order_by("-created_at", "-id")
    digest_ids = Digest.objects.filter(status=Digest.Status.FAILED).order_by("-period", "-id")
    matches = [i for i in match_ids.values_list("id", flat=True)[:cap] if retry_match(i)]
    digests = [i for i in digest_ids.values_list("id", flat=True)[:cap] if retry_digest(i)]
    return matches, digests
