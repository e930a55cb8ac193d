"""URL canonicalisation and crawler-trap checks: one spelling per page, no endless URL spaces."""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any
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


def canonicalize(url: str, irrelevant: frozenset[str] = frozenset()) -> str:
    """Return the one spelling of `url` the crawler stores: clean query, no fragment.

    1. Tracking and session parameters (utm_*, fbclid, gclid, jsessionid ...) and
       ;jsessionid= path parameters go, and so do the parameters a site's pages showed to be
       `irrelevant` (lower-case names, `irrelevant_parameters`); credentials go too.
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
        name
        for name, _ in parse_qsl(parts.query, keep_blank_values=True)
        if _droppable(name) or name.lower() in irrelevant
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


def irrelevant_parameters(url: str, canonical: str) -> frozenset[str]:
    """Return the query parameters of `url` that its rel=canonical `canonical` leaves out.

    The canonical must be the same path on the same origin, keep every other parameter with
    its value, and leave out at least one: then the parameters it leaves out (a result's
    `?ref=search-1-3`) do not change the page. Page numbers are never among them (a list's
    later pages often name its first page by mistake); nor is anything when the canonical
    changes or adds a value.
    """
    here, there = urlsplit(url), urlsplit(canonical)
    if (here.scheme, here.netloc, here.path) != (there.scheme, there.netloc, there.path):
        return frozenset()
    ours = parse_qsl(here.query, keep_blank_values=True)
    kept = parse_qsl(there.query, keep_blank_values=True)
    if any(pair not in ours for pair in kept):
        return frozenset()
    names = frozenset(name.lower() for name, _ in ours) - {name.lower() for name, _ in kept}
    if names & PAGE_PARAMS:
        return frozenset()
    return names


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
    host = ascii_host((parts.hostname or "").rstrip("."))
    if not host:
        return False
    for entry in allowed_hosts:
        entry = ascii_host(entry.strip().rstrip("."))
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


# --- URL shapes, pagers, non-HTML links, host aliases ---------------------------------------

# Query parameters that number the pages of a list (page=3, start=40, offset=20 ...).
PAGE_PARAMS = frozenset(
    {"page", "p", "pg", "paged", "pagina", "seite", "start", "offset", "from", "pn", "pagenum"}
)
# Path segments that introduce a page number (/page/3/, /pagina/3, /seite/3, /p/3).
PAGE_SEGMENTS = frozenset({"page", "pages", "p", "pg", "pagina", "seite", "strona", "sida"})
# Anchor words of pagers in the languages of the analyzer's stemmers (lower-cased tokens).
PAGER_WORDS = frozenset(
    {
        "next", "older", "newer", "previous", "prev", "more", "earlier", "later",
        "suivant", "suivante", "précédent", "précédente", "anciens", "récents",
        "weiter", "nächste", "vorherige", "zurück", "ältere", "neuere",
        "siguiente", "anterior", "antiguas", "antiguos", "recientes",
        "successivo", "successivi", "successiva", "precedente", "precedenti", "avanti",
        "indietro", "vecchi", "recenti", "próximo", "próxima", "seguinte", "volgende",
        "vorige", "oudere", "nieuwere", "następna", "poprzednia", "nästa", "föregående",
        "næste", "forrige", "seuraava", "edellinen", "следующая", "предыдущая", "далее",
        "назад", "下一页", "上一页", "次へ", "前へ", "다음", "이전",
    }
)  # fmt: skip
PAGER_SIGNS = frozenset({"»", "«", "›", "‹", "→", "←", ">", "<", ">>", "<<", "…"})
# Links whose file extension says they are no HTML page (images, media, archives, styles).
NON_HTML_EXTENSIONS = frozenset(
    {
        "jpg", "jpeg", "png", "gif", "webp", "avif", "svg", "bmp", "ico", "tif", "tiff",
        "heic", "mp3", "mp4", "m4a", "m4v", "ogg", "oga", "ogv", "webm", "wav", "flac",
        "avi", "mov", "mkv", "wmv", "zip", "gz", "tgz", "bz2", "xz", "7z", "rar", "tar",
        "dmg", "exe", "msi", "apk", "deb", "rpm", "iso", "bin", "css", "js", "mjs", "map",
        "woff", "woff2", "ttf", "otf", "eot", "pdf", "doc", "docx", "xls", "xlsx", "ppt",
        "pptx", "odt", "ods", "odp", "epub", "mobi", "csv", "psd", "ai", "eps", "md",
        "rst", "txt", "json", "yaml", "yml", "toml", "ini", "log", "patch", "diff",
    }
)  # fmt: skip
_SLUG_OR_NUMBER = re.compile(r"\d|-|_|^[^/]{24,}$")
# Segments kept as they are in a shape below the first one: they name a view of a page or
# a list, not the page (/x/print/, /x/amp/, /c/page/3/), so they tell families apart.
STRUCTURAL_SEGMENTS = PAGE_SEGMENTS | frozenset(
    {
        "print", "amp", "feed", "rss", "atom", "comments", "comment", "reply", "share",
        "edit", "embed", "preview", "mobile", "m", "printable", "pdf", "index.html",
        "archive", "archives", "tag", "tags", "category", "categories", "author", "search",
    }
)  # fmt: skip


@lru_cache(maxsize=1 << 16)  # asked for every link of every page
def url_shape(url: str) -> str:
    """Return the shape of a URL: its path with variable segments as "*", its query keys.

    `/posts/some-title/` and `/posts/another-one/` share the shape `/posts/*/`, the
    category pages `/categories/python/page/2/` the shape `/categories/*/page/*/`;
    `/events/?date=2031-05-17` has the shape `/events/?date=*`. A shape names a family of
    pages that the site generates from one template, the unit traps and copies are judged in.
    """
    parts = urlsplit(url)
    segments = []
    for position, segment in enumerate(parts.path.split("/")):
        lowered = segment.lower()
        literal = lowered in STRUCTURAL_SEGMENTS or (
            position <= 1 and not _SLUG_OR_NUMBER.search(segment)
        )
        segments.append(lowered if literal or not segment else "*")
    keys = sorted({name.lower() for name, _ in parse_qsl(parts.query, keep_blank_values=True)})
    query = "&".join(f"{key}=*" for key in keys)
    return "/".join(segments) + (f"?{query}" if query else "")


@lru_cache(maxsize=1 << 16)  # a page's own key is asked once per link it holds
def pager_key(url: str) -> tuple[str, int]:
    """Return (the URL without its page number, the page number; 1 when it has none).

    `/page/3/`, `/blog/?page=3` and `/c/python/page/3/` give ("/", 3), ("/blog/", 3) and
    ("/c/python/", 3): every page of one paginated list shares the first part.
    """
    parts = urlsplit(url)
    segments = parts.path.split("/")
    number = 1
    for i in range(len(segments) - 2, -1, -1):
        if segments[i].lower() in PAGE_SEGMENTS and segments[i + 1].isdigit():
            number = int(segments[i + 1])
            segments = segments[:i] + segments[i + 2 :]
            break
    path = "/".join(segments) or "/"
    if not path.endswith("/") and parts.path.endswith("/"):
        path += "/"
    kept = []
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name.lower() in PAGE_PARAMS and value.isdigit():
            number = int(value)
        else:
            kept.append(f"{name}={value}")
    query = "&".join(kept)
    return urlunsplit((parts.scheme, parts.netloc, path, query, "")), number


def pager_url(example: str, number: int) -> str | None:
    """Return the URL of page `number` of the list `example` (page 2 or later) belongs to.

    The page number is put where the example carries it (`/page/N/`, `?page=N`); None when
    the example carries none.
    """
    parts = urlsplit(example)
    segments = parts.path.split("/")
    for i in range(len(segments) - 2, -1, -1):
        if segments[i].lower() in PAGE_SEGMENTS and segments[i + 1].isdigit():
            segments[i + 1] = str(number)
            return urlunsplit(parts._replace(path="/".join(segments)))
    params = parse_qsl(parts.query, keep_blank_values=True)
    for i, (name, value) in enumerate(params):
        if name.lower() in PAGE_PARAMS and value.isdigit():
            params[i] = (name, str(number))
            query = "&".join(f"{k}={v}" for k, v in params)
            return urlunsplit(parts._replace(query=query))
    return None


def is_pager_link(page_url: str, link_url: str, anchor: str = "", rel: Iterable[str] = ()) -> bool:
    """Tell whether a link leads to another page of the same paginated list as `page_url`.

    1. Both URLs name the same list and differ in the page number (/page/2/ -> /page/3/,
       ?page=2, the first page being the list's own URL).
    2. Or the link is marked rel="next"/"prev", or its text is a pager word ("Older posts",
       "Next »", "Seite 2", a bare number), and it stays on the page's path.
    """
    if link_url == page_url:
        return False
    base, number = pager_key(page_url)
    link_base, link_number = pager_key(link_url)
    if base == link_base and number != link_number:
        return True
    rels = {r.lower() for r in rel}
    words = anchor.lower().split()
    worded = bool(words) and (
        any(w.strip(".,:;!?()[]«»›‹") in PAGER_WORDS for w in words)
        or all(w in PAGER_SIGNS or w.isdigit() for w in words)
    )
    if not (rels & {"next", "prev", "previous"} or worded):
        return False
    here, there = urlsplit(page_url), urlsplit(link_url)
    return here.netloc == there.netloc and (
        here.path == there.path or url_shape(page_url) == url_shape(link_url)
    )


def pager_links(
    page_url: str, links: Iterable[Any], rels: Mapping[str, Iterable[str]] | None = None
) -> frozenset[str]:
    """Return the URLs among a page's `links` (each with `url` and `anchor`) that lead to
    other pages of its paginated list (`is_pager_link`; `rels`: the links' rel values)."""
    rels = rels or {}
    return frozenset(
        link.url
        for link in links
        if is_pager_link(page_url, link.url, link.anchor, rels.get(link.url, ()))
    )


def non_html(url: str) -> bool:
    """Tell whether a URL's file extension names something other than an HTML page."""
    name = urlsplit(url).path.rsplit("/", 1)[-1]
    if "." not in name:
        return False
    return name.rsplit(".", 1)[-1].lower() in NON_HTML_EXTENSIONS and not name.endswith(
        (".xml.gz",)
    )


def ascii_host(host: str) -> str:
    """Return a host name in lower case and its ASCII (IDNA) spelling, as DNS sees it."""
    host = host.lower()
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii").lower()
    except UnicodeError:  # not a name IDNA can spell: no server answers it anyway
        return host


def origin(url: str) -> str:
    """Return scheme://host[:port] of `url`, the one spelling every comparison of origins uses.

    Scheme and host in lower case, an international host name in its ASCII (IDNA) form, a
    trailing dot on the host left out (the same server to the fetcher), the default port left
    out, an IPv6 host in brackets. Raises ValueError for a port that is not a number.
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = ascii_host((parts.hostname or "").rstrip("."))
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    suffix = f":{port}" if port is not None and port != DEFAULT_PORTS.get(scheme) else ""
    return f"{scheme}://{host}{suffix}"


def served_alias(declared: str, fetched: str) -> tuple[str, str] | None:
    """Return (production origin, served origin) when a page names its copy on another host.

    A site served under one origin (a mirror, a staging copy, a local dump) often declares
    its production address in rel=canonical or its sitemap; the same path on both origins
    is the same page.
    """
    there, here = urlsplit(declared), urlsplit(fetched)
    if not there.netloc or there.netloc == here.netloc or there.path != here.path:
        return None
    return origin(declared), origin(fetched)


def mapped(url: str, aliases: dict[str, str]) -> str:
    """Return `url` on the served origin when it is on a known production origin."""
    if not aliases:
        return url
    served = aliases.get(origin(url))
    if not served:
        return url
    parts = urlsplit(url)
    return served + urlunsplit(("", "", parts.path, parts.query, parts.fragment))
