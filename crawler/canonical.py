"""URL canonicalisation and crawler-trap checks: one spelling per page, no endless URL spaces."""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from functools import lru_cache
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from w3lib.url import canonicalize_url, url_query_cleaner

MAX_URL_LENGTH = 2083  # the old IE limit; longer URLs are almost always generated
MAX_SEGMENT_REPEATS = 2  # a path segment seen a third time (/a/a/a, /x/y/x/y/x) is a loop
MAX_PATH_SEGMENTS = 30
DEFAULT_PORTS = {"http": 80, "https": 443}

# Query parameters that only say where a click came from.
TRACKING_PARAMS = frozenset(
    {
        "fbclid", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "msclkid", "yclid",
        "twclid", "ttclid", "igshid", "li_fat_id", "mc_cid", "mc_eid", "_ga", "_gl",
        "_hsenc", "_hsmi", "mkt_tok", "oly_anon_id", "oly_enc_id", "vero_id", "vero_conv",
        "rb_clickid", "s_cid", "ref_src", "wickedid", "epik", "__s", "spm",
    }
)  # fmt: skip
TRACKING_PREFIXES = ("utm_", "mtm_", "pk_", "hsa_", "matomo_")
# Query parameters that carry a server session: each visit mints new URLs for the same page.
SESSION_PARAMS = frozenset(
    {
        "jsessionid", "phpsessid", "aspsessionid", "sessionid", "session_id", "sessid",
        "sid", "cfid", "cftoken", "zenid", "oscsid", "s_id", "session",
    }
)  # fmt: skip
# ;jsessionid=... path parameters (Java) and /(S(...))/ segments (ASP.NET cookieless).
_PATH_SESSION = re.compile(r";(?:jsessionid|phpsessid|sessionid|sid)=[^/?#]*", re.I)
_ASPNET_SESSION = re.compile(r"/\((?:[A-Z]\([^)]*\))+\)", re.I)
# Calendar pages: /2031/05/, 2031-05-17, or ?year=2031 reach any date one click at a time.
_PATH_DATE = re.compile(r"(?:^|/)((?:19|20|21)\d\d)(?:[/-](?:0?[1-9]|1[0-2])(?:\b|/|$))")
_DATE_PARAMS = frozenset({"year", "y", "yr", "date", "day", "month", "cal", "calendar", "week"})
_YEAR = re.compile(r"\b((?:1[0-9]|2[0-9])\d\d)\b")
EARLIEST_YEAR = 1990  # before the web, a calendar link is a trap, not an archive
YEARS_AHEAD = 2


class BadURL(ValueError):
    """A URL that cannot be canonicalised (no http(s) scheme, no host, bad port)."""


def canonicalize(url: str) -> str:
    """Return the one spelling of `url` the crawler stores: clean query, no fragment.

    1. Tracking and session parameters (utm_*, fbclid, gclid, jsessionid ...) and
       ;jsessionid= path parameters go; credentials in the URL go too.
    2. w3lib sorts the query, normalises percent-escapes and the path, lower-cases and
       IDNA-encodes the host and drops the fragment.
    3. The default port and a trailing dot on the host go; an empty path becomes "/".
    """
    raw = url.strip()
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError as exc:
        raise BadURL(f"{url!r}: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        raise BadURL(f"{url!r} is not an http(s) URL with a host")
    path = _ASPNET_SESSION.sub("", _PATH_SESSION.sub("", parts.path))
    host = parts.hostname.rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None or port == DEFAULT_PORTS[scheme] else f"{host}:{port}"
    cleaned = urlunsplit((scheme, netloc, path or "/", parts.query, ""))
    dropped = [
        name for name, _ in parse_qsl(parts.query, keep_blank_values=True) if _droppable(name)
    ]
    if dropped:
        cleaned = url_query_cleaner(cleaned, dropped, remove=True, unique=False)
    return canonicalize_url(cleaned)


def _droppable(name: str) -> bool:
    lowered = name.lower()
    return (
        lowered in TRACKING_PARAMS
        or lowered in SESSION_PARAMS
        or lowered.startswith(TRACKING_PREFIXES)
    )


def is_trap(url: str, depth: int, max_depth: int) -> str | None:
    """Return why `url` looks like a crawler trap ("depth", "too_long", ...), or None."""
    if depth > max_depth:
        return "depth"
    if len(url) > MAX_URL_LENGTH:
        return "too_long"
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    if len(segments) > MAX_PATH_SEGMENTS:
        return "path_depth"
    if segments and max(Counter(s.lower() for s in segments).values()) > MAX_SEGMENT_REPEATS:
        return "repeated_segments"
    if _PATH_SESSION.search(parts.path) or _ASPNET_SESSION.search(parts.path):
        return "session_id"
    params = parse_qsl(parts.query, keep_blank_values=True)
    if any(name.lower() in SESSION_PARAMS for name, _ in params):
        return "session_id"
    if _far_calendar_date(parts.path, params):
        return "calendar"
    return None


def _far_calendar_date(path: str, params: list[tuple[str, str]]) -> bool:
    years = [int(m.group(1)) for m in _PATH_DATE.finditer(path)]
    for name, value in params:
        if name.lower() in _DATE_PARAMS:
            years.extend(int(y) for y in _YEAR.findall(value))
    this_year = datetime.now(UTC).year
    return any(y < EARLIEST_YEAR or y > this_year + YEARS_AHEAD for y in years)


def same_site(url: str, allowed_hosts: Iterable[str]) -> bool:
    """Tell whether `url`'s host is one of `allowed_hosts`.

    An entry may name a port ("127.0.0.1:8100", matched against the effective port) or
    cover subdomains with a leading "*." or "." ("*.example.com" matches example.com too).
    """
    try:
        parts = urlsplit(url)
        port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower())
    except ValueError:
        return False
    host = (parts.hostname or "").rstrip(".")
    if not host:
        return False
    for entry in allowed_hosts:
        entry = entry.strip().lower().rstrip(".")
        wanted_port = None
        if entry.startswith("[") or entry.count(":") == 1:
            try:
                probe = urlsplit(f"//{entry}")
                entry, wanted_port = (probe.hostname or ""), probe.port
            except ValueError:
                continue
        if wanted_port is not None and wanted_port != port:
            continue
        if entry.startswith(("*.", ".")):
            base = entry.lstrip("*").lstrip(".")
            if host == base or host.endswith("." + base):
                return True
        elif host == entry:
            return True
    return False


def excluded(url: str, patterns: Iterable[str]) -> str | None:
    """Return the first pattern `url` matches, or None.

    A pattern is a regular expression searched anywhere in the URL, or a shell glob
    matched against the whole URL when written "glob:PATTERN".
    """
    for pattern in patterns:
        if pattern and _compiled(pattern).search(url):
            return pattern
    return None


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> re.Pattern[str]:
    if pattern.startswith("glob:"):
        return re.compile(fnmatch.translate(pattern[5:]))
    return re.compile(pattern)
