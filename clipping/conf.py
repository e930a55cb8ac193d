"""Every clipping setting (CLIPPING_*), each default stated once here.

Each is read from Django settings if set there, else from the environment variable of the
same name, else its default; a value that cannot work raises SettingError naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from accounts.conf import mail_cap
from base.env import Settings, parse_networks, setting


@dataclass(frozen=True)
class ClippingSettings(Settings):
    """Publishing, the keyword index and backfills."""

    claim_timeout: timedelta = setting(
        "CLIPPING_CLAIM_TIMEOUT",
        timedelta(seconds=600),
        "how long a send may hold its claim before another worker takes it over (90, 15m, 2h)",
        minimum=60,
    )
    stalled_after: timedelta = setting(
        "CLIPPING_STALLED_AFTER",
        timedelta(seconds=120),
        "how long an unclaimed instant match waits before the periodic sweep queues it again",
        minimum=10,
    )
    instant_gather: float = setting(
        "CLIPPING_INSTANT_GATHER_SECONDS",
        10.0,
        "how long an instant clip waits for others found with it, so that clips found within "
        "a few seconds go in one mail (or one message per channel)",
        minimum=0,
    )
    instant_spacing: float = setting(
        "CLIPPING_INSTANT_SPACING_SECONDS",
        60.0,
        "the least time between two instant mails to one person (or two messages on one "
        "channel); what is found in between goes in the next one",
        minimum=0,
    )
    digest_items: int = setting(
        "CLIPPING_DIGEST_ITEMS",
        20,
        "clips shown in one digest mail or channel digest; the others are counted and linked "
        "to My clips",
        minimum=1,
    )
    duplicate_threshold: float = setting(
        "CLIPPING_DUPLICATE_THRESHOLD",
        0.85,
        "estimated text overlap (Jaccard of word 3-shingles) that makes a clip a duplicate",
        minimum=0,
        maximum=1,
    )
    page_size: int = setting("CLIPPING_PAGE_SIZE", 20, "clips per page of My clips", minimum=1)
    feed_items: int = setting("CLIPPING_FEED_ITEMS", 50, "entries in the Atom feed", minimum=1)
    send_max_retries: int = setting(
        "CLIPPING_SEND_MAX_RETRIES", 8, "Celery retries of a failed send", minimum=0
    )
    send_retry_backoff: int = setting(
        "CLIPPING_SEND_RETRY_BACKOFF",
        30,
        "seconds before the first retry of a failed send, doubled each time (with jitter)",
        minimum=1,
    )
    send_retry_backoff_max: int = setting(
        "CLIPPING_SEND_RETRY_BACKOFF_MAX",
        3600,
        "longest wait between two retries, in seconds",
        minimum=1,
    )
    index_refresh_seconds: float = setting(
        "CLIPPING_INDEX_REFRESH_SECONDS",
        10.0,
        "how often each worker's keyword index applies list changes, in seconds",
        minimum=0,
    )
    index_line_cache_seconds: int = setting(
        "CLIPPING_INDEX_LINE_CACHE_SECONDS",
        30 * 86400,
        "how long compiled term lines stay in the shared cache, in seconds",
        minimum=60,
    )
    backfill_days: float = setting(
        "CLIPPING_BACKFILL_DAYS",
        7.0,
        "a new, reactivated or widened list is matched against the pages fetched in these last days (0: off)",
        minimum=0,
    )
    backfill_max_pages: int = setting(
        "CLIPPING_BACKFILL_MAX_PAGES",
        500,
        "most pages one backfill analyses, newest first",
        minimum=0,
    )
    backfill_max_matches: int = setting(
        "CLIPPING_BACKFILL_MAX_MATCHES", 20, "most matches one backfill makes", minimum=0
    )


@dataclass(frozen=True)
class ChannelSettings(Settings):
    """Notification channels (Apprise URLs) besides mail."""

    max_channels: int = setting(
        "CLIPPING_CHANNELS_MAX", 10, "notification channels one person may add", minimum=0
    )
    pause_after: int = setting(
        "CLIPPING_CHANNEL_PAUSE_AFTER",
        5,
        "failed sends in a row after which a channel is paused, with the last error as reason",
        minimum=1,
    )
    allowed_networks: str = setting(
        "CLIPPING_CHANNEL_NETWORKS",
        "",
        "private networks channel URLs may reach, comma-separated CIDRs (a self-hosted ntfy "
        "on your LAN; tests use 127.0.0.1/32; empty: public addresses only)",
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        self.networks()  # a bad CIDR fails at start-up, naming the variable

    def networks(self) -> tuple[str, ...]:
        """Return the networks of CLIPPING_CHANNEL_NETWORKS."""
        return parse_networks("CLIPPING_CHANNEL_NETWORKS", self.allowed_networks)


SECTIONS: tuple[type[Settings], ...] = (ClippingSettings, ChannelSettings)


def clipping_settings() -> ClippingSettings:
    """Return the clipping settings in effect now."""
    return ClippingSettings.load()


def instant_limit(chosen: int | None) -> int:
    """Return a person's instant mails per hour: their own choice, else the site's default."""
    return mail_cap(chosen)


def channel_settings() -> ChannelSettings:
    """Return the notification channel settings in effect now."""
    return ChannelSettings.load()


# Celery reads retry options when the task is declared, so these are read once at import.
SEND_MAX_RETRIES: int = ClippingSettings.read("send_max_retries")
SEND_RETRY_BACKOFF: int = ClippingSettings.read("send_retry_backoff")
SEND_RETRY_BACKOFF_MAX: int = ClippingSettings.read("send_retry_backoff_max")
