"""Pace instant mail per person and messages per channel: clips found within seconds of each
other make one mail, and one message on each channel.

A flood is what a person sees when a site is first crawled or a live page is updated many
times: sixteen matches within two seconds were sixteen mails. Instead:

1. An instant match waits CLIPPING_INSTANT_GATHER_SECONDS after the first of its owner's
   waiting matches was made, so that the others found with it join it.
2. Two instant mails to one person are at least CLIPPING_INSTANT_SPACING_SECONDS apart
   (single clips and bursts alike); what is found in between waits for the next one.
3. When the time comes and several matches wait, they go as one burst (a `Digest` of kind
   BURST, sent at once like any digest); a single match goes as an instant mail, under the
   hourly cap as before.

Both at 0 turn pacing off: every instant match goes alone, at once (as tasks run eagerly,
with no timer to wait on, must). The owner's row lock makes the look at what waits and the burst one step, so two workers
whose matches come due together make one burst, not two.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Min, QuerySet
from django.utils import timezone

from accounts.models import User
from clipping.conf import clipping_settings
from clipping.models import Channel, ChannelDelivery, ChannelDigest, Delivery, Digest, Match, Notice
from clipping.models.channels import Mode, SendStatus


@dataclass(frozen=True)
class Pace:
    """What to do with an instant match now: wait, send a burst, or send it alone."""

    wait: float = 0.0  # seconds to wait before asking again
    burst_id: int | None = None  # the burst digest that took it, to send now


def waiting_instant(owner_id: int) -> QuerySet[Match]:
    """Return the owner's matches waiting for an instant mail (no digest, not over the cap)."""
    return Match.objects.undelivered().filter(
        owner_id=owner_id,
        owner__delivery_mode=User.Delivery.INSTANT,
        digest__isnull=True,
        deferred_until__isnull=True,
        old=False,
    )


def pace(match_id: int, now: datetime | None = None) -> Pace:
    """Decide whether an instant match waits, goes in a burst, or goes alone now."""
    if not _paced():
        return Pace()
    owner_id = Match.objects.filter(id=match_id).values_list("owner_id", flat=True).first()
    if owner_id is None:
        return Pace()
    return _pace(
        match_id,
        lock=User.objects.filter(id=owner_id),
        waiting=waiting_instant(owner_id).filter(claimed_at__isnull=True),
        sends=Delivery.objects.instant_mails().filter(user_id=owner_id).not_failed(),
        burst=lambda period: Digest.objects.get_or_create(
            user_id=owner_id, kind=Digest.Kind.BURST, period=period
        )[0],
        now=now,
    )


def pace_notice(notice_id: int, now: datetime | None = None) -> Pace:
    """Decide whether an instant channel notice waits, goes in a burst, or goes alone now.

    The same rules per channel: a notice waits for others found with it, and two messages
    on one channel are at least the spacing apart; several waiting go as one channel digest.
    """
    if not _paced():
        return Pace()
    channel_id = Notice.objects.filter(id=notice_id).values_list("channel_id", flat=True).first()
    if channel_id is None:
        return Pace()
    return _pace(
        notice_id,
        lock=Channel.objects.filter(id=channel_id),
        waiting=Notice.objects.pending().filter(
            channel_id=channel_id, mode=Mode.INSTANT, digest__isnull=True, claimed_at__isnull=True
        ),
        sends=ChannelDelivery.objects.filter(
            channel_id=channel_id,
            kind__in=[ChannelDelivery.Kind.INSTANT, ChannelDelivery.Kind.DIGEST],
            status__in=[ChannelDelivery.Status.SENDING, ChannelDelivery.Status.SENT],
        ),
        burst=lambda period: ChannelDigest.objects.get_or_create(
            channel_id=channel_id, period=period
        )[0],
        now=now,
    )


def _paced() -> bool:
    """Tell whether pacing is on (gather or spacing above 0)."""
    conf = clipping_settings()
    return conf.instant_gather > 0 or conf.instant_spacing > 0


def _pace(
    item_id: int,
    *,
    lock: QuerySet[Any],
    waiting: QuerySet[Any],
    sends: QuerySet[Any],
    burst: Callable[[datetime], Digest | ChannelDigest],
    now: datetime | None,
) -> Pace:
    """Pace one waiting item (a match or a notice) among the others of its owner or channel.

    1. Lock the owner's (or channel's) row: looking at what waits and making the burst are
       one step for concurrent workers.
    2. The item waits until the gather window from the first waiting item has passed, and
       the spacing since the last send (`sends`, newest created_at) too.
    3. Then, if several wait, up to 1,000 go in this second's burst, claimed once.
    """
    conf = clipping_settings()
    now = now or timezone.now()
    with transaction.atomic():
        lock.select_for_update().exists()
        if not waiting.filter(id=item_id).exists():
            return Pace()  # sent, claimed, deferred or in a digest: its deliverer says which
        first = waiting.aggregate(first=Min("created_at"))["first"]
        due = first + timedelta(seconds=conf.instant_gather)
        last = sends.order_by("-created_at").values_list("created_at", flat=True).first()
        if last is not None:
            due = max(due, last + timedelta(seconds=conf.instant_spacing))
        if due > now:
            return Pace(wait=(due - now).total_seconds())
        ids = list(waiting.values_list("id", flat=True)[:1000])
        if len(ids) < 2:
            return Pace()
        digest = burst(now.replace(microsecond=0))
        # SendStatus.PENDING is Digest.Status.PENDING's value too.
        if digest.status != SendStatus.PENDING or digest.claimed_at is not None:
            return Pace(wait=1.0)  # this second's burst is already going out: the next one
        waiting.model.objects.filter(id__in=ids, digest__isnull=True).update(digest=digest)
    return Pace(burst_id=digest.id)
