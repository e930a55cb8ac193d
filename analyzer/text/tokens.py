"""Cut text into lower-cased word tokens with their character offsets."""

from __future__ import annotations

import regex

# A token is a run of letters, combining marks and digits in any script. Marks are part of
# the word so that decomposed Greek or Latin accents (NFD) do not split it; apostrophes,
# hyphens and underscores separate tokens ("l'économie" -> "l", "économie").
_TOKEN = regex.compile(r"[\p{L}\p{N}][\p{L}\p{M}\p{N}]*")


def tokenize(text: str) -> list[str]:
    """Return the lower-cased word tokens of a text."""
    return [token.lower() for token in _TOKEN.findall(text)]


def token_spans(text: str) -> list[tuple[str, int, int]]:
    """Return (lower-cased token, start, end) for every token, offsets into the text."""
    return [(match.group().lower(), match.start(), match.end()) for match in _TOKEN.finditer(text)]
