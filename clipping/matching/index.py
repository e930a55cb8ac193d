"""One in-memory index of every active keyword list: an inverted index on token n-gram keys.

Layout (measured against an Aho-Corasick automaton in bench/matching.py):

- A key space per language (Snowball stems) plus one for exact words (quoted phrases).
  Each space maps a key ("stock market" as stems) to the concepts that hold it. It also
  keeps, per first word of a key, the second words that can follow ("" if the word alone
  is a key), and the longer prefixes, so a scan looks up each distinct word of a page once
  and extends an n-gram only while some key starts with it.
- A concept is a distinct compiled term (its line and its keys, synonyms included).
  Thousands of lists share popular terms, so a concept is stored once, and its spans in a
  page are built once and shared by every list that holds it. Its postings are the ids of
  its lists, in two groups: lists that match as soon as any term is found, and lists that
  need judging (exclusions, sites, all terms).
- re: lines keep their expressions in a space of their own, looked for in the text
  (clipping.matching.patterns) instead of scanned by tokens; their places are alike.
- Adding or removing a list touches only its own terms' concepts and keys.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final

from clipping.matching.compile import CompiledList, ListSpec, compile_list
from clipping.matching.keys import PATTERN_SPACE, SEPARATOR, CompiledTerm
from clipping.matching.patterns import MAX_PATTERN_TOKENS, all_places
from clipping.matching.spans import (
    MAX_SPANS_PER_TERM,
    Entry,
    Found,
    Id,
    Matches,
    NewText,
    SpanBuilder,
    Spans,
    judge,
)
from clipping.matching.text import PreparedText, prepare_text
from clipping.terms import normalize_host

ALONE: Final = ""  # in _Space.follows, what follows a word that is a key by itself: no token


@dataclass(slots=True)
class _Space:
    """The keys of one language (or of exact words)."""

    concepts: dict[str, list[Id]] = field(default_factory=dict)
    # A key's first word -> {its second word, or ALONE: uses}
    follows: dict[str, dict[str, int]] = field(default_factory=dict)
    prefixes: dict[str, int] = field(default_factory=dict)  # prefixes of 2+ words -> uses


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building millions of acyclic objects."""
    # Every few hundred allocations the collector walks the young objects; during a build
    # that is a third of the time, for containers that never form a cycle.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class KeywordIndex:
    """Every active list's terms in one structure that matches a page in one pass."""

    def __init__(self) -> None:
        self.version = 0
        self._spaces: dict[str, _Space] = {}
        self._concept_ids: dict[CompiledTerm, Id] = {}
        self._by_identity: dict[int, Id] = {}  # id(stored term) -> concept
        self._terms: list[CompiledTerm | None] = []  # per concept; None once dropped
        self._simple: list[list[Id]] = []  # per concept: lists matched by any term found
        self._judged: list[list[Id]] = []  # per concept: lists to judge
        self._free: list[Id] = []  # dropped concept ids, reused first
        self._lists: dict[Id, Entry] = {}
        self._longest = 1  # words in the longest key ever added: places' stride - 1

    @classmethod
    def build(cls, lists: Iterable[ListSpec | CompiledList]) -> KeywordIndex:
        """Return an index holding every given list."""
        index = cls()
        with paused_gc():
            for item in lists:
                index.add(item)
        return index

    def __len__(self) -> int:
        return len(self._lists)

    def __contains__(self, list_id: object) -> bool:
        return list_id in self._lists

    def list_ids(self) -> set[int]:
        """Return the ids of the lists in the index."""
        return set(self._lists)

    def add(self, item: ListSpec | CompiledList) -> None:
        """Add a list, replacing any list with the same id."""
        compiled = item if isinstance(item, CompiledList) else compile_list(item)
        list_id: Id = compiled.id
        if list_id in self._lists:
            self.remove(list_id)
        positives = len(compiled.positives)
        sites, excluded_sites = compiled.sites, compiled.excluded_sites
        terms = compiled.positives + compiled.exclusions
        judged = compiled.match_all or len(terms) > positives or bool(sites or excluded_sites)
        postings = self._judged if judged else self._simple
        # Compiled terms are shared objects when they come from compile_text's cache: their
        # identity finds their concept without hashing their keys.
        by_identity, stored = self._by_identity, self._terms
        found: list[Id] = []
        for term in terms:
            concept = by_identity.get(id(term))
            if concept is None or stored[concept] is not term:
                concept = self._concept(term)
            if concept not in found:  # the same line twice: one posting, two positions
                postings[concept].append(list_id)
            found.append(concept)
        concepts = tuple(found)
        self._lists[list_id] = Entry(positives, compiled.match_all, concepts, sites, excluded_sites)
        self.version += 1

    def remove(self, list_id: int) -> bool:
        """Remove a list; return False if it was not in the index."""
        entry = self._lists.pop(list_id, None)
        if entry is None:
            return False
        for concept in set(entry.concepts):
            simple, judged = self._simple[concept], self._judged[concept]
            for postings in (simple, judged):
                if list_id in postings:
                    postings.remove(list_id)
            if not simple and not judged:
                self._drop_concept(concept)
        self.version += 1
        return True

    def match(self, text: str, *, host: str | None = None, new_text: NewText = ()) -> Matches:
        """Return {list id: spans in text order} for every list the text matches on that host.

        A term's spans are its first MAX_SPANS_PER_TERM, plus up to as many more in the
        character ranges new_text (see spans.capped); a list's, the first MAX_SPANS_PER_LIST
        of its terms' spans in text order, plus up to as many more in new_text.
        """
        return self.match_prepared(prepare_text(text), host=host, new_text=new_text)

    def match_prepared(
        self, prepared: PreparedText, *, host: str | None = None, new_text: NewText = ()
    ) -> Matches:
        """Match an already tokenised text (its stems are computed once per language).

        1. Scan the text once per key space: which concepts occur, where.
        2. Walk those concepts' postings: a list that needs no judging matches, with the
           spans of the concepts found (shared as they are when there is one, else its
           first ones in text order, see SpanBuilder.merged).
        3. Judge the lists with exclusions, sites or "all terms".
        """
        with paused_gc():  # thousands of short-lived tuples and lists, none in a cycle
            return self._match(prepared, host, new_text)

    def _match(self, prepared: PreparedText, host: str | None, new_text: NewText) -> Matches:
        # A concept's spans are its first places, and all of them in new text: without new
        # text, no key needs more places than that.
        found = self._scan(prepared, MAX_SPANS_PER_TERM if not new_text else -1)
        if not found:
            return {}
        spans_of = SpanBuilder(prepared, found, self._terms, self._longest + 1, new_text)
        matches, judged = self._collect(found, spans_of)
        if judged:
            host = normalize_host(host) if host else None
            for list_id in judged:
                entry = self._lists.get(list_id)  # None if removed while this page matched
                spans = None if entry is None else judge(entry, found, host, spans_of)
                if spans is not None:
                    matches[list_id] = spans
        return matches

    def _collect(self, found: Found, spans_of: SpanBuilder) -> tuple[Matches, set[Id]]:
        """Walk the found concepts' postings: the simple lists' matches, the lists to judge."""
        simple, judged_postings = self._simple, self._judged
        concepts_of: dict[Id, list[Id]] = {}  # list -> the concepts found, in scan order
        judged: set[Id] = set()
        for concept in found:
            for list_id in simple[concept]:
                held = concepts_of.get(list_id)
                if held is None:
                    concepts_of[list_id] = [concept]
                else:
                    held.append(concept)
            to_judge = judged_postings[concept]
            if to_judge:
                judged.update(to_judge)
        matches: dict[Id, Spans] = {}
        for list_id, concepts in concepts_of.items():
            if len(concepts) == 1:
                matches[list_id] = spans_of.spans(concepts[0])
            else:
                matches[list_id] = spans_of.merged(concepts)
        return matches, judged

    def _scan(self, prepared: PreparedText, limit: int = -1) -> Found:
        """Return {concept: its places (see spans.Found) in text order} for keys in the text.

        A key's first limit places only (all if limit < 0); a concept found by several
        keys may hold more, in text order, of which its first limit are the text's first.

        1. Per key space, visit only the tokens that start some key, and extend an n-gram
           only while some longer key starts with it: {key: places}.
        2. Give each key's places to the concepts that hold it; a concept found by several
           keys (a word and its synonyms) gets them sorted into text order.
        """
        found: Found = {}
        several_keys: list[Id] = []
        for space_name, space in self._spaces.items():
            if space_name == PATTERN_SPACE:
                _find_patterns(prepared, space, self._longest + 1, found, several_keys, limit)
            elif space.concepts:
                sequence = prepared.sequence(space_name)
                _scan_space(sequence, space, self._longest + 1, found, several_keys, limit)
        for concept in several_keys:
            found[concept].sort()
        return found

    def _concept(self, term: CompiledTerm) -> Id:
        """Return the concept of a compiled term, storing it with its keys on first sight."""
        concept: Id | None = self._concept_ids.get(term)
        if concept is not None:
            return concept
        if self._free:
            concept = self._free.pop()
            self._terms[concept], self._simple[concept], self._judged[concept] = term, [], []
        else:
            concept = len(self._terms)
            self._terms.append(term)
            self._simple.append([])
            self._judged.append([])
        self._concept_ids[term] = concept
        self._by_identity[id(term)] = concept
        for space_name, key in term.keys:
            space = self._spaces.get(space_name)
            if space is None:
                space = self._spaces[space_name] = _Space()
            holders = space.concepts.setdefault(key, [])
            if concept not in holders:
                holders.append(concept)
                words = MAX_PATTERN_TOKENS if space_name == PATTERN_SPACE else 0
                words = words or _count_prefixes(space, key, 1)
                self._longest = max(self._longest, words)
        return concept

    def _drop_concept(self, concept: Id) -> None:
        """Forget a concept no list uses any more, with its keys and their prefixes."""
        term = self._terms[concept]
        assert term is not None
        del self._concept_ids[term], self._by_identity[id(term)]
        self._terms[concept] = None
        self._free.append(concept)
        for space_name, key in term.keys:
            space = self._spaces[space_name]
            holders = space.concepts.get(key)
            if holders is None or concept not in holders:
                continue  # the same key twice in one concept was released already
            holders.remove(concept)
            if not holders:
                del space.concepts[key]
            if space_name != PATTERN_SPACE:
                _count_prefixes(space, key, -1)


