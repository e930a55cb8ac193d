"""What one fetch produced: a response, or a typed error the crawler records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ErrorKind = Literal[
    "url",  # not an http(s) URL, or unparsable
    "ssrf",  # the host is (or resolves to) an address the site may not reach
    "robots",  # robots.txt disallows the URL
    # The host asked us to wait (Retry-After) longer than we wait inside a fetch, or its
    # robots.txt is unreachable (5xx, 429, timeout, no connection): nothing asked until then.
    "backoff",
    "timeout",  # connect, read or total deadline passed
    "too_large",  # the body (after decompression) is over the cap
    "content_type",  # not HTML/XHTML, a feed or a sitemap
    "redirects",  # too many redirects, or a redirect without a usable Location
    "http",  # a 4xx/5xx answer
    "connection",  # DNS failure, refused or reset connection, TLS or protocol error
    "decoding",  # an unknown, stacked or corrupt Content-Encoding
    "offsite",  # (rendering) a redirect or request left the site's allowed hosts
    "render",  # (rendering) the browser failed: crash, download, navigation error
]


@dataclass(frozen=True)
class FetchError:
    """A failure the crawler records instead of an exception."""

    kind: ErrorKind
    message: str
    # Seconds the host asked us to wait (429/503 Retry-After, or our backoff), when known.
    retry_after: float | None = None

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


@dataclass
class FetchResult:
    """The outcome of fetching one URL, redirects followed."""

    url: str
    final_url: str
    status: int | None = None
    body: bytes = b""  # decompressed, at most the policy's cap
    content_type: str = ""  # media type, lower case, no parameters
    charset: str | None = None  # from the Content-Type header; the analyzer decides the rest
    etag: str | None = None
    last_modified: str | None = None
    headers: dict[str, str] = field(default_factory=dict)  # final response, lower-case names
    redirects: list[str] = field(default_factory=list)  # every URL before final_url
    error: FetchError | None = None
    elapsed: float = 0.0  # seconds on the network (politeness waits not included)

    @property
    def ok(self) -> bool:
        """Tell whether a usable answer came back (2xx with a body, or 304)."""
        return self.error is None and self.status is not None

    @property
    def not_modified(self) -> bool:
        """Tell whether the server answered 304 to our conditional GET."""
        return self.error is None and self.status == 304

    @property
    def kind(self) -> str:
        """Name what the body is: "html", "feed", "sitemap", "xml", or "" without a body."""
        from crawler.fetch.body import content_kind

        if not self.ok or self.not_modified:
            return ""
        return content_kind(self.content_type, self.body)


def failure(
    url: str,
    kind: ErrorKind,
    message: str,
    *,
    final_url: str | None = None,
    status: int | None = None,
    redirects: list[str] | None = None,
    retry_after: float | None = None,
) -> FetchResult:
    """Build a result that carries only an error."""
    return FetchResult(
        url=url,
        final_url=final_url or url,
        status=status,
        redirects=list(redirects or []),
        error=FetchError(kind, message, retry_after),
    )
