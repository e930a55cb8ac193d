"""robots.txt per RFC 9309, parsed by Protego and cached per origin."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from protego import Protego

from crawler.fetch.result import ErrorKind, FetchResult


@dataclass(frozen=True)
class RobotsRules:
    """One origin's robots.txt as it applies to our User-Agent token.

    `unreachable` (a 5xx, 429 or network failure) disallows everything, as RFC 9309 asks;
    a 4xx allows everything.
    """

    origin: str
    token: str
    status: int | None = None
    unreachable: str = ""  # why the file could not be read ("" when it was, or was 4xx)
    error_kind: ErrorKind | None = None  # the error behind `unreachable` (SSRF, TIMEOUT, ...)
    parser: Protego | None = None
    sitemaps: tuple[str, ...] = field(default_factory=tuple)

    def allows(self, url: str) -> bool:
        """Tell whether our crawler may fetch `url`."""
        if self.unreachable:
            return False
        if self.parser is None:
            return True
        return bool(self.parser.can_fetch(url, self.token))

    @property
    def crawl_delay(self) -> float | None:
        """Return the Crawl-delay of our group in seconds, if it names one."""
        if self.parser is None:
            return None
        delay = self.parser.crawl_delay(self.token)
        return float(delay) if delay is not None else None


def rules_from(origin: str, token: str, result: FetchResult, max_bytes: int) -> RobotsRules:
    """Interpret the fetch of /robots.txt: 2xx parsed, 4xx allow all, anything else deny all."""
    status = result.status
    error = result.error
    if error is not None:
        # RFC 9309 2.3.1: a 4xx or a redirect chain over five hops means "unavailable" and
        # allows all; 5xx and network failures mean "unreachable" and disallow all. A 429 is
        # read as unreachable too: a server asking us to slow down is not an invitation.
        if error.kind == ErrorKind.REDIRECTS or (
            error.kind == ErrorKind.HTTP
            and status is not None
            and 400 <= status < 500
            and status != 429
        ):
            return RobotsRules(origin, token, status)
        return RobotsRules(origin, token, status, unreachable=str(error), error_kind=error.kind)
    body = result.body[:max_bytes]
    if len(result.body) >= max_bytes:
        # The cap may cut a line in two; a half rule must not count.
        body = body.rsplit(b"\n", 1)[0]
    # utf-8-sig: a byte-order mark (Windows editors write one) would hide the first line.
    parser = Protego.parse(body.decode("utf-8-sig", "replace"))
    return RobotsRules(origin, token, status, parser=parser, sitemaps=tuple(parser.sitemaps))


Loader = Callable[[str], Awaitable[RobotsRules]]


class RobotsCache:
    """Keep each origin's rules until they expire (24 h, or sooner after a failure)."""

    def __init__(self, ttl: float, error_ttl: float) -> None:
        self.ttl = ttl
        self.error_ttl = error_ttl
        self._entries: dict[str, tuple[float, RobotsRules]] = {}

    def get(self, origin: str, now: float) -> RobotsRules | None:
        """Return fresh cached rules for `origin`, or None."""
        entry = self._entries.get(origin)
        if entry is None or entry[0] <= now:
            return None
        return entry[1]

    def expires_in(self, origin: str, now: float) -> float:
        """Return the seconds until `origin`'s cached rules expire (0 when none are cached)."""
        entry = self._entries.get(origin)
        return max(0.0, entry[0] - now) if entry is not None else 0.0

    def put(self, rules: RobotsRules, now: float) -> None:
        """Cache `rules` from `now` on."""
        ttl = self.error_ttl if rules.unreachable else self.ttl
        self._entries[rules.origin] = (now + ttl, rules)
