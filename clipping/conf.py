"""Publishing settings, read from Django settings with the defaults documented here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings


@dataclass(frozen=True)
class ClippingSettings:
    instant_per_hour: int  # instant mails per user and clock hour before the hourly digest
    claim_timeout: timedelta  # a send claimed longer than this is taken to be abandoned
    stalled_after: timedelta  # an unclaimed instant match older than this is re-enqueued
    duplicate_threshold: float  # estimated Jaccard of word 3-shingles that makes a duplicate
    page_size: int  # clips per page on "My clips"
    feed_items: int  # entries in the Atom feed


def clipping_settings() -> ClippingSettings:
    """Return the publishing settings in effect now."""
    return ClippingSettings(
        instant_per_hour=int(getattr(settings, "CLIPPING_INSTANT_MAILS_PER_HOUR", 20)),
        claim_timeout=timedelta(seconds=float(getattr(settings, "CLIPPING_CLAIM_TIMEOUT", 600))),
        stalled_after=timedelta(seconds=float(getattr(settings, "CLIPPING_STALLED_AFTER", 120))),
        duplicate_threshold=float(getattr(settings, "CLIPPING_DUPLICATE_THRESHOLD", 0.85)),
        page_size=int(getattr(settings, "CLIPPING_PAGE_SIZE", 20)),
        feed_items=int(getattr(settings, "CLIPPING_FEED_ITEMS", 50)),
    )


# Celery reads retry options when the task is declared, so these are read once at import.
SEND_MAX_RETRIES = int(getattr(settings, "CLIPPING_SEND_MAX_RETRIES", 8))
SEND_RETRY_BACKOFF = int(getattr(settings, "CLIPPING_SEND_RETRY_BACKOFF", 30))
SEND_RETRY_BACKOFF_MAX = int(getattr(settings, "CLIPPING_SEND_RETRY_BACKOFF_MAX", 3600))
