"""Find re: lines in a text: each regular expression with a time limit, its matches as token
places like every other key's (spans.Found), so spans, judging and reasons treat it alike.

A match covers the tokens it touches (at most MAX_PATTERN_TOKENS of them): its span starts
and ends on word boundaries, as a word's or a phrase's does. A match touching no token (only
punctuation or spaces) is no place. An expression that runs out of time (catastrophic
backtracking on some text) keeps the places it found before, and is left for that text; all
the patterns of the index share PATTERNS_BUDGET per text, so many such patterns cannot hold
a worker either (the patterns past it are left for that text, and the log says so).
"""

from __future__ import annotations

import bisect
import logging
import time
from collections.abc import Iterable, Iterator
from functools import lru_cache

import regex

from clipping.matching.text import PreparedText
from clipping.terms import TermSyntaxError, compile_pattern

log = logging.getLogger(__name__)

# Seconds one expression may spend on one text: a backtracking pattern costs this at worst,
# per page, instead of holding a matching worker.
PATTERN_TIMEOUT = 0.25
# Seconds all the patterns of an index may spend on one text together.
PATTERNS_BUDGET = 1.0
# The most tokens a pattern's span covers: the index's place stride must exceed it.
MAX_PATTERN_TOKENS = 16


@lru_cache(maxsize=4096)
def _compiled(pattern: str) -> regex.Pattern[str] | None:
    """Return a key's expression compiled once per process (None if it no longer compiles)."""
    try:
        return compile_pattern(pattern)
    except TermSyntaxError:
        return None


def token_ranges(
    prepared: PreparedText, pattern: str, limit: int = -1, timeout: float | None = None
) -> list[tuple[int, int]]:
    """Return (first token, token count) of each match of a pattern, in text order.

    limit: the most ranges to return (all if negative). Matches inside one token count once.
    timeout: seconds it may take (PATTERN_TIMEOUT if None).
    """
    timeout = PATTERN_TIMEOUT if timeout is None else timeout
    compiled = _compiled(pattern)
    if compiled is None or not prepared.words:
        return []
    starts, ends = prepared.starts, prepared.ends
    ranges: list[tuple[int, int]] = []
    try:
        for found in compiled.finditer(prepared.text, timeout=timeout):
            start, end = found.span()
            first = bisect.bisect_right(ends, start)  # the first token ending after start
            last = bisect.bisect_left(starts, end) - 1  # the last token starting before end
            if first > last:
                continue
            place = (first, min(last - first + 1, MAX_PATTERN_TOKENS))
            if ranges and ranges[-1][0] == first:
                continue  # a second match in the token the previous one started in
            ranges.append(place)
            if len(ranges) == limit:
                break
    except TimeoutError:
        log.warning("re:%s ran out of time on a text of %d characters", pattern, len(prepared.text))
    return ranges


def all_places(
    prepared: PreparedText, found: Iterable[str], stride: int, limit: int = -1
) -> Iterator[tuple[str, list[int]]]:
    """Yield (pattern, its places: first * stride + tokens, in text order) for each pattern
    that occurs in a text, all of them within PATTERNS_BUDGET."""
    deadline = time.monotonic() + PATTERNS_BUDGET
    for pattern in found:
        left = deadline - time.monotonic()
        if left <= 0:
            log.warning(
                "re: lines ran out of their time on a text; re:%s and after skipped", pattern
            )
            return
        ranges = token_ranges(prepared, pattern, limit, min(PATTERN_TIMEOUT, left))
        if ranges:
            yield pattern, [first * stride + tokens for first, tokens in ranges]
