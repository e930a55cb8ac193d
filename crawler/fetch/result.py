"""What fetching (or rendering) one URL produced: a response, or a typed error.

One type serves the fetcher, the browser and storage; the error stays a `FetchError` until
`crawler.store.pages.error_text` writes it to a text column.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from crawler.fetch.body import content_kind
from crawler.fetch.errors import ErrorKind, FetchError

__all__ = ["SCRIPT_TYPES", "ErrorKind", "FetchError", "FetchResult", "PageRequest", "failure"]

# What scripts of a rendered page ask for (XHR, fetch, EventSource, WebSocket).
SCRIPT_TYPES = frozenset({"xhr", "fetch", "eventsource", "websocket"})


@dataclass(frozen=True)
class PageRequest:
    """One request a rendered page tried to make, and what became of it ("" when made)."""

    url: str
    resource_type: str
    refused: str = ""


@dataclass
class FetchResult:
    """The outcome of fetching (or rendering) one URL, redirects followed."""

    url: str  # the URL asked for
    final_url: str  # after redirects; `url` when there were none
    status: int | None = None
    body: bytes = b""  # decompressed, at most the policy's cap; a rendered DOM as UTF-8
    content_type: str = ""  # media type, lower case, no parameters
    charset: str | None = None  # from the Content-Type header; the analyzer decides the rest
    etag: str = ""
    last_modified: str = ""
    headers: dict[str, str] = field(default_factory=dict)  # final response, lower-case names
    redirects: list[str] = field(default_factory=list)  # every URL before final_url
    # A redirect not followed: its target, which the caller has fetched already (`known`).
    known_target: str = ""
    error: FetchError | None = None
    elapsed: float = 0.0  # seconds on the network (politeness waits not included)
    rendered: bool = False  # the body is the DOM after scripts ran in Chromium
    source_hash: str = ""  # for a rendered body: the hash of the HTML as served
    requests: list[PageRequest] = field(default_factory=list)  # made by a rendered page
    dialogs: list[str] = field(default_factory=list)  # "alert: message", dismissed
    # For a rendered body: why it was rendered, main-document requests, list expansions...
    render_notes: dict[str, int | str] = field(default_factory=dict)
    # The body's content kind, worked out once per body: (body, content type, kind).
    _kind: tuple[bytes, str, str] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @property
    def ok(self) -> bool:
        """Tell whether a usable answer came back (2xx with a body, or 304)."""
        return self.error is None and self.status is not None

    @property
    def succeeded(self) -> bool:
        """Tell whether a body came back (2xx without error)."""
        return self.error is None and self.status is not None and 200 <= self.status < 300

    @property
    def not_modified(self) -> bool:
        """Tell whether the server answered 304 to our conditional GET."""
        return self.error is None and self.status == 304

    @property
    def redirected(self) -> bool:
        """Tell whether the answer came from another URL than the one asked for."""
        return self.final_url != self.url

    @property
    def kind(self) -> str:
        """Name what the body is: "html", "feed", "sitemap", "xml", or "" without a body."""
        if not self.ok or self.not_modified:
            return ""
        return self.body_kind

    @property
    def body_kind(self) -> str:
        """Name what the body holds by its content type and first bytes (`content_kind`),
        worked out once however often it is asked, again only if the body is replaced."""
        cached = self._kind
        if cached is None or cached[0] is not self.body or cached[1] != self.content_type:
            cached = (self.body, self.content_type, content_kind(self.content_type, self.body))
            self._kind = cached
        return cached[2]

    @property
    def html(self) -> str:
        """Return the body as text (a rendered DOM is UTF-8; else the declared charset)."""
        try:
            return self.body.decode(self.charset or "utf-8", "replace")
        except LookupError:  # a charset name Python does not know
            return self.body.decode("utf-8", "replace")

    @property
    def script_urls(self) -> list[str]:
        """Return the URLs a rendered page's scripts asked for."""
        return [r.url for r in self.requests if r.resource_type in SCRIPT_TYPES]

    @property
    def blocked(self) -> list[PageRequest]:
        """Return the requests of a rendered page that were refused."""
        return [r for r in self.requests if r.refused]


def failure(
    url: str,
    error: FetchError,
    *,
    final_url: str | None = None,
    status: int | None = None,
    redirects: list[str] | None = None,
    rendered: bool = False,
) -> FetchResult:
    """Build a result that carries only an error."""
    return FetchResult(
        url=url,
        final_url=final_url or url,
        status=status,
        redirects=list(redirects or []),
        error=error,
        rendered=rendered,
    )
