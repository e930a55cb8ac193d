"""Match lists one by one, without an index: the reference the index must agree with."""

from __future__ import annotations

from collections.abc import Iterable

from clipping.matching.compile import CompiledList, ListSpec, compile_list
from clipping.matching.keys import PATTERN_SPACE, SEPARATOR, CompiledTerm
from clipping.matching.patterns import token_ranges
from clipping.matching.spans import Matches, NewText, Spans, capped, merge_spans
from clipping.matching.text import MatchedSpan, PreparedText, prepare_text
from clipping.terms import host_within, normalize_host


class NaiveMatcher:
    """Hold compiled lists and test each against a page in turn."""

    def __init__(self, lists: Iterable[ListSpec | CompiledList]) -> None:
        self.lists = [
            item if isinstance(item, CompiledList) else compile_list(item) for item in lists
        ]

    def match(self, text: str, *, host: str | None = None, new_text: NewText = ()) -> Matches:
        """Return {list id: spans} for every list the text matches on that host."""
        return self.match_prepared(prepare_text(text), host=host, new_text=new_text)

    def match_prepared(
        self, prepared: PreparedText, *, host: str | None = None, new_text: NewText = ()
    ) -> Matches:
        """Match an already tokenised text against every list, one list at a time."""
        page = _Page(prepared, new_text)
        matches: Matches = {}
        for compiled in self.lists:
            spans = match_list(compiled, page, host)
            if spans is not None:
                matches[compiled.id] = spans
        return matches


def match_list(compiled: CompiledList, page: _Page, host: str | None) -> Spans | None:
    """Return one list's spans in a page, or None if the list does not match it.

    1. A site: line requires the host to be that site or below it; -site: forbids it.
    2. Any exclusion found rejects the page.
    3. Any positive term found matches, or every one when the list requires all terms.
    """
    normalized = normalize_host(host) if host else None
    if compiled.sites and (
        normalized is None or not any(host_within(normalized, site) for site in compiled.sites)
    ):
        return None
    if normalized and any(host_within(normalized, site) for site in compiled.excluded_sites):
        return None
    if any(page.occurrences(term) for term in compiled.exclusions):
        return None
    found = [page.occurrences(term) for term in compiled.positives]
    hits = [spans for spans in found if spans]
    if not hits or (compiled.match_all and len(hits) < len(found)):
        return None
    return merge_spans(dict.fromkeys(tuple(spans) for spans in hits), page.new_text)


class _Page:
    """A prepared text with, per key space, where each token occurs."""

    def __init__(self, prepared: PreparedText, new_text: NewText = ()) -> None:
        self.prepared, self.new_text = prepared, new_text
        self._positions: dict[str, dict[str, list[int]]] = {}

    def occurrences(self, term: CompiledTerm) -> list[MatchedSpan]:
        """Return the spans where the term's keys occur, capped as spans.capped says."""
        spans = []
        starts, ends = self.prepared.starts, self.prepared.ends
        for space, key in term.keys:
            if space == PATTERN_SPACE:
                for first, size in token_ranges(self.prepared, key):
                    spans.append(MatchedSpan(starts[first], ends[first + size - 1], term.raw))
                continue
            sequence = self.prepared.sequence(space)
            wanted = key.split(SEPARATOR)
            size = len(wanted)
            for first in self._where(space, sequence).get(wanted[0], ()):
                if sequence[first : first + size] == wanted:
                    start, end = self.prepared.starts[first], self.prepared.ends[first + size - 1]
                    spans.append(MatchedSpan(start, end, term.raw))
        return capped(sorted(spans), self.new_text)

    def _where(self, space: str, sequence: list[str]) -> dict[str, list[int]]:
        """Return {token: positions} for a space, computed once per page."""
        positions = self._positions.get(space)
        if positions is None:
            positions = self._positions[space] = {}
            for place, token in enumerate(sequence):
                positions.setdefault(token, []).append(place)
        return positions
