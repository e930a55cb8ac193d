"""Plan digests: one mail per user and period, at the user's hour in the user's time zone.

A daily digest of period P holds the pending matches created before P, P being the most
recent time the clock showed the user's digest hour in their time zone; a weekly one the
same on their weekday. Hourly digests gather what an instant user got over their hourly
limit; their period is the end of that hour, or, for a person who asked for an early digest,
the moment their chosen number of such clips were waiting (`plan_early`). Every digest row is
unique per (user, kind, period), so planners running at once agree on one.

A summary holds what a new or widened list of an instant user found among the pages already
crawled (its backfill): one mail sent at once, whatever the hour's instant mails, which it
neither waits for nor counts. The hourly cap and its digest are about news, articles found
after the list exists.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.db import transaction
from django.db.models import Count, Exists, Max, Q, QuerySet
from django.utils import timezone

from accounts.models import User
from clipping.conf import clipping_settings
from clipping.models import Digest, Match
from clipping.publisher import recent_attempts

# How long the personal page shows what a new list found among pages already crawled.
SUMMARY_SHOWN_FOR = timedelta(days=7)
_KIND_OF_MODE = {User.Delivery.DAILY: Digest.Kind.DAILY, User.Delivery.WEEKLY: Digest.Kind.WEEKLY}


def last_slot(mode: str, hour: int, weekday: int, time_zone: str, now: datetime) -> datetime:
    """Return the latest digest time at or before now (UTC) for a user's preferences."""
    try:
        zone = ZoneInfo(time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    local = now.astimezone(zone).replace(tzinfo=None)  # wall-clock arithmetic
    slot = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    if mode == User.Delivery.WEEKLY:
        slot -= timedelta(days=(slot.weekday() - weekday) % 7)
        if slot > local:
            slot -= timedelta(days=7)
    elif slot > local:
        slot -= timedelta(days=1)
    return slot.replace(tzinfo=zone).astimezone(UTC)


def plan_digests(now: datetime | None = None) -> list[int]:
    """Create the digests now due, and return the ids of every digest waiting to be sent."""
    now = now or timezone.now()
    _release_orphans()
    _plan_hourly(now)
    for owner_id in _early_owners(now):
        plan_early(owner_id, now)
    _plan_periodic(now)
    lease = clipping_settings().claim_timeout
    # A digest whose last attempt failed recently is left to its task's backoff.
    waiting = Digest.objects.filter(status=Digest.Status.PENDING).filter(
        Q(claimed_at__lt=now - lease)
        | Q(claimed_at__isnull=True) & ~Exists(recent_attempts("digest", now))
    )
    return list(waiting.order_by("period", "id").values_list("id", flat=True))


def _release_orphans() -> None:
    """Free pending matches attached to a digest that went out without them (a late commit)."""
    Match.objects.undelivered().filter(digest__isnull=False).exclude(
        digest__status=Digest.Status.PENDING
    ).update(digest=None)


def _plan_hourly(now: datetime) -> None:
    """Gather matches deferred by the hourly limit into one digest per user and hour."""
    due = (
        Match.objects.undelivered()
        .filter(digest__isnull=True, deferred_until__lte=now)
        .values_list("owner_id", "deferred_until")
        .distinct()
    )
    for owner_id, hour_end in due:
        matches = Match.objects.undelivered().filter(
            owner_id=owner_id, digest__isnull=True, deferred_until=hour_end
        )
        _attach(owner_id, Digest.Kind.HOURLY, hour_end, matches)


def plan_early(owner_id: int, now: datetime | None = None) -> int | None:
    """Give an owner an early digest if the clips over their limit reached their number.

    Only for people who chose an early digest (`User.OverLimit.BATCH`); returns the id of the
    digest to send now, or None. The owner's row lock keeps two workers from both making one.
    """
    now = now or timezone.now()
    with transaction.atomic():
        owner = (
            User.objects.select_for_update()
            .filter(id=owner_id, over_limit=User.OverLimit.BATCH)
            .only("id", "over_limit_batch")
            .first()
        )
        if owner is None:
            return None
        waiting = _over_limit(now).filter(owner_id=owner_id)
        if waiting.count() < owner.over_limit_batch:
            return None
        digest, _ = Digest.objects.get_or_create(
            user_id=owner_id, kind=Digest.Kind.HOURLY, period=now.replace(microsecond=0)
        )
        if digest.status != Digest.Status.PENDING or digest.claimed_at is not None:
            return None
        waiting.update(digest=digest)
    return digest.id


def plan_summary(match_ids: list[int], now: datetime | None = None) -> int | None:
    """Put a backfill's matches of an instant user into a summary to send now; return its id.

    None when there is nothing to sum up or the owner gets digests (the next one takes them).
    A summary made in the same second for the same person (two lists saved at once) takes
    these too, unless it is already going out: then the next second's does.
    """
    now = (now or timezone.now()).replace(microsecond=0)
    matches = Match.objects.undelivered().filter(
        id__in=match_ids, digest__isnull=True, owner__delivery_mode=User.Delivery.INSTANT
    )
    owner_id = matches.values_list("owner_id", flat=True).first()
    if owner_id is None:
        return None
    for seconds in range(60):
        period = now + timedelta(seconds=seconds)
        with transaction.atomic():
            digest, _ = Digest.objects.get_or_create(
                user_id=owner_id, kind=Digest.Kind.SUMMARY, period=period
            )
            still_open = Digest.objects.filter(
                id=digest.id, status=Digest.Status.PENDING, claimed_at__isnull=True
            ).select_for_update()
            if still_open.exists():
                matches.update(digest=digest)
                return digest.id
    return None


def recent_summaries(owner_id: int, now: datetime | None = None) -> list[dict[str, object]]:
    """Return what the owner's new lists found among pages already crawled, over the last
    week, per list: {"list_id", "name", "count", "at"} (newest first), for the personal page."""
    since = (now or timezone.now()) - SUMMARY_SHOWN_FOR
    found = (
        Match.objects.filter(
            owner_id=owner_id, digest__kind=Digest.Kind.SUMMARY, digest__created_at__gte=since
        )
        .values("keyword_list_id", "keyword_list__name")
        .annotate(count=Count("id"), at=Max("digest__created_at"))
        .order_by("-at", "keyword_list__name")
    )
    return [
        {
            "list_id": row["keyword_list_id"],
            "name": row["keyword_list__name"],
            "count": row["count"],
            "at": row["at"],
        }
        for row in found
    ]


def _over_limit(now: datetime) -> QuerySet[Match]:
    """Matches deferred by the hourly limit whose hour is not over yet, in no digest."""
    return Match.objects.undelivered().filter(digest__isnull=True, deferred_until__gt=now)


def _early_owners(now: datetime) -> list[int]:
    """Return the owners who chose early digests and have clips over their limit waiting."""
    owners = (
        _over_limit(now)
        .filter(owner__over_limit=User.OverLimit.BATCH)
        .order_by()
        .values_list("owner_id", flat=True)
        .distinct()
    )
    return list(owners)


def _plan_periodic(now: datetime) -> None:
    """Give every daily or weekly user whose digest time passed a digest of older matches."""
    owners = (
        Match.objects.undelivered()
        .filter(digest__isnull=True, deferred_until__isnull=True)
        .filter(owner__delivery_mode__in=list(_KIND_OF_MODE))
        .values_list(
            "owner_id",
            "owner__delivery_mode",
            "owner__digest_hour",
            "owner__digest_weekday",
            "owner__time_zone",
        )
        .distinct()
    )
    slots: dict[tuple[str, datetime], list[int]] = defaultdict(list)
    for owner_id, mode, hour, weekday, time_zone in owners:
        slots[mode, last_slot(mode, hour, weekday, time_zone, now)].append(owner_id)
    for (mode, slot), owner_ids in slots.items():
        for owner_id in owner_ids:
            matches = Match.objects.undelivered().filter(
                owner_id=owner_id,
                digest__isnull=True,
                deferred_until__isnull=True,
                created_at__lt=slot,
            )
            _attach(owner_id, _KIND_OF_MODE[mode], slot, matches)


def _attach(owner_id: int, kind: str, period: datetime, matches: QuerySet[Match]) -> None:
    """Put matches into the user's digest for the period, unless it is already going out."""
    if not matches.exists():
        return
    with transaction.atomic():
        digest, _ = Digest.objects.get_or_create(user_id=owner_id, kind=kind, period=period)
        # A digest a worker already claimed or sent keeps its contents; late matches wait.
        open_digest = Digest.objects.filter(
            id=digest.id, status=Digest.Status.PENDING, claimed_at__isnull=True
        ).select_for_update()
        if open_digest.exists():
            matches.update(digest=digest)
