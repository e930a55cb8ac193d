"""Fetching limits (global, from settings) and per-site rules (from a Site or given)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from crawler.canonical import origin

DEFAULT_USER_AGENT = "WebclipBot/0.1 (+https://example.invalid/bot)"
# A product token (what robots.txt groups name), then somewhere a URL where site owners
# learn who crawls them and how to reach the operator.
_CONTACT_UA = re.compile(r"[A-Za-z0-9_.-]+(?:/\S+)?\s.*\bhttps?://\S+.*")
MIB = 1024 * 1024


@dataclass(frozen=True)
class FetchPolicy:
    """Limits every fetch obeys; one policy serves every site."""

    user_agent: str = DEFAULT_USER_AGENT
    concurrency: int = 16  # requests in flight over all hosts
    max_body_bytes: int = 5 * MIB  # after decompression
    connect_timeout: float = 10.0
    read_timeout: float = 15.0  # longest silence between two reads
    total_timeout: float = 30.0  # whole fetch on the network, redirects included
    max_redirects: int = 5
    robots_max_bytes: int = 500 * 1024  # RFC 9309: parse at least the first 500 KiB
    robots_ttl: float = 24 * 3600.0  # RFC 9309: cache at most 24 h
    robots_error_ttl: float = 600.0  # a 5xx/unreachable robots.txt is asked again sooner
    retries: int = 2  # extra attempts after a 429/503 whose wait is short
    max_retry_wait: float = 60.0  # longer waits end the fetch with a "backoff" error
    backoff_base: float = 5.0  # first wait after a 429/503 without Retry-After, then doubled
    max_backoff: float = 3600.0  # cap on Retry-After and on our own backoff
    max_crawl_delay: float = 60.0  # cap on a robots.txt Crawl-delay
    host_lease: float = 10.0  # a host's slot outlives a killed holder by this much at most
    chromium_path: str = "/usr/bin/chromium"  # Debian's Chromium, driven by Playwright
    render_timeout: float = 20.0  # whole render of one page, redirects included
    render_settle: float = 3.0  # longest wait for the network to go quiet after "load"
    render_concurrency: int = 2  # pages rendered at once per worker process

    @property
    def robots_token(self) -> str:
        """Return the product token robots.txt groups are matched against."""
        return self.user_agent.split("/", 1)[0].split()[0]


@dataclass(frozen=True)
class SiteRules:
    """What one site allows: its delay, whether robots.txt applies, private addresses."""

    crawl_delay: float = 1.0
    obey_robots: bool = True
    allow_private_network: bool = False
    # Networks reachable even without allow_private_network ("10.1.2.0/24", "192.168.1.5").
    allowed_networks: tuple[str, ...] = ()
    # The origins allow_private_network covers (scheme://host[:port] of the root URL and
    # seeds); empty means the origin a fetch starts from, never the origins it redirects to.
    private_origins: tuple[str, ...] = ()

    def exempts(self, url: str) -> bool:
        """Tell whether `url` may reach private addresses: the flag is on and it is our origin."""
        if not self.allow_private_network:
            return False
        return not self.private_origins or url_origin(url) in self.private_origins

    def scoped_to(self, url: str) -> SiteRules:
        """Return these rules with an unscoped private exemption narrowed to `url`'s origin."""
        origin = url_origin(url)
        if not self.allow_private_network or self.private_origins or origin is None:
            return self
        return replace(self, private_origins=(origin,))

    @classmethod
    def of(cls, site: Any) -> SiteRules:
        """Read the rules from a Site (or any object with the same attribute names)."""
        return cls(
            crawl_delay=float(getattr(site, "crawl_delay", cls.crawl_delay)),
            obey_robots=bool(getattr(site, "obey_robots", cls.obey_robots)),
            allow_private_network=bool(
                getattr(site, "allow_private_network", cls.allow_private_network)
            ),
            allowed_networks=tuple(getattr(site, "allowed_networks", None) or ()),
            private_origins=site_origins(site),
        )


def url_origin(url: str) -> str | None:
    """Return the origin (scheme://host[:port], default port left out) of `url`, or None."""
    url = url.strip()
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return None
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        return None
    return origin(url)


def site_origins(site: Any) -> tuple[str, ...]:
    """Return the origins of a site's root URL and seeds, as configured."""
    seeds = getattr(site, "seeds", None)
    urls = seeds() if callable(seeds) else [getattr(site, "root_url", None) or ""]
    origins = (url_origin(url) for url in urls if url)
    return tuple(dict.fromkeys(o for o in origins if o))


def policy_from_settings(**overrides: Any) -> FetchPolicy:
    """Build the policy from the crawler's settings (CRAWLER_*), or defaults without Django."""
    values: dict[str, Any] = {}
    try:
        from django.conf import settings

        configured = settings.configured
    except ImportError:  # the fetcher also works as a plain library
        configured = False
    if configured:
        from crawler.conf import fetch_settings

        values = fetch_settings().given()
    values.update(overrides)
    policy = FetchPolicy(**values)
    if not _CONTACT_UA.fullmatch(policy.user_agent):
        raise ValueError(
            "CRAWLER_USER_AGENT must name the crawler and a contact URL, like "
            f"{DEFAULT_USER_AGENT!r}; got {policy.user_agent!r}"
        )
    return policy
