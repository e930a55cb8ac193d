"""Send clips through notification channels (Apprise). Every function here is safe to retry.

Channels keep mail's guarantees (clipping.publisher):

- a `Notice` (one clip for one channel) or a `ChannelDigest` is claimed with a conditional
  UPDATE whose timestamp is the token; a claim older than CLIPPING_CLAIM_TIMEOUT counts as
  abandoned and may be taken over, so a killed worker doubles nothing;
- every attempt is a `ChannelDelivery` row, written as "sending" before Apprise is called;
- a failed send gives its claim back and raises TransientSendError, which the Celery task
  retries with backoff; CLIPPING_CHANNEL_PAUSE_AFTER failures in a row pause the channel
  with the last error as its reason, shown on the account page, until the person resumes it.

A channel URL reaches only public addresses, or the networks of CLIPPING_CHANNEL_NETWORKS:
its host is resolved and vetted by the crawler's SSRF guard before every send.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import apprise
from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from clipping.channeltargets import (  # noqa: F401 - this module's callers use them here
    ChannelError,
    Checked,
    check_url,
    masked,
    plain_failure,
    target_refusal,
)
from clipping.conf import channel_settings, clipping_settings
from clipping.digests import last_slot
from clipping.models import (
    Channel,
    ChannelDelivery,
    ChannelDigest,
    KeywordList,
    ListChannel,
    Match,
    Notice,
)
from clipping.models.channels import Mode, SendStatus
from clipping.publisher import Outcome, TransientSendError
from clipping.safetext import one_line
from clipping.sealed import SealError
from crawler.fetch.sockets import vetted_sockets

logger = logging.getLogger(__name__)

# Matches older than this are not looked at by the sweep that writes missing notices.
SWEEP_WINDOW = timedelta(days=1)
ABANDONED = "Abandoned: the worker stopped during the send; the service may have taken it."


def send(channel: Channel, title: str, body: str) -> None:
    """Send one message through a channel now; raise ChannelError when it does not go."""
    try:
        url = channel.url
    except SealError as exc:
        raise ChannelError(str(exc), permanent=True) from exc
    plugin = apprise.Apprise.instantiate(url)
    if plugin is None:
        raise ChannelError(_("Apprise no longer knows this URL."), permanent=True)
    refusal = target_refusal(plugin, url)
    if refusal:
        raise ChannelError(refusal, permanent=True)
    with (
        apprise.LogCapture(level=logging.WARNING, fmt="%(message)s") as log,
        vetted_sockets(channel_settings().networks()) as refusals,
    ):
        sent = plugin.notify(body=body, title=title)
    if refusals:  # a redirect, or a new DNS answer, pointed at a private address
        raise ChannelError(
            _("Channels may not reach private or local network addresses."), permanent=True
        )
    if not sent:
        said = [line for line in log.getvalue().splitlines() if line.strip()]
        raise ChannelError(
            plain_failure(said[-1]) if said else _("The service did not take the message.")
        )


def send_test(channel: Channel) -> str:
    """Send a test message now; return "" if it went, else the error. A success resumes it."""
    delivery = ChannelDelivery.objects.create(channel=channel, kind=ChannelDelivery.Kind.TEST)
    try:
        send(
            channel,
            _("Webclip test message"),
            _("This channel, %(name)s, will receive the clips you choose.")
            % {"name": channel.name},
        )
    except ChannelError as exc:
        delivery.fail(str(exc))
        return str(exc)
    delivery.succeed()
    resume(channel)
    return ""


def resume(channel: Channel) -> None:
    """Clear a channel's pause and its count of failures."""
    Channel.objects.filter(id=channel.id).update(failures=0, paused_at=None, paused_reason="")


# --- Planning ------------------------------------------------------------------------------


