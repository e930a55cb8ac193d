"""Turn scraped text into safe output: highlighted summaries, one-line titles, safe links.

Scraped text is data, never markup. Every function here escapes what it is given, so a
clip with script tags, event handlers or "</title>" stays visible text wherever it is shown.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

_SAFE_SCHEMES = {"http", "https"}
# What XML 1.0, mail headers or HTML refuse: C0 and C1 controls (but tab, line feed, carriage
# return), lone surrogates, noncharacters. Stored text from before the analyzer cleaned it,
# or typed by a person, may still hold them.
_UNSAFE_OUTPUT = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(chr(plane << 16 | low) for plane in range(17) for low in (0xFFFE, 0xFFFF))
    + "]"
)


def output_safe(text: str) -> str:
    """Return text with every character an output refuses replaced by U+FFFD, one for one."""
    return _UNSAFE_OUTPUT.sub("\ufffd", text)


def one_line(text: str, limit: int | None = None) -> str:
    """Return text on one line: control and format characters dropped, white space collapsed."""
    text = output_safe(text).replace("\ufffd", "")
    cleaned = "".join(
        " " if char.isspace() else char
        for char in text
        if char.isspace() or unicodedata.category(char) not in {"Cc", "Cf", "Cs", "Co"}
    )
    line = " ".join(cleaned.split())
    if limit is not None and len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return line


def safe_url(url: str) -> str:
    """Return url if it is an absolute http(s) URL, else "" (javascript:, data:, relative...)."""
    candidate = url.strip()
    if re.search(r"[\x00-\x20\x7f]", candidate):
        return ""
    try:
        parts = urlsplit(candidate)
    except ValueError:
        return ""
    if parts.scheme.lower() not in _SAFE_SCHEMES or not parts.hostname:
        return ""
    return candidate


def pieces(text: str, spans: Iterable[Sequence[object]]) -> list[tuple[str, bool]]:
    """Return text cut into (piece, highlighted) runs; overlapping spans merge."""
    text = output_safe(text)
    ranges = sorted(
        (max(0, int(span[0])), min(len(text), int(span[1])))  # type: ignore[call-overload]
        for span in spans
        if len(span) >= 2
    )
    merged: list[list[int]] = []
    for start, end in ranges:
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out: list[tuple[str, bool]] = []
    position = 0
    for start, end in merged:
        if start > position:
            out.append((text[position:start], False))
        out.append((text[start:end], True))
        position = end
    if position < len(text):
        out.append((text[position:], False))
    return out


def highlight_html(text: str, spans: Iterable[Sequence[object]]) -> SafeString:
    """Return escaped text with each span in <mark>."""
    html = "".join(
        f"<mark>{escape(piece)}</mark>" if marked else str(escape(piece))
        for piece, marked in pieces(text, spans)
    )
    return mark_safe(html)  # noqa: S308 (every piece was escaped above)


def highlight_text(text: str, spans: Iterable[Sequence[object]]) -> str:
    """Return plain text with each span between asterisks, for the text part of mails."""
    return "".join(f"*{piece}*" if marked else piece for piece, marked in pieces(text, spans))