def _scan_space(
    sequence: list[str],
    space: _Space,
    stride: int,
    found: Found,
    several_keys: list[Id],
    limit: int,
) -> None:
    """Add the places of one space's keys to found (KeywordIndex._scan, step 1 and 2)."""
    concepts, follows, prefixes = space.concepts, space.follows, space.prefixes
    last = len(sequence) - 1
    # The tokens that are a key or start one, with the words that can follow them.
    seconds_of = {token: follows[token] for token in follows.keys() & set(sequence)}
    places: dict[str, list[int]] = {
        token: [] for token, seconds in seconds_of.items() if ALONE in seconds
    }
    for first, token in enumerate(sequence):
        seconds = seconds_of.get(token)
        if seconds is None:
            continue
        held = places.get(token)
        if held is not None:
            held.append(first * stride + 1)
        if first == last:
            continue
        # Longer keys: extend an n-gram only while some key starts with it.
        second = sequence[first + 1]
        if second not in seconds:
            continue
        key, stop = token + SEPARATOR + second, first + 2
        while True:
            if key in concepts:
                held = places.get(key)
                if held is None:
                    places[key] = [first * stride + stop - first]
                else:
                    held.append(first * stride + stop - first)
            if stop > last or key not in prefixes:
                break
            key = key + SEPARATOR + sequence[stop]
            stop += 1
    for key, where in places.items():
        if 0 <= limit < len(where):
            where = where[:limit]
        for concept in concepts[key]:
            held = found.get(concept)
            if held is None:
                found[concept] = where  # shared by the key's concepts, never changed
            else:
                found[concept] = held + where
                several_keys.append(concept)