def plan_notices(match_ids: list[int]) -> list[int]:
    """Write a notice per new match and channel its list feeds; return the instant ones.

    Unique per channel and match, so planning the same matches twice writes nothing new.
    A route added after a match was made does not send it.
    """
    routes: dict[int, list[ListChannel]] = defaultdict(list)
    matches = list(  # a clip published before its owner's news window is never notified
        Match.objects.filter(id__in=match_ids, old=False).only(
            "id", "keyword_list_id", "created_at"
        )
    )
    lists = {m.keyword_list_id for m in matches}
    for route in ListChannel.objects.filter(keyword_list_id__in=lists, channel__paused_at=None):
        routes[route.keyword_list_id].append(route)
    Notice.objects.bulk_create(
        [
            Notice(channel_id=route.channel_id, match_id=match.id, mode=route.mode)
            for match in matches
            for route in routes[match.keyword_list_id]
            if route.created_at <= match.created_at
        ],
        ignore_conflicts=True,
    )
    instant = Notice.objects.pending().filter(
        match_id__in=match_ids, mode=Mode.INSTANT, claimed_at__isnull=True
    )
    return list(instant.order_by("id").values_list("id", flat=True))


def plan_due(now: datetime | None = None) -> tuple[list[int], list[int]]:
    """Write missing notices and due digests; return (instant notices, digests) to send.

    The sweep behind crash safety: a match whose notices were never written (its worker
    died after the ingest), an instant notice whose task was lost or whose worker died
    (claim past the lease), a digest waiting.
    """
    now = now or timezone.now()
    conf = clipping_settings()
    missing = Match.objects.filter(
        created_at__gte=now - SWEEP_WINDOW,
        keyword_list__channel_routes__created_at__lte=F("created_at"),
    ).exclude(Exists(Notice.objects.filter(match=OuterRef("pk"))))
    fresh = plan_notices(list(missing.values_list("id", flat=True).distinct()[:5000]))
    recent = ChannelDelivery.objects.filter(
        notice=OuterRef("pk"), created_at__gte=now - conf.claim_timeout
    )
    stalled = (
        Notice.objects.pending()
        .filter(mode=Mode.INSTANT, digest__isnull=True)
        .filter(
            Q(claimed_at__lt=now - conf.claim_timeout)
            | Q(claimed_at__isnull=True, created_at__lt=now - conf.stalled_after) & ~Exists(recent)
        )
    )
    notice_ids = [*fresh, *stalled.order_by("id").values_list("id", flat=True)[:5000]]
    return sorted(set(notice_ids)), plan_digests(now)


def plan_digests(now: datetime) -> list[int]:
    """Gather digest notices into one digest per channel and period; return those waiting.

    A channel's digest goes out at its owner's digest time: weekly for people who chose
    weekly mail digests, daily for everyone else.
    """
    owners = (
        Notice.objects.pending()
        .filter(mode=Mode.DIGEST, digest__isnull=True)
        .values_list(
            "channel_id",
            "channel__owner__delivery_mode",
            "channel__owner__digest_hour",
            "channel__owner__digest_weekday",
            "channel__owner__time_zone",
        )
        .distinct()
    )
    for channel_id, mode, hour, weekday, time_zone in owners:
        weekly = mode == User.Delivery.WEEKLY
        slot = last_slot(
            User.Delivery.WEEKLY if weekly else User.Delivery.DAILY, hour, weekday, time_zone, now
        )
        notices = Notice.objects.pending().filter(
            channel_id=channel_id, mode=Mode.DIGEST, digest__isnull=True, created_at__lt=slot
        )
        if not notices.exists():
            continue
        with transaction.atomic():
            digest, _ = ChannelDigest.objects.get_or_create(channel_id=channel_id, period=slot)
            # A digest already claimed or sent keeps its contents; late notices wait.
            open_digest = ChannelDigest.objects.select_for_update().filter(
                id=digest.id, status=SendStatus.PENDING, claimed_at__isnull=True
            )
            if open_digest.exists():
                notices.update(digest=digest)
    lease = clipping_settings().claim_timeout
    recent = ChannelDelivery.objects.filter(digest=OuterRef("pk"), created_at__gte=now - lease)
    waiting = ChannelDigest.objects.filter(status=SendStatus.PENDING).filter(
        Q(claimed_at__lt=now - lease) | Q(claimed_at__isnull=True) & ~Exists(recent)
    )
    return list(waiting.order_by("period", "id").values_list("id", flat=True))


# --- Sending -------------------------------------------------------------------------------


@contextmanager
def _in_owners_language(rows: QuerySet[Any], owner_language: str) -> Iterator[None]:
    """Write messages and reasons in the language of the channel's owner, as mail does."""
    language = rows.values_list(owner_language, flat=True).first()
    with translation.override(language or settings.LANGUAGE_CODE):
        yield


