"""Turn what a scan found into each list's verdict and spans."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain
from typing import NamedTuple

from clipping.matching.compile import CompiledTerm
from clipping.matching.text import MatchedSpan, PreparedText
from clipping.terms import host_within

# Where a term occurs, for highlighting and for the summary around its first occurrence:
# the first places are enough, and a page repeating its topic 60 times stays cheap.
MAX_SPANS_PER_TERM = 10
# A list's spans, whatever its terms: its first ones in text order, plus as many more in
# new text (see capped). What ingest needs: the first span, the first new one, the spans
# near them for highlighting.
MAX_SPANS_PER_LIST = MAX_SPANS_PER_TERM

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


NewText = Sequence[tuple[int, int]]  # character ranges of text that is new on a page


class SpanBuilder(dict[int, Spans]):
    """Build a found concept's spans on first use, once per page, shared by its lists."""

    def __init__(
        self,
        prepared: PreparedText,
        found: Found,
        terms: list[CompiledTerm | None],
        new_text: NewText = (),
    ):
        super().__init__()
        self.prepared, self.found, self.terms, self.new_text = prepared, found, terms, new_text
        # What the C loops (index.py) need to build a concept's spans in this dict themselves,
        # as __missing__ does here.
        self.context = (
            found,
            terms,
            prepared.starts,
            prepared.ends,
            MatchedSpan,
            MAX_SPANS_PER_TERM,
        )
        # For merging: each concept's spans as integers in text order, and their spans.
        self._ranks = _Ranks(self)
        self._span_of: dict[int, MatchedSpan] = {}

    def __missing__(self, concept: int) -> Spans:
        starts, ends = self.prepared.starts, self.prepared.ends
        raw = self.terms[concept].raw  # type: ignore[union-attr]
        where = self.found[concept]
        if not self.new_text:
            where = where[:MAX_SPANS_PER_TERM]
        spans = tuple(
            [_new_span(MatchedSpan, (starts[first], ends[stop - 1], raw)) for first, stop in where]
        )
        if len(spans) > MAX_SPANS_PER_TERM:
            spans = tuple(capped(spans, self.new_text))
        self[concept] = spans
        return spans

    def merged(self, concepts: Iterable[int]) -> Spans:
        """Return a list's spans from several distinct concepts: its first in text order.

        Spans compare as (start, end, term); within a page that is the order of one integer
        per span (start, end, the term's rank on the page), so the merge sorts integers and
        makes no span it does not keep.
        """
        ranks = sorted(chain.from_iterable(map(self._ranks.__getitem__, concepts)))
        if not self.new_text:
            return tuple(map(self._span_of.__getitem__, ranks[:MAX_SPANS_PER_LIST]))
        spans = map(self._span_of.__getitem__, ranks)
        return tuple(capped(spans, self.new_text, MAX_SPANS_PER_LIST))


class _Ranks(dict[int, list[int]]):
    """A found concept's spans as integers in text order, made on first use per page."""

    def __init__(self, spans_of: SpanBuilder) -> None:
        super().__init__()
        self.spans_of = spans_of
        self.term_rank: dict[int, int] = {}

    def __missing__(self, concept: int) -> list[int]:
        spans_of, term_rank = self.spans_of, self.term_rank
        if not term_rank:
            # Ties (two terms at the same place) go by term, as the spans' order says.
            terms = spans_of.terms
            raws = [terms[found].raw for found in spans_of.found]  # type: ignore[union-attr]
            order = sorted(zip(raws, spans_of.found, strict=True))
            term_rank.update((found, rank) for rank, (_, found) in enumerate(order))
        spans = spans_of[concept]
        width = len(term_rank)
        size = (len(spans_of.prepared.text) + 1) * width
        rank = term_rank[concept]
        ranks = [start * size + end * width + rank for start, end, _ in spans]
        spans_of._span_of.update(zip(ranks, spans, strict=True))
        self[concept] = ranks
        return ranks


def capped(
    spans: Iterable[MatchedSpan], new_text: NewText, limit: int = MAX_SPANS_PER_TERM
) -> list[MatchedSpan]:
    """Keep the first spans, and the first ones in new text (ordered spans in and out).

    A term (or a list) repeated all over a page keeps limit spans for highlighting and
    the summary, plus up to as many in the new text, so a page whose new sentence repeats
    a term already seen many times still shows, and notifies, that occurrence.
    """
    kept: list[MatchedSpan] = []
    extra = 0
    for span in spans:
        if len(kept) < limit:
            kept.append(span)
        elif extra < limit and in_new_text(span, new_text):
            kept.append(span)
            extra += 1
    return kept


def in_new_text(span: MatchedSpan, new_text: NewText) -> bool:
    """Return True if a span overlaps one of the new text's character ranges."""
    return any(span.start < end and start < span.end for start, end in new_text)


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
    return spans_of.merged(set(matched))


def merge_spans(groups: Iterable[Spans], new_text: NewText = ()) -> Spans:
    """Return a list's spans from its terms' spans: in text order (by start, then end, then
    term), the first MAX_SPANS_PER_LIST, plus as many more in new text (see capped)."""
    # Spans are tuples in that field order, so the sort needs no key function.
    return tuple(capped(sorted(chain.from_iterable(groups)), new_text, MAX_SPANS_PER_LIST))


def host_allowed(host: str | None, sites: tuple[str, ...], excluded: tuple[str, ...]) -> bool:
    """Return True if a page's (normalised) host passes a list's site: and -site: lines.

    With no host known, a list limited to sites cannot match, and exclusions cannot apply.
    """
    if sites and (host is None or not any(host_within(host, site) for site in sites)):
        return False
    return host is None or not any(host_within(host, site) for site in excluded)
