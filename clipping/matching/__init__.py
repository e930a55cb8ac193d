"""Match texts against every active keyword list: compile, index, match, and a naive reference."""

from __future__ import annotations

from clipping.matching.compile import CompiledList, ListSpec, compile_list, compile_text
from clipping.matching.index import KeywordIndex
from clipping.matching.keys import EXACT, CompiledTerm
from clipping.matching.naive import NaiveMatcher, match_list
from clipping.matching.spans import MAX_SPANS_PER_LIST, MAX_SPANS_PER_TERM, Matches, Spans
from clipping.matching.text import MatchedSpan, PreparedText, prepare_text

__all__ = [
    "EXACT",
    "MAX_SPANS_PER_LIST",
    "MAX_SPANS_PER_TERM",
    "Spans",
    "compile_text",
    "current_index",
    "refresh_index",
    "CompiledList",
    "CompiledTerm",
    "KeywordIndex",
    "ListSpec",
    "MatchedSpan",
    "Matches",
    "NaiveMatcher",
    "PreparedText",
    "compile_list",
    "match_list",
    "prepare_text",
]


def current_index() -> KeywordIndex:
    """Return this process's index of every active list, kept in step with the database."""
    # Imported here: the rest of the package is pure and runs without Django (benchmarks).
    from clipping.matching.live import current_index as shared_index  # noqa: PLC0415

    return shared_index()


def refresh_index() -> tuple[int, int]:
    """Apply the database's list changes to this process's index now: (added, removed)."""
    from clipping.matching.live import refresh_index as refresh  # noqa: PLC0415

    return refresh()
