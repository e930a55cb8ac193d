"""Deliver matches and digests to their owners. Every function here is safe to retry.

Never twice: a match (or digest) is claimed with a conditional UPDATE, and the claim's
timestamp is its token; a claim older than CLIPPING_CLAIM_TIMEOUT counts as abandoned (its
worker died mid-send) and may be taken over. Every attempt is a Delivery row, written as
"sending" before the backend is called and marked sent or failed after; marking it sent and
settling its match (or digest) is one transaction, so a worker dying once the server's reply
is recorded leaves nothing to send again.

The one accepted duplicate: a worker that dies after the server accepted a message but before
it recorded the reply leaves a "sending" row. After the lease the match is sent again and the
old row is marked failed as abandoned. Both mails carry the same Message-ID, so mail clients
that thread or de-duplicate by it show one message.
"""

from __future__ import annotations

import logging
import smtplib
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from anymail.exceptions import (
    AnymailAPIError,
    AnymailError,
    AnymailInvalidAddress,
    AnymailRecipientsRefused,
)
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from accounts.models import User
from clipping import emails
from clipping.conf import SEND_RETRY_BACKOFF_MAX, clipping_settings, instant_limit
from clipping.models import Delivery, Digest, KeywordList, Match, Suppression

logger = logging.getLogger(__name__)

# Attempts after which a match or digest is given up as failed, whatever the errors were.
MAX_ATTEMPTS = 20
ABANDONED = "Abandoned: the worker stopped during the send; the server may have accepted it."


class TransientSendError(Exception):
    """The backend failed in a way a later attempt may not; Celery retries with backoff."""


class Outcome(StrEnum):
    SENT = "sent"
    BUSY = "busy"  # another worker holds it, or it is done
    DEFERRED = "deferred"  # over the hourly limit: it goes in the hourly digest
    NOT_INSTANT = "not-instant"  # the owner gets digests: the digest planner takes it
    SKIPPED = "skipped"  # nothing may be sent (paused, unverified, blocked, list muted)
    FAILED = "failed"  # a permanent error


@dataclass(frozen=True)
class Failure:
    """How a send failed: retry or not, and whether the address itself was refused."""

    permanent: bool
    address_refused: bool
    reason: str


def classify(exc: BaseException) -> Failure | None:
    """Return how a backend error should be handled, or None if it is not a mail error."""
    reason = f"{type(exc).__name__}: {exc}"[:1000]
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in exc.recipients.values()]
        permanent = bool(codes) and all(500 <= code < 600 for code in codes)
        return Failure(permanent, permanent, reason)
    if isinstance(exc, smtplib.SMTPResponseException):
        permanent = 500 <= exc.smtp_code < 600
        return Failure(permanent, False, reason)
    if isinstance(exc, (AnymailRecipientsRefused, AnymailInvalidAddress)):
        return Failure(True, True, reason)
    if isinstance(exc, AnymailAPIError):
        status = getattr(exc, "status_code", None)
        permanent = status is not None and 400 <= status < 500 and status not in {408, 429}
        return Failure(permanent, False, reason)
    if isinstance(exc, (AnymailError, OSError)):  # smtplib's other errors are OSErrors too
        return Failure(False, False, reason)
    return None


def user_refusal(user: User) -> str:
    """Return why nothing may be mailed to this user, or "" if mail may go."""
    if user.mail_paused:
        return "Mail is paused."
    if user.mail_blocked_reason:
        return f"Address blocked: {user.mail_blocked_reason}"[:300]
    if not User.objects.mailable().filter(id=user.id).exists():
        return "Address not verified or account inactive."
    if Suppression.objects.holds(user.email):
        return "Address bounced or complained."
    return ""


def list_refusal(keyword_list: KeywordList) -> str:
    """Return why this list's matches may not be mailed, or "" if they may."""
    if not keyword_list.active:
        return "The list is paused."
    if not keyword_list.mail_enabled:
        return "Mail is off for this list."
    return ""


def instant_matches(match_ids: list[int]) -> list[int]:
    """Return the new matches to mail one by one now; the digest planner takes the others."""
    instant = Match.objects.filter(id__in=match_ids, owner__delivery_mode=User.Delivery.INSTANT)
    return list(instant.order_by("id").values_list("id", flat=True))