def deliver_notice(notice_id: int) -> Outcome:
    """Send one clip through one channel, once. Raise TransientSendError to be retried."""
    with _in_owners_language(Notice.objects.filter(id=notice_id), "channel__owner__language"):
        return _deliver_notice(notice_id)


def _deliver_notice(notice_id: int) -> Outcome:
    claim = timezone.now()
    claimed = (
        Notice.objects.claimable(claim, clipping_settings().claim_timeout)
        .filter(id=notice_id)
        .update(claimed_at=claim)
    )
    if claimed != 1:
        return Outcome.BUSY
    notice = Notice.objects.select_related(
        "channel__owner", "match__clip", "match__keyword_list"
    ).get(id=notice_id)
    if notice.digest_id is not None:  # it went into a burst (clipping.pacing): sent with it
        Notice.objects.filter(id=notice.id, claimed_at=claim).update(claimed_at=None)
        return Outcome.BUSY
    _abandon(ChannelDelivery.objects.filter(notice=notice))
    refusal = channel_refusal(notice.channel) or list_refusal(notice.match.keyword_list)
    if refusal:
        _settle(Notice.objects.filter(id=notice.id), SendStatus.SKIPPED, refusal)
        return Outcome.SKIPPED
    delivery = ChannelDelivery.objects.create(
        channel=notice.channel, kind=ChannelDelivery.Kind.INSTANT, notice=notice
    )
    match = notice.match
    try:
        send(notice.channel, one_line(match.clip.title, 250), clip_text(match))
    except ChannelError as exc:
        return _failed(delivery, exc, Notice.objects.filter(id=notice.id), claim)
    with transaction.atomic():
        delivery.succeed()
        _settle(Notice.objects.filter(id=notice.id), SendStatus.SENT)
        resume_counting(notice.channel)
    return Outcome.SENT


def deliver_digest(digest_id: int) -> Outcome:
    """Send one channel digest, once. Raise TransientSendError to be retried."""
    digests = ChannelDigest.objects.filter(id=digest_id)
    with _in_owners_language(digests, "channel__owner__language"):
        return _deliver_digest(digest_id)


def _deliver_digest(digest_id: int) -> Outcome:
    claim = timezone.now()
    lease = clipping_settings().claim_timeout
    claimed = (
        ChannelDigest.objects.filter(id=digest_id, status=SendStatus.PENDING)
        .filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=claim - lease))
        .update(claimed_at=claim)
    )
    if claimed != 1:
        return Outcome.BUSY
    digest = ChannelDigest.objects.select_related("channel__owner").get(id=digest_id)
    _abandon(ChannelDelivery.objects.filter(digest=digest))
    pending = digest.notices.pending()
    refusal = channel_refusal(digest.channel)
    if refusal:
        _settle(pending, SendStatus.SKIPPED, refusal)
        _settle_digest(digest, SendStatus.SKIPPED, refusal)
        return Outcome.SKIPPED
    for notice in pending.select_related("match__keyword_list"):
        muted = list_refusal(notice.match.keyword_list)
        if muted:
            _settle(Notice.objects.filter(id=notice.id), SendStatus.SKIPPED, muted)
    notices = list(
        digest.notices.pending()
        .select_related("match__clip", "match__keyword_list")
        .order_by("match__found_at", "id")
    )
    if not notices:
        _settle_digest(digest, SendStatus.SKIPPED, _("Nothing left to send."))
        return Outcome.SKIPPED
    delivery = ChannelDelivery.objects.create(
        channel=digest.channel, kind=ChannelDelivery.Kind.DIGEST, digest=digest
    )
    title, body = digest_text([n.match for n in notices])
    ids = [n.id for n in notices]
    try:
        send(digest.channel, title, body)
    except ChannelError as exc:
        return _failed(delivery, exc, ChannelDigest.objects.filter(id=digest.id), claim, digest)
    with transaction.atomic():
        delivery.succeed()
        _settle(Notice.objects.filter(id__in=ids), SendStatus.SENT)
        _settle_digest(digest, SendStatus.SENT)
        resume_counting(digest.channel)
    return Outcome.SENT


