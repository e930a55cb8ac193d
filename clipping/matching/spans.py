"""Turn what a scan found into each list's verdict and spans."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain
from typing import NamedTuple

from clipping.matching.compile import CompiledTerm
from clipping.matching.text import MatchedSpan, PreparedText
from clipping.terms import host_within

# Where a term occurs, for highlighting and for the summary around its first occurrence:
# the first places are enough, and a page repeating its topic 60 times stays cheap.
MAX_SPANS_PER_TERM = 10

Spans = tuple[MatchedSpan, ...]
Matches = dict[int, Spans]
Found = dict[int, list[tuple[int, int]]]  # concept -> [(first token, stop token)] in text order

_new_span = tuple.__new__  # three times faster than MatchedSpan(...), which is Python code


class Entry(NamedTuple):
    """What the index keeps of a list: its concepts per term position, and how to judge it."""

    positives: int
    match_all: bool
    concepts: tuple[int, ...]  # per term position, positives first
    sites: tuple[str, ...]
    excluded_sites: tuple[str, ...]


class SpanBuilder(dict[int, Spans]):
    """Build a found concept's spans on first use, once per page, shared by its lists."""

    def __init__(self, prepared: PreparedText, found: Found, terms: list[CompiledTerm | None]):
        super().__init__()
        self.prepared, self.found, self.terms = prepared, found, terms

    def __missing__(self, concept: int) -> Spans:
        starts, ends = self.prepared.starts, self.prepared.ends
        raw = self.terms[concept].raw  # type: ignore[union-attr]
        spans = self[concept] = tuple(
            [
                _new_span(MatchedSpan, (starts[first], ends[stop - 1], raw))
                for first, stop in self.found[concept][:MAX_SPANS_PER_TERM]
            ]
        )
        return spans


def judge(entry: Entry, found: Found, host: str | None, spans_of: SpanBuilder) -> Spans | None:
    """Return a list's spans if it matches: any or all terms, no exclusion, allowed host."""
    matched: list[int] = []
    for position, concept in enumerate(entry.concepts):
        if concept in found:
            if position >= entry.positives:
                return None
            matched.append(concept)
    if not matched or (entry.match_all and len(matched) < entry.positives):
        return None
    if not host_allowed(host, entry.sites, entry.excluded_sites):
        return None
    if len(matched) == 1:
        return spans_of[matched[0]]
    return merge_spans(spans_of[concept] for concept in set(matched))


def merge_spans(groups: Iterable[Spans]) -> Spans:
    """Return the spans of several terms in text order: by start, then end, then term."""
    # Spans are tuples in that field order, so the sort needs no key function.
    return tuple(sorted(chain.from_iterable(groups)))


def host_allowed(host: str | None, sites: tuple[str, ...], excluded: tuple[str, ...]) -> bool:
    """Return True if a page's (normalised) host passes a list's site: and -site: lines.

    With no host known, a list limited to sites cannot match, and exclusions cannot apply.
    """
    if sites and (host is None or not any(host_within(host, site) for site in sites)):
        return False
    return host is None or not any(host_within(host, site) for site in excluded)