def deliver_match(match_id: int) -> Outcome:
    """Mail one match to its owner, once. Raise TransientSendError when a retry may succeed."""
    conf = clipping_settings()
    claim = timezone.now()
    claimed = (
        Match.objects.claimable(claim, conf.claim_timeout)
        .filter(id=match_id)
        .update(claimed_at=claim)
    )
    if claimed != 1:
        return Outcome.BUSY
    match = Match.objects.select_related("clip", "keyword_list", "owner").get(id=match_id)
    _abandon(Delivery.objects.filter(match=match))
    refusal = user_refusal(match.owner) or list_refusal(match.keyword_list)
    if refusal:
        _settle_matches([match.id], Match.MailStatus.SKIPPED, note=refusal)
        return Outcome.SKIPPED
    if (
        match.owner.delivery_mode != User.Delivery.INSTANT
        or match.deferred_until
        or match.digest_id
    ):
        _release(Match.objects.filter(id=match.id), claim)
        return Outcome.NOT_INSTANT
    delivery, notice_until = _reserve(match)
    if delivery is None:
        return Outcome.DEFERRED
    try:
        message_id = emails.instant_clip(match, limit_notice_until=notice_until)
    except Exception as exc:
        return _failed(delivery, exc, Match.objects.filter(id=match.id), claim, [match.id])
    with transaction.atomic():  # a worker dying in between would leave the match to resend
        delivery.succeed(message_id)
        _settle_matches([match.id], Match.MailStatus.SENT, delivery=delivery)
    return Outcome.SENT


def deliver_digest(digest_id: int) -> Outcome:
    """Mail one digest, once. Raise TransientSendError when a retry may succeed."""
    conf = clipping_settings()
    claim = timezone.now()
    claimed = (
        Digest.objects.filter(id=digest_id, status=Digest.Status.PENDING)
        .filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=claim - conf.claim_timeout))
        .update(claimed_at=claim)
    )
    if claimed != 1:
        return Outcome.BUSY
    digest = Digest.objects.select_related("user").get(id=digest_id)
    _abandon(Delivery.objects.filter(digest=digest))
    pending = list(
        digest.matches.undelivered()
        .select_related("clip", "keyword_list")
        .order_by("created_at", "id")
    )
    refusal = user_refusal(digest.user)
    if refusal:
        _settle_matches([m.id for m in pending], Match.MailStatus.SKIPPED, note=refusal)
        _settle_digest(digest, Digest.Status.SKIPPED, refusal)
        return Outcome.SKIPPED
    matches = []
    for match in pending:
        muted = list_refusal(match.keyword_list)
        if muted:
            _settle_matches([match.id], Match.MailStatus.SKIPPED, note=muted)
        else:
            matches.append(match)
    if not matches:
        _settle_digest(digest, Digest.Status.SKIPPED, "Nothing left to send.")
        return Outcome.SKIPPED
    delivery = Delivery.objects.create(
        user=digest.user, kind=Delivery.Kind.DIGEST, digest=digest, address=digest.user.email
    )
    ids = [m.id for m in matches]
    try:
        message_id = emails.digest(digest, matches)
    except Exception as exc:
        return _failed(delivery, exc, Digest.objects.filter(id=digest.id), claim, ids, digest)
    with transaction.atomic():
        delivery.succeed(message_id)
        _settle_matches(ids, Match.MailStatus.SENT, delivery=delivery)
        _settle_digest(digest, Digest.Status.SENT)
    return Outcome.SENT


def owner_of(match_id: int) -> int | None:
    """Return the id of a match's owner (None if the match is gone)."""
    return Match.objects.filter(id=match_id).values_list("owner_id", flat=True).first()


def waiting_matches(*version_ids: int) -> list[int]:
    """Return the ids of the page versions' matches that nobody sends or sent yet."""
    waiting = Match.objects.undelivered().filter(
        clip__page_version_id__in=version_ids, claimed_at__isnull=True
    )
    return list(waiting.order_by("id").values_list("id", flat=True))


def stalled_matches(now: datetime | None = None) -> list[int]:
    """Return the ids of instant matches whose sending was lost or abandoned, to re-queue.

    A match is stalled when its claim outlived the lease (its worker died), or when nobody
    claimed it for CLIPPING_STALLED_AFTER and no attempt was made within the longest retry
    backoff (its task was lost; a task still backing off is left to its retry).
    """
    conf = clipping_settings()
    now = now or timezone.now()
    lost = Q(claimed_at__isnull=True, created_at__lt=now - conf.stalled_after) & ~Exists(
        recent_attempts("match", now)
    )
    matches = (
        Match.objects.undelivered()
        .filter(
            owner__delivery_mode=User.Delivery.INSTANT,
            deferred_until__isnull=True,
            digest__isnull=True,
        )
        .filter(Q(claimed_at__lt=now - conf.claim_timeout) | lost)
        .order_by("created_at")
        .values_list("id", flat=True)
    )
    return list(matches[:5000])


def recent_attempts(field: str, now: datetime) -> QuerySet[Delivery]:
    """Return attempts on the outer row within the longest retry backoff (for Exists)."""
    since = now - timedelta(seconds=SEND_RETRY_BACKOFF_MAX)
    return Delivery.objects.filter(**{field: OuterRef("pk")}, created_at__gte=since)


