"""Response bodies: which media types we take, capped incremental decompression, sniffing."""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable

import brotli

from crawler.fetch.errors import ErrorKind, FetchError

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
FEED_TYPES = frozenset({"application/rss+xml", "application/atom+xml", "application/rdf+xml"})
XML_TYPES = frozenset({"application/xml", "text/xml"})
# A sitemap is often a gzip file (sitemap.xml.gz) rather than a gzip-encoded response.
GZIP_FILE_TYPES = frozenset({"application/gzip", "application/x-gzip"})
ACCEPTED_TYPES = HTML_TYPES | FEED_TYPES | XML_TYPES | GZIP_FILE_TYPES
ACCEPT_HEADER = (
    "text/html,application/xhtml+xml,application/rss+xml,application/atom+xml,"
    "application/xml;q=0.9,text/xml;q=0.9,*/*;q=0.1"
)
ACCEPT_ENCODING = "gzip, deflate, br"

_FIRST_TAG = re.compile(
    rb"\A(?:\xef\xbb\xbf)?(?:\s+|<\?[^>]*\?>|<!--.*?-->|<!DOCTYPE[^>]*>)*<([A-Za-z][\w:.-]*)",
    re.S | re.I,
)
_HTML_DOCTYPE = re.compile(rb"<!DOCTYPE\s+html", re.I)
_FEED_ROOTS = {"rss", "feed", "rdf:rdf", "rdf"}
_SITEMAP_ROOTS = {"urlset", "sitemapindex"}


class BodyError(Exception):
    """A body we refuse; `error` says why (too large, badly encoded, not markup)."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.error = FetchError(kind, message)


def parse_content_type(header: str | None) -> tuple[str, str | None]:
    """Split a Content-Type header into (media type in lower case, charset or None)."""
    if not header:
        return "", None
    media, _, params = header.partition(";")
    charset = None
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            charset = value.strip().strip("\"'") or None
    return media.strip().lower(), charset


def content_kind(content_type: str, body: bytes) -> str:
    """Name a body "html", "feed", "sitemap" or "xml" from its type and its first element."""
    if content_type in FEED_TYPES:
        return "feed"
    head = body[:4096]
    match = _FIRST_TAG.match(head)
    root = match.group(1).decode("ascii", "replace").lower() if match else ""
    if content_type in HTML_TYPES:
        return "html"
    if root in _FEED_ROOTS:
        return "feed"
    if root in _SITEMAP_ROOTS:
        return "sitemap"
    if root == "html" or _HTML_DOCTYPE.search(head):
        return "html"
    if root:
        return "xml" if content_type else "html"  # untyped tag soup reads as HTML
    return ""


class CappedDecoder:
    """Decompress a body chunk by chunk and stop as soon as the output passes the cap.

    1. One Content-Encoding at most (plus a gzip file body under identity): stacked
       encodings are how decompression bombs multiply, so they are refused outright.
    2. Each chunk is inflated with an output limit of what is left under the cap plus one
       byte, so a bomb costs at most `cap` bytes of memory before it is refused.
    3. With `truncate`, reaching the cap ends the body quietly (robots.txt: first 500 KiB).
    """

    def __init__(self, encodings: list[str], cap: int, *, truncate: bool = False) -> None:
        if len(encodings) > 1:
            raise BodyError(
                ErrorKind.DECODING, f"stacked content encodings refused: {', '.join(encodings)}"
            )
        self.cap = cap
        self.truncate = truncate
        self.size = 0
        self.raw_size = 0
        self.full = False  # the cap was reached (only with truncate)
        self._step = _decoder(encodings[0] if encodings else "identity")

    def feed(self, chunk: bytes) -> bytes:
        """Return the decoded bytes of `chunk`; raise BodyError past the cap or on bad data."""
        self.raw_size += len(chunk)
        if self.raw_size > self.cap and not self.truncate:
            raise BodyError(ErrorKind.TOO_LARGE, f"body over {self.cap} bytes")
        room = self.cap - self.size
        try:
            out = self._step(chunk, room + 1)
        except (zlib.error, brotli.error) as exc:
            raise BodyError(ErrorKind.DECODING, f"corrupt compressed body: {exc}") from None
        if len(out) > room:
            if not self.truncate:
                raise BodyError(
                    ErrorKind.TOO_LARGE, f"body over {self.cap} bytes after decompression"
                )
            out = out[:room]
            self.full = True
        self.size += len(out)
        return out


def encodings_of(header: str | None, content_type: str) -> list[str]:
    """List a response's encodings in the order they must be undone."""
    codings = [c.strip().lower() for c in (header or "").split(",")]
    codings = [c for c in codings if c and c != "identity"]
    if content_type in GZIP_FILE_TYPES:
        codings.insert(0, "gzip")  # the file itself, inside any transfer coding
    return list(reversed(codings))


Step = Callable[[bytes, int], bytes]


def _decoder(encoding: str) -> Step:
    if encoding == "identity":
        return lambda chunk, limit: chunk
    if encoding in {"gzip", "x-gzip"}:
        return _zlib_step(zlib.MAX_WBITS | 16)
    if encoding == "deflate":
        return _deflate_step()
    if encoding == "br":
        return _brotli_step()
    raise BodyError(ErrorKind.DECODING, f"unsupported content encoding {encoding!r}")


def _zlib_step(wbits: int) -> Step:
    state = {"d": zlib.decompressobj(wbits)}

    def step(chunk: bytes, limit: int) -> bytes:
        out = bytearray()
        data = chunk
        while data and len(out) < limit:
            d = state["d"]
            out += d.decompress(data, limit - len(out))
            data = d.unconsumed_tail
            if d.eof and d.unused_data:
                # Another gzip member follows (legal, e.g. concatenated files).
                data = d.unused_data
                state["d"] = zlib.decompressobj(wbits)
            elif d.eof:
                break  # trailing garbage after the stream is ignored, as browsers do
        return bytes(out)

    return step


def _deflate_step() -> Step:
    # "deflate" should be zlib-wrapped but many servers send raw deflate; try both.
    state: dict[str, Step | None] = {"step": None}

    def step(chunk: bytes, limit: int) -> bytes:
        if state["step"] is None:
            try:
                first = _zlib_step(zlib.MAX_WBITS)
                out = first(chunk, limit)
                state["step"] = first
                return out
            except zlib.error:
                state["step"] = _zlib_step(-zlib.MAX_WBITS)
        chosen = state["step"]
        assert chosen is not None
        return chosen(chunk, limit)

    return step


def _brotli_step() -> Step:
    d = brotli.Decompressor()

    def step(chunk: bytes, limit: int) -> bytes:
        out = bytearray(d.process(chunk, output_buffer_limit=limit))
        while len(out) < limit and not d.can_accept_more_data():
            out += d.process(b"", output_buffer_limit=limit - len(out))
        return bytes(out)

    return step
