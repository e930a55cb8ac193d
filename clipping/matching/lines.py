"""Compiled lines: this process's caches of them, one object per equal term, and their
shared form, which other workers load instead of compiling them again.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from clipping.matching.keys import (
    LINE_CACHE_SIZE,
    CompiledTerm,
    Key,
    compile_term,
    new_term,
    stem_space,
)
from clipping.matching.resolution import needs_resolution, resolution, resolved_keys
from clipping.matching.synonyms import Choices, Effective
from clipping.terms import Term, TermSyntaxError

# Bump when a line compiles to different keys, or when its shared form (see shareable)
# changes: the shared cache's keys carry it, so workers never read another version's lines.
COMPILE_VERSION = 5
# (space, use_synonyms) -> {stripped line: (bucket, compiled term or host)}. A dict per
# kind of list, keyed by the line alone, is the cheapest lookup for a million lines; it
# also makes every list holding a line share one CompiledTerm object, which the index
# recognises by identity.
CompiledLine = tuple[int, CompiledTerm | str]
_line_cache: dict[tuple[str, bool], dict[str, CompiledLine]] = {}


# Equal compiled terms as one object (a quoted phrase compiles alike in every cache),
# so the index recognises a term by identity instead of hashing its keys.
_interned: dict[CompiledTerm, CompiledTerm] = {}


def line_cache(space: str, use_synonyms: bool) -> dict[str, CompiledLine]:
    """Return this process's compiled lines for one key space and synonym setting."""
    return _line_cache.setdefault((space, bool(use_synonyms)), {})


def unknown_lines(
    texts: Iterable[tuple[str, str, bool] | tuple[str, str, bool, Choices | None]],
) -> dict[tuple[str, bool], tuple[dict[str, CompiledLine], set[str]]]:
    """Return the line keys (see line_key) of lists' stored texts not compiled here yet.

    texts are (terms, language, use_synonyms[, choices]); the result maps each (space,
    use_synonyms) to its line cache and its unknown line keys. Sets do the work in C: a new
    worker asks this for a million lines at start-up. A text that does not parse is left
    for compile_text to refuse.
    """
    wanted: dict[tuple[str, bool], set[str]] = {}
    for terms, language, use_synonyms, *rest in texts:
        kind = (stem_space(language), bool(use_synonyms))
        lines = wanted.get(kind)
        if lines is None:
            lines = wanted[kind] = set()
        if not needs_resolution(language, use_synonyms):
            lines.update(map(str.strip, terms.splitlines()))
            continue
        try:
            lines.update(resolved_keys(resolution(terms, language, use_synonyms, *rest)))
        except TermSyntaxError:
            continue
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


# A compiled line as other workers get it: (bucket, host) or (bucket, term, keys, notes).
SharedLine = tuple[int, str] | tuple[int, str, tuple[Key, ...], tuple[str, ...]]


def shareable(line: CompiledLine) -> SharedLine:
    """Return a compiled line as plain tuples and strings, for the shared cache.

    A new worker loads every line other workers compiled: plain tuples unpickle about three
    times faster than CompiledTerm, whose class pickle looks up and calls for each line.
    """
    bucket, value = line
    if isinstance(value, str):
        return bucket, value
    return bucket, value.raw, value.keys, value.notes


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
            bucket, raw, keys, notes = shared
            if bucket in (0, 1) and keys and len(notes) in (0, len(keys)):
                keys = tuple([(intern(space), intern(key)) for space, key in keys])
                notes = tuple(str(note) for note in notes)
                return interned((bucket, new_term(CompiledTerm, (intern(raw), keys, notes))))
    except (TypeError, ValueError):
        pass
    raise ValueError(f"not a shared compiled line: {shared!r:.80}")


def cached_line(
    lines: dict[str, CompiledLine], line: str, term: Term, language: str, effective: Effective
) -> CompiledLine:
    """Return (bucket, value) for one parsed line (keyed by line_key), compiled once."""
    known = lines.get(line)
    if known is None:
        if term.site is not None:
            known = (2 + term.exclude, term.site)
        else:
            known = interned((int(term.exclude), compile_term(term, language, effective)))
        if len(lines) >= LINE_CACHE_SIZE:
            lines.clear()  # crude bound; a rebuild refills it with the lines in use
        lines[line] = known
    return known
