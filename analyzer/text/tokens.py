"""Cut text into lower-cased word tokens with their character offsets."""

from __future__ import annotations

import re
from itertools import accumulate

import regex

# A token is a run of letters, combining marks and digits in any script. Marks are part of
# the word so that decomposed Greek or Latin accents (NFD) do not split it; apostrophes,
# hyphens and underscores separate tokens ("l'économie" -> "l", "économie").
_TOKEN = regex.compile(r"[\p{L}\p{N}][\p{L}\p{M}\p{N}]*")
# The same tokens as a capturing split: gaps and tokens alternate, gap first and last.
_SPLIT = regex.compile(r"([\p{L}\p{N}][\p{L}\p{M}\p{N}]*)")
# In ASCII those classes are letters and digits, which the standard re module splits faster.
_ASCII_SPLIT = re.compile(r"([A-Za-z0-9]+)")
# Joins tokens so one lower() call lowers them all: NUL is neither cased nor case-ignorable,
# so a final sigma ("Σ" -> "ς") is decided within its token exactly as token.lower() does.
_JOIN = "\x00"


def tokenize(text: str) -> list[str]:
    """Return the lower-cased word tokens of a text."""
    return _lowered(_TOKEN.findall(text))


def token_spans(text: str) -> list[tuple[str, int, int]]:
    """Return (lower-cased token, start, end) for every token, offsets into the text."""
    return list(zip(*token_columns(text), strict=True))


def token_columns(text: str) -> tuple[list[str], list[int], list[int]]:
    """Return token_spans(text) as three columns: tokens, starts and ends.

    Without a Python call per token: one split gives gaps and tokens in turn, and the
    running sum of their lengths gives every offset.
    """
    parts = (_ASCII_SPLIT if text.isascii() else _SPLIT).split(text)
    if len(parts) == 1:
        return [], [], []
    bounds = list(accumulate(map(len, parts)))  # bounds[i]: where part i ends
    return _lowered(parts[1::2]), bounds[:-1:2], bounds[1::2]


def _lowered(tokens: list[str]) -> list[str]:
    """Return the tokens lower-cased, with one lower() call for all of them."""
    if not tokens:
        return []
    return _JOIN.join(tokens).lower().split(_JOIN)