def clock_hour(moment: datetime, time_zone: str) -> tuple[datetime, datetime]:
    """Return the start and end of the clock hour holding moment, in the user's time zone."""
    try:
        zone = ZoneInfo(time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    local = moment.astimezone(zone)
    start = local.replace(minute=0, second=0, microsecond=0)
    return start, start + timedelta(hours=1)


def _reserve(match: Match) -> tuple[Delivery | None, datetime | None]:
    """Count the owner's instant mails (bursts too) this hour; reserve a send, or defer.

    The limit is the owner's choice (`instant_limit`). Returns the Delivery to send under,
    and the end of the hour when this is the last instant mail the limit allows (the mail
    says so). Over the limit the first clip of each list in the hour still goes at once;
    any other match waits for a digest (`clipping.digests`: at the end of the hour, or
    earlier once the owner's chosen number of clips wait) and (None, None) is returned.
    """
    user = match.owner
    limit = instant_limit(user.instant_mails_per_hour)
    start, end = clock_hour(timezone.now(), user.time_zone)
    with transaction.atomic():
        # The user's row lock makes counting and reserving one step for concurrent workers.
        User.objects.select_for_update().filter(id=user.id).exists()
        # A burst (clipping.pacing) is one instant mail, however many clips it holds.
        this_hour = (
            Delivery.objects.instant_mails().not_failed().filter(user=user, created_at__gte=start)
        )
        used = this_hour.count()
        same_list = Q(match__keyword_list=match.keyword_list_id) | Q(
            digest__matches__keyword_list=match.keyword_list_id
        )
        if used >= limit and this_hour.filter(same_list).exists():
            Match.objects.filter(id=match.id).update(deferred_until=end, claimed_at=None)
            return None, None
        delivery = Delivery.objects.create(
            user=user, kind=Delivery.Kind.INSTANT, match=match, address=user.email
        )
    return delivery, end if used + 1 == limit else None


def _failed(
    delivery: Delivery,
    exc: Exception,
    claimed: QuerySet[Match] | QuerySet[Digest],
    claim: datetime,
    match_ids: list[int],
    digest: Digest | None = None,
) -> Outcome:
    """Record a failed send; mark it for good, or release the claim and ask for a retry.

    An error that is not a mail error (a bug) is recorded and raised as it is; the periodic
    sweep tries again later, and MAX_ATTEMPTS failures of any kind give the work up.
    """
    failure = classify(exc)
    reason = failure.reason if failure else f"{type(exc).__name__}: {exc}"
    permanent = failure is not None and failure.permanent
    delivery.fail(reason, permanent=permanent)
    if failure is not None and failure.address_refused:
        block_address(delivery.user, delivery.address, "refused", reason)
    attempts = Delivery.objects.filter(
        Q(digest=digest) if digest else Q(match_id__in=match_ids), status=Delivery.Status.FAILED
    ).count()
    if permanent or attempts >= MAX_ATTEMPTS:
        logger.warning("Giving up on %s after %s attempts: %s", delivery, attempts, reason)
        _settle_matches(match_ids, Match.MailStatus.FAILED, note=reason)
        if digest is not None:
            _settle_digest(digest, Digest.Status.FAILED, reason)
        return Outcome.FAILED
    _release(claimed, claim)
    if failure is None:
        raise exc
    raise TransientSendError(reason) from exc


def block_address(user: User, address: str, reason: str, detail: str) -> None:
    """Stop every further mail to an address that bounced, complained or was refused."""
    Suppression.objects.get_or_create(
        address=address.strip().lower(), defaults={"reason": reason, "detail": detail[:500]}
    )
    User.objects.filter(id=user.id, email__iexact=address).update(
        mail_blocked_reason=f"{reason}: {detail}"[:200]
    )


def _abandon(deliveries: QuerySet[Delivery]) -> None:
    """Mark rows left sending by a worker whose claim we took over as failed."""
    deliveries.filter(status=Delivery.Status.SENDING).update(
        status=Delivery.Status.FAILED, error=ABANDONED, finished_at=timezone.now()
    )


def _release(claimed: QuerySet[Match] | QuerySet[Digest], claim: datetime) -> None:
    """Give a claim back, only if it is still ours."""
    claimed.filter(claimed_at=claim).update(claimed_at=None)


def _settle_matches(
    ids: list[int], status: str, *, note: str = "", delivery: Delivery | None = None
) -> None:
    fields: dict[str, object] = {"mail_status": status, "mail_note": note[:300], "claimed_at": None}
    if delivery is not None:
        fields.update(delivered_at=timezone.now(), delivery=delivery)
    Match.objects.filter(id__in=ids).update(**fields)


def _settle_digest(digest: Digest, status: str, note: str = "") -> None:
    fields: dict[str, object] = {"status": status, "note": note[:300], "claimed_at": None}
    if status == Digest.Status.SENT:
        fields["sent_at"] = timezone.now()
    Digest.objects.filter(id=digest.id).update(**fields)