def channel_refusal(channel: Channel) -> str:
    """Return why nothing may be sent through this channel, or "" if it may."""
    if channel.paused:
        return (_("The channel is paused: %(reason)s") % {"reason": channel.paused_reason})[:300]
    if not channel.owner.is_active:
        return _("The account is inactive.")
    return ""


def list_refusal(keyword_list: KeywordList) -> str:
    if not keyword_list.active:
        return _("The list is paused.")
    return ""


def clip_text(match: Match) -> str:
    """Return the message body of one clip: its summary, its address and its list."""
    clip = match.clip
    return f"{one_line(match.summary, 1000)}\n\n{clip.url}\n\n({match.keyword_list.name})"


def digest_text(matches: list[Match]) -> tuple[str, str]:
    """Return the title and body of a digest message."""
    lists = sorted({m.keyword_list.name for m in matches})
    count = len(matches)
    title = ngettext(
        "%(count)s new clip for %(lists)s", "%(count)s new clips for %(lists)s", count
    ) % {"count": count, "lists": ", ".join(lists)}
    shown = clipping_settings().digest_items  # the rest are counted
    lines = [f"• {one_line(m.clip.title, 200)}\n  {m.clip.url}" for m in matches[:shown]]
    if count > shown:
        more = count - shown
        lines.append(
            ngettext(
                "… and %(count)s more on your Webclip page.",
                "… and %(count)s more on your Webclip page.",
                more,
            )
            % {"count": more}
        )
    return one_line(title, 250), "\n".join(lines)


def resume_counting(channel: Channel) -> None:
    """A send went through: the count of failures in a row starts again."""
    Channel.objects.filter(id=channel.id, failures__gt=0).update(failures=0)


def _failed(
    delivery: ChannelDelivery,
    exc: ChannelError,
    claimed: QuerySet[Notice] | QuerySet[ChannelDigest],
    claim: datetime,
    digest: ChannelDigest | None = None,
) -> Outcome:
    """Record a failed send; pause the channel after too many, else ask for a retry."""
    reason = str(exc)
    delivery.fail(reason)
    channel = delivery.channel
    Channel.objects.filter(id=channel.id).update(failures=F("failures") + 1)
    failures = Channel.objects.values_list("failures", flat=True).get(id=channel.id)
    limit = channel_settings().pause_after
    if exc.permanent or failures >= limit:
        why = (
            ngettext(
                "Paused after %(count)s failed send in a row; the last: %(reason)s",
                "Paused after %(count)s failed sends in a row; the last: %(reason)s",
                failures,
            )
            % {"count": failures, "reason": reason}
            if not exc.permanent
            else _("Paused: %(reason)s") % {"reason": reason}
        )
        Channel.objects.filter(id=channel.id, paused_at__isnull=True).update(
            paused_at=timezone.now(), paused_reason=why[:500]
        )
        logger.warning("Channel %s paused: %s", channel.id, why)
        notices = digest.notices.pending() if digest else claimed
        _settle(notices, SendStatus.FAILED, why)
        if digest is not None:
            _settle_digest(digest, SendStatus.FAILED, why)
        return Outcome.FAILED
    claimed.filter(claimed_at=claim).update(claimed_at=None)
    raise TransientSendError(reason) from exc


def _abandon(deliveries: QuerySet[ChannelDelivery]) -> None:
    """Mark attempts left sending by a worker whose claim we took over as failed."""
    deliveries.filter(status=ChannelDelivery.Status.SENDING).update(
        status=ChannelDelivery.Status.FAILED, error=ABANDONED, finished_at=timezone.now()
    )


def _settle(notices: QuerySet[Notice], status: str, note: str = "") -> None:
    fields: dict[str, object] = {"status": status, "note": note[:300], "claimed_at": None}
    if status == SendStatus.SENT:
        fields["sent_at"] = timezone.now()
    notices.update(**fields)


def _settle_digest(digest: ChannelDigest, status: str, note: str = "") -> None:
    fields: dict[str, object] = {"status": status, "note": note[:300], "claimed_at": None}
    if status == SendStatus.SENT:
        fields["sent_at"] = timezone.now()
    ChannelDigest.objects.filter(id=digest.id).update(**fields)
