"""Turn what a scan found into each list's verdict and spans."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Final, NamedTuple

from clipping.matching.keys import CompiledTerm
from clipping.matching.text import MatchedSpan, PreparedText
from clipping.terms import host_within

# Where a term occurs, for highlighting and for the summary around its first occurrence:
# the first places are enough, and a page repeating its topic 60 times stays cheap.
MAX_SPANS_PER_TERM: Final = 10
# A list's spans, whatever its terms: its first ones in text order, plus as many more in
# new text (see capped). What ingest needs: the first span, the first new one, the spans
# near them for highlighting.
MAX_SPANS_PER_LIST: Final = MAX_SPANS_PER_TERM

# The id of a list or of a concept, or a span's sort key (see SpanBuilder.merged).
Id = int
Spans = tuple[MatchedSpan, ...]
Matches = dict[int, Spans]
# Where a key occurs: its first token and its number of tokens as one integer, a place:
# first * stride + tokens, where the stride is more than the tokens of the longest key.
# Places sort in text order, and a place allocates an int where a pair would be a tuple.
Found = dict[Id, list[int]]  # concept -> its places in text order

_new_span = tuple.__new__  # three times faster than MatchedSpan(...), which is Python code


class Entry(NamedTuple):
    """What the index keeps of a list: its concepts per term position, and how to judge it."""

    positives: int
    match_all: bool
    concepts: tuple[Id, ...]  # per term position, positives first
    sites: tuple[str, ...]
    excluded_sites: tuple[str, ...]


NewText = Sequence[tuple[int, int]]  # character ranges of text that is new on a page


class SpanBuilder:
    """A page's spans per found concept, built on first use and shared by the lists holding it."""

    def __init__(
        self,
        prepared: PreparedText,
        found: Found,
        terms: list[CompiledTerm | None],
        stride: int,
        new_text: NewText = (),
    ) -> None:
        self.found, self.terms, self.stride, self.new_text = found, terms, stride, new_text
        self.starts: list[Id] = prepared.starts
        self.ends: list[Id] = prepared.ends
        self.built: dict[Id, Spans] = {}
        self.kept: dict[Id, list[int]] = {}  # the places of a concept's spans, in order
        # For merging (see merged): the sort keys of each concept's spans, the span of each
        # key made so far, each found concept's rank among the page's terms, and the terms
        # in that order.
        self.keys: dict[Id, list[Id]] = {}
        self.span_of: dict[Id, MatchedSpan] = {}
        self.term_rank: dict[Id, int] = {}
        self.raws: list[str] = []

    def spans(self, concept: Id) -> Spans:
        """Return a found concept's spans: its first places, plus its places in new text."""
        spans = self.built.get(concept)
        if spans is None:
            spans = self._build(concept)
            self.built[concept] = spans
        return spans

    def merged(self, concepts: list[Id]) -> Spans:
        """Return a list's spans from several distinct concepts: its first in text order.

        Spans compare as (start, end, term), as their places and terms do: within a page
        that is the order of one small integer per span, its key (place * terms found + the
        term's rank), so the merge sorts integers (of one machine word: the fastest sort)
        and makes only the spans it keeps.
        """
        keys: list[Id] = []
        for concept in concepts:
            held = self.keys.get(concept)
            keys += self._keys(concept) if held is None else held
        keys.sort()
        if not self.new_text:
            return tuple(self._spans_of(keys[:MAX_SPANS_PER_LIST]))
        return tuple(capped(self._spans_of(keys), self.new_text, MAX_SPANS_PER_LIST))

    def _build(self, concept: Id) -> Spans:
        term = self.terms[concept]
        assert term is not None  # a found concept is held by some list
        raw, starts, ends, stride = term.raw, self.starts, self.ends, self.stride
        where = self.found[concept]
        if not self.new_text and len(where) > MAX_SPANS_PER_TERM:
            where = where[:MAX_SPANS_PER_TERM]
        spans: list[MatchedSpan] = []
        for place in where:
            first = place // stride
            last = first + place % stride - 1
            spans.append(_new_span(MatchedSpan, (starts[first], ends[last], raw)))
        if len(spans) > MAX_SPANS_PER_TERM:  # only with new text
            kept = capped(spans, self.new_text)
            place_of = dict(zip(spans, where, strict=True))  # a concept's places are distinct
            where = [place_of[span] for span in kept]
            spans = kept
        self.kept[concept] = where
        return tuple(spans)

    def _keys(self, concept: Id) -> list[Id]:
        """Return the sort keys of a concept's spans, in text order."""
        if not self.raws:
            self._rank_terms()
        rank, width = self.term_rank[concept], len(self.raws)
        kept = self.kept.get(concept)
        if kept is None:
            if self.new_text:
                self.spans(concept)  # which spans it keeps depends on their characters
                kept = self.kept[concept]
            else:
                kept = self.found[concept][:MAX_SPANS_PER_TERM]
        keys: list[Id] = [place * width + rank for place in kept]
        self.keys[concept] = keys
        return keys

    def _spans_of(self, keys: list[Id]) -> list[MatchedSpan]:
        """Return the spans of sort keys, making each on first use."""
        span_of, width, stride = self.span_of, len(self.raws), self.stride
        spans: list[MatchedSpan] = []
        for key in keys:
            span = span_of.get(key)
            if span is None:
                place, rank = divmod(key, width)
                first, tokens = divmod(place, stride)
                span = _new_span(
                    MatchedSpan,
                    (self.starts[first], self.ends[first + tokens - 1], self.raws[rank]),
                )
                span_of[key] = span
            spans.append(span)
        return spans

    def _rank_terms(self) -> None:
        """Rank the found concepts by term: ties (two terms at one place) go by term."""
        order: list[tuple[str, Id]] = []
        for concept in self.found:
            term = self.terms[concept]
            assert term is not None
            order.append((term.raw, concept))
        order.sort()
        term_rank, raws = self.term_rank, self.raws
        for rank, (raw, concept) in enumerate(order):
            term_rank[concept] = rank
            raws.append(raw)


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
    matched: list[Id] = []
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
        return spans_of.spans(matched[0])
    return spans_of.merged(list(set(matched)))


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
