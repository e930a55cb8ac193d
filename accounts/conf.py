"""Every accounts setting (WEBCLIP_API_*, the mail cap), each default stated once here.

Each is read from Django settings if set there, else from the environment variable of the
same name, else its default; a value that cannot work raises SettingError naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from base.env import Settings, setting


@dataclass(frozen=True)
class ApiSettings(Settings):
    """The REST API: personal tokens and their rate limit."""

    rate_limit: int = setting(
        "WEBCLIP_API_RATE_LIMIT",
        120,
        "API requests one person may make per rate window, over all their tokens (then 429)",
        minimum=1,
    )
    rate_window: timedelta = setting(
        "WEBCLIP_API_RATE_WINDOW",
        timedelta(seconds=60),
        "the API rate window (90, 15m, 1h)",
        minimum=1,
    )
    touch_every: timedelta = setting(
        "WEBCLIP_API_LAST_USED_EVERY",
        timedelta(seconds=60),
        "how often a token's last-used time is written, at most (one UPDATE per token and period)",
        minimum=0,
    )


@dataclass(frozen=True)
class MailCapSettings(Settings):
    """The instant-mail cap of people who chose none: the number their account page shows."""

    instant_per_hour: int = setting(
        "CLIPPING_INSTANT_MAILS_PER_HOUR",
        60,
        "instant mails per clock hour for people who chose no number of their own (their "
        "preferences); above it each list's first clip still comes at once, the rest in a "
        "digest at the end of the hour. A new list's matches among pages already crawled "
        "come in one summary mail that the cap does not count",
        minimum=1,
    )


SECTIONS: tuple[type[Settings], ...] = (ApiSettings, MailCapSettings)


def api_settings() -> ApiSettings:
    """Return the API settings in effect now."""
    return ApiSettings.load()


def mail_cap(chosen: int | None) -> int:
    """Return a person's instant mails per hour: their own choice, else the site's default."""
    return chosen or MailCapSettings.read("instant_per_hour")
