"""Why fetching or rendering a URL gave nothing usable: the typed error of a fetch result."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ErrorKind(StrEnum):
    """Why nothing usable came back; the value is the word stored before the message."""

    URL = "url"  # not an http(s) URL, or unparsable
    SSRF = "ssrf"  # the host is (or resolves to) an address the site may not reach
    ROBOTS = "robots"  # robots.txt disallows the URL
    # The host asked us to wait (Retry-After) longer than we wait inside a fetch, or its
    # robots.txt is unreachable (5xx, 429, timeout, no connection): nothing asked until then.
    BACKOFF = "backoff"
    TIMEOUT = "timeout"  # connect, read or total deadline passed
    TOO_LARGE = "too_large"  # the body (after decompression) is over the cap
    CONTENT_TYPE = "content_type"  # not HTML/XHTML, a feed or a sitemap
    REDIRECTS = "redirects"  # too many redirects, or a redirect without a usable Location
    HTTP = "http"  # a 4xx/5xx answer
    CONNECTION = "connection"  # DNS failure, refused or reset connection, TLS or protocol error
    DECODING = "decoding"  # an unknown, stacked or corrupt Content-Encoding
    OFFSITE = "offsite"  # (rendering) a redirect or request left the site's allowed hosts
    RENDER = "render"  # (rendering) the browser failed: crash, download, navigation error

    @property
    def refusal(self) -> bool:
        """Tell whether the URL may not be asked at all (not a failure of the site)."""
        return self in {ErrorKind.ROBOTS, ErrorKind.SSRF, ErrorKind.URL}


@dataclass(frozen=True)
class FetchError:
    """A failure the crawler records instead of an exception."""

    kind: ErrorKind
    message: str
    # Seconds the host asked us to wait (429/503 Retry-After, or our backoff), when known.
    retry_after: float | None = None

    def __post_init__(self) -> None:
        # A kind given by its word ("http") is checked and typed here, once.
        object.__setattr__(self, "kind", ErrorKind(self.kind))

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"
