"""Read one HTTP response into a FetchResult: status, type check, capped body, redirects."""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urljoin, urlsplit, urlunsplit

import aiohttp

from crawler.fetch.body import (
    ACCEPTED_TYPES,
    GZIP_FILE_TYPES,
    BodyError,
    CappedDecoder,
    encodings_of,
    parse_content_type,
)
from crawler.fetch.result import ErrorKind, FetchError, FetchResult

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Small error and redirect bodies are drained so the connection can be reused.
_DRAIN_LIMIT = 64 * 1024


async def read_response(
    url: str, response: aiohttp.ClientResponse, cap: int, truncate: bool
) -> FetchResult:
    """Turn a response into a result; raise BodyError for a refused type or body."""
    status = response.status
    media, charset = parse_content_type(response.headers.get("Content-Type"))
    result = FetchResult(
        url=url,
        final_url=url,
        status=status,
        content_type=media,
        charset=charset,
        etag=response.headers.get("ETag", ""),
        last_modified=response.headers.get("Last-Modified", ""),
        headers={k.lower(): v for k, v in response.headers.items()},
    )
    if not 200 <= status < 300:
        await drain(response)
        if status != 304 and status not in REDIRECT_STATUSES:
            result.error = FetchError(
                ErrorKind.HTTP, f"HTTP {status} {response.reason or ''}".strip()
            )
        return result
    checked = not truncate  # robots.txt is plain text; pages must be markup
    if checked and media and media not in ACCEPTED_TYPES:
        raise BodyError(
            ErrorKind.CONTENT_TYPE, f"content type {media!r} is not HTML, a feed or a sitemap"
        )
    length = response.content_length
    if length is not None and length > cap and not truncate:
        raise BodyError(ErrorKind.TOO_LARGE, f"Content-Length {length} is over the {cap}-byte cap")
    decoder = CappedDecoder(
        encodings_of(response.headers.get("Content-Encoding"), media), cap, truncate=truncate
    )
    parts = []
    async for chunk in response.content.iter_any():
        parts.append(decoder.feed(chunk))
        if decoder.full:
            break
    result.body = b"".join(parts)
    if checked and (not media or media in GZIP_FILE_TYPES) and not result.body_kind:
        raise BodyError(
            ErrorKind.CONTENT_TYPE, f"body of type {media or 'unknown'!r} is not markup"
        )
    return result


async def drain(response: aiohttp.ClientResponse) -> None:
    """Read a small body to its end so the connection goes back to the pool."""
    length = response.content_length
    if length is not None and length <= _DRAIN_LIMIT and not response.content.at_eof():
        # On failure the connection is dropped instead of reused; the answer stands.
        with contextlib.suppress(aiohttp.ClientError, asyncio.IncompleteReadError):
            await response.content.readexactly(length)


def redirect_target(result: FetchResult, current: str) -> str | None:
    """Return where a 3xx answer points; without a Location, mark the result failed."""
    location = result.headers.get("location", "").strip()
    if not location:
        result.error = FetchError(ErrorKind.REDIRECTS, f"HTTP {result.status} without Location")
        return None
    return without_fragment(urljoin(current, location))


def redirected_request(
    status: int | None, method: str, body: bytes | None, headers: dict[str, str]
) -> tuple[str, bytes | None, dict[str, str]]:
    """Return the next hop's method, body and headers: a 301-303 turns a POST into a GET."""
    if method == "POST" and status in {301, 302, 303}:
        return "GET", None, {k: v for k, v in headers.items() if k != "Content-Type"}
    return method, body, headers


def without_fragment(url: str) -> str:
    """Return `url` without its #fragment (never sent to a server)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(fragment=""))