def _find_patterns(
    prepared: PreparedText,
    space: _Space,
    stride: int,
    found: Found,
    several_keys: list[Id],
    limit: int,
) -> None:
    """Add the places of the pattern space's expressions to found, as _scan_space does."""
    for pattern, where in all_places(prepared, space.concepts, stride, limit):
        for concept in space.concepts[pattern]:
            held = found.get(concept)
            if held is None:
                found[concept] = where
            else:  # not reached by a pattern's own concept, which has one key
                found[concept] = held + where
                several_keys.append(concept)


def _count_prefixes(space: _Space, key: str, change: int) -> int:
    """Count a key's first one or two words and longer prefixes in or out of a space.

    Return the key's number of words.
    """
    words = key.split(SEPARATOR)
    seconds = space.follows.setdefault(words[0], {})
    _bump(seconds, words[1] if len(words) > 1 else ALONE, change)
    if not seconds:
        del space.follows[words[0]]
    for size in range(2, len(words)):
        _bump(space.prefixes, SEPARATOR.join(words[:size]), change)
    return len(words)


def _bump(counts: dict[str, int], key: str, change: int) -> None:
    """Add change to a use count, dropping the key at zero."""
    left = counts.get(key, 0) + change
    if left:
        counts[key] = left
    else:
        del counts[key]
