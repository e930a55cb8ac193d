"""Compile keyword lists into the token keys their terms match: stems, synonyms, exact phrases."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from analyzer.text import language_code, stems, tokenize
from clipping.terms import (
    MAX_TERMS,
    NOTHING_TO_LOOK_FOR,
    Term,
    TermSyntaxError,
    parse_line,
    synonyms_of,
)

# The space of quoted phrases (and of lists in a language without a stemmer): lower-cased
# words compared as they are. Every other space is named by the language whose Snowball
# stems it holds, so one index serves lists in several languages.
EXACT = ""
# Bump when a line compiles to different keys, or when its shared form (see shareable)
# changes: the shared cache's keys carry it, so workers never read another version's lines.
COMPILE_VERSION = 2
# A key is the words (or stems) of one term joined by single spaces; tokens never hold one.
SEPARATOR = " "

Key = tuple[str, str]  # (space, joined words or stems)


@dataclass(frozen=True)
class ListSpec:
    """What the index needs of one keyword list, free of the database."""

    id: int
    language: str
    terms: list[Term]
    use_synonyms: bool = True
    match_all: bool = False


class CompiledTerm(NamedTuple):
    """One term with every key that makes it match; a phrase has exactly one."""

    raw: str
    keys: tuple[Key, ...]


@dataclass(frozen=True, slots=True)
class CompiledList:
    """A keyword list reduced to keys: what to look for, what excludes, where."""

    id: int
    positives: tuple[CompiledTerm, ...]
    exclusions: tuple[CompiledTerm, ...]
    sites: tuple[str, ...]
    excluded_sites: tuple[str, ...]
    match_all: bool


@lru_cache(maxsize=256)
def stem_space(language: str) -> str:
    """Return the key space of a list's unquoted terms (EXACT when nothing stems them)."""
    return language_code(language) or EXACT


def compile_list(spec: ListSpec) -> CompiledList:
    """Turn a list's parsed terms into keys in its language, with synonyms if it wants them."""
    lines = line_cache(stem_space(spec.language), spec.use_synonyms)
    buckets: Buckets = ([], [], [], [])
    for term in spec.terms:
        bucket, value = _cached_line(lines, term.raw, term, spec.language, spec.use_synonyms)
        buckets[bucket].append(value)
    return _compiled(spec.id, buckets, spec.match_all)


def compile_text(
    list_id: int, text: str, language: str, use_synonyms: bool = True, match_all: bool = False
) -> CompiledList:
    """Compile a list straight from its stored text, reusing lines compiled before.

    The index is built from the database at start-up: popular lines recur in thousands of
    lists, so each is parsed and compiled once per process. Raises TermSyntaxError like
    parse_terms for a text the list form would have refused.
    """
    lines = line_cache(stem_space(language), use_synonyms)
    buckets: Buckets = ([], [], [], [])
    count = 0
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        count += 1
        known = lines.get(line)
        if known is None:
            try:
                known = _cached_line(lines, line, parse_line(line), language, use_synonyms)
            except TermSyntaxError as exc:
                raise TermSyntaxError(f"Line {number}: {exc}") from None
        buckets[known[0]].append(known[1])
    if count > MAX_TERMS:
        raise TermSyntaxError(f"A list holds at most {MAX_TERMS} terms; this one has {count}.")
    if not buckets[0]:
        raise TermSyntaxError(NOTHING_TO_LOOK_FOR if count else "Add at least one term.")
    return _compiled(list_id, buckets, match_all)


# Buckets of a list being compiled: terms, exclusions, sites, excluded sites.
Buckets = tuple[list, list, list, list]
# (space, use_synonyms) -> {stripped line: (bucket, compiled term or host)}. A dict per
# kind of list, keyed by the line alone, is the cheapest lookup for a million lines; it
# also makes every list holding a line share one CompiledTerm object, which the index
# recognises by identity.
CompiledLine = tuple[int, CompiledTerm | str]
_line_cache: dict[tuple[str, bool], dict[str, CompiledLine]] = {}
LINE_CACHE_SIZE = 1 << 18


# Equal compiled terms as one object (a quoted phrase compiles alike in every cache),
# so the index recognises a term by identity instead of hashing its keys.
_interned: dict[CompiledTerm, CompiledTerm] = {}


def line_cache(space: str, use_synonyms: bool) -> dict[str, CompiledLine]:
    """Return this process's compiled lines for one key space and synonym setting."""
    return _line_cache.setdefault((space, bool(use_synonyms)), {})


def unknown_lines(
    texts: Iterable[tuple[str, str, bool]],
) -> dict[tuple[str, bool], tuple[dict[str, CompiledLine], set[str]]]:
    """Return the lines of lists' stored texts that this process has not compiled yet.

    texts are (terms, language, use_synonyms); the result maps each (space, use_synonyms)
    to its line cache and its unknown lines. Sets do the work in C: a new worker asks this
    for a million lines at start-up.
    """
    wanted: dict[tuple[str, bool], set[str]] = {}
    for terms, language, use_synonyms in texts:
        kind = (stem_space(language), bool(use_synonyms))
        lines = wanted.get(kind)
        if lines is None:
            lines = wanted[kind] = set()
        lines.update(map(str.strip, terms.splitlines()))
    unknown = {}
    for kind, lines in wanted.items():
        local = line_cache(*kind)
        lines.difference_update(local.keys())
        lines.discard("")
        if lines:
            unknown[kind] = (local, lines)
    return unknown


def interned(line: CompiledLine) -> CompiledLine:
    """Return a compiled line (say, from another worker) holding this process's term object."""
    bucket, value = line
    if isinstance(value, str):
        return line
    if len(_interned) >= 2 * LINE_CACHE_SIZE:
        _interned.clear()  # only sharing is lost, never correctness
    return bucket, _interned.setdefault(value, value)


# A compiled line as other workers get it: (bucket, host) or (bucket, term, keys).
SharedLine = tuple[int, str] | tuple[int, str, tuple[Key, ...]]
_new_term = tuple.__new__  # CompiledTerm(...) runs Python code; this makes the same tuple


def shareable(line: CompiledLine) -> SharedLine:
    """Return a compiled line as plain tuples and strings, for the shared cache.

    A new worker loads every line other workers compiled: plain tuples unpickle about three
    times faster than CompiledTerm, whose class pickle looks up and calls for each line.
    """
    bucket, value = line
    if isinstance(value, str):
        return bucket, value
    return bucket, value.raw, value.keys


def from_shared(shared: SharedLine) -> CompiledLine:
    """Return a line another worker shared as this process's compiled line.

    Its strings are interned, as compile_term's are: one copy of each key in memory, and
    the very objects a page's interned stems are, so lookups compare them by identity.
    Raises ValueError for anything that is not what shareable gives.
    """
    intern = sys.intern
    try:
        if len(shared) == 2:
            bucket, host = shared
            if bucket in (2, 3) and isinstance(host, str):
                return bucket, host
        else:
            bucket, raw, keys = shared  # type: ignore[misc]
            if bucket in (0, 1) and keys:
                keys = tuple([(intern(space), intern(key)) for space, key in keys])
                return interned((bucket, _new_term(CompiledTerm, (intern(raw), keys))))
    except (TypeError, ValueError):
        pass
    raise ValueError(f"not a shared compiled line: {shared!r:.80}")


def _cached_line(
    lines: dict[str, CompiledLine], line: str, term: Term, language: str, use_synonyms: bool
) -> CompiledLine:
    """Return (bucket, value) for one parsed line, compiled once per process."""
    known = lines.get(line)
    if known is None:
        if term.site is not None:
            known = (2 + term.exclude, term.site)
        else:
            known = interned((int(term.exclude), compile_term(term, language, use_synonyms)))
        if len(lines) >= LINE_CACHE_SIZE:
            lines.clear()  # crude bound; a rebuild refills it with the lines in use
        lines[line] = known
    return known


def _compiled(list_id: int, buckets: Buckets, match_all: bool) -> CompiledList:
    positives, exclusions, sites, excluded_sites = buckets
    return CompiledList(
        id=list_id,
        positives=tuple(positives),
        exclusions=tuple(exclusions),
        sites=tuple(sites),
        excluded_sites=tuple(excluded_sites),
        match_all=match_all,
    )


def compile_term(term: Term, language: str, use_synonyms: bool) -> CompiledTerm:
    """Return a term's keys: its exact words if quoted, else its stems and its synonyms'.

    The term's own key comes first; a synonym with the same stems adds no key.
    """
    if term.phrase:
        return CompiledTerm(sys.intern(term.raw), ((EXACT, _stem_key(term.words, EXACT)),))
    space = stem_space(language)
    found = {(space, _stem_key(term.words, space)): None}
    if use_synonyms:
        for name in synonyms_of(term.words, space):
            found.setdefault((space, _stem_key(tuple(tokenize(name)), space)), None)
    return CompiledTerm(sys.intern(term.raw), tuple(found))


def _stem_key(words: tuple[str, ...], space: str) -> str:
    """Join the stems of words in a space (the words themselves in the exact space)."""
    if space == EXACT:
        return sys.intern(SEPARATOR.join(words))
    return sys.intern(SEPARATOR.join(stems(list(words), space)))
