"""A list's lines keyed: each line's synonyms resolved (alone, or among the list's other
lines and the owner's switches), and the line's key in a line cache (lines.py).

Resolutions are remembered per process, and seeded from what other workers resolved
(clipping.matching.shared), so a new worker needs no WordNet for the lists they resolved.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable
from functools import lru_cache

from analyzer.text.wordnet import has_thesaurus
from clipping.matching.keys import LINE_CACHE_SIZE, stem_space
from clipping.matching.synonyms import Choices, Effective, alone_synonyms, effective_synonyms
from clipping.terms import Term, TermSyntaxError, parse_line

# Between a line and what its synonyms resolved to, in a line cache's key.
RESOLVED = "\x00"


def keyed_lines(
    text: str, language: str, use_synonyms: bool, choices: Choices | None = None
) -> list[tuple[str, Term, Effective]]:
    """Return (line cache key, term, its synonyms) for every line of a list's stored text.

    Most lines are keyed alone (see alone_synonyms): by a lookup once keyed in any list. A
    list is resolved as a whole only when some line's synonyms depend on its other lines
    or on the person's switches. Raises TermSyntaxError, naming the line, for a line the
    list form would have refused.
    """
    if choices:
        return _keyed_in_context(text, language, use_synonyms, choices)
    alone = _alone[bool(use_synonyms) and has_thesaurus(language)]
    lines = [line for line in map(str.strip, text.splitlines()) if line]
    known: list[KeyedLine | None] = list(map(alone.get, lines))
    if None not in known:
        return known  # type: ignore[return-value]
    for at, entry in enumerate(known):
        if entry is None:
            try:
                term = _parsed(lines[at])
            except TermSyntaxError:
                return _keyed_in_context(text, language, use_synonyms, None)  # names the line
            effective = alone_synonyms(term, language, use_synonyms)
            if effective is None:
                return _keyed_in_context(text, language, use_synonyms, None)
            if len(alone) >= LINE_CACHE_SIZE:
                alone.clear()  # only time is lost
            known[at] = alone[term.raw] = (_resolved_key(term.raw, effective), term, effective)
    return known  # type: ignore[return-value]


def _keyed_in_context(
    text: str, language: str, use_synonyms: bool, choices: Choices | None
) -> list[KeyedLine]:
    """Return keyed_lines, every term's synonyms resolved among the list's other terms."""
    terms = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line:
            try:
                terms.append(_parsed(line))
            except TermSyntaxError as exc:
                raise TermSyntaxError(f"Line {number}: {exc}") from None
    resolved = effective_synonyms(terms, language, use_synonyms, choices)
    return [
        (_resolved_key(term.raw, effective), term, effective)
        for term, effective in zip(terms, resolved, strict=True)
    ]


KeyedLine = tuple[str, Term, Effective]
# {synonyms wanted: {stripped line: its keyed_lines entry}} for lines whose synonyms no
# other line of a list changes (most lines; all when synonyms are off), filled as lists are
# keyed: most lists are then keyed by a lookup per line, with no parsing and no WordNet.
_alone: dict[bool, dict[str, KeyedLine]] = {False: {}, True: {}}


# {(line, id of its synonyms): (those synonyms, the line's key)}: the synonyms of a line
# are one cached object per resolution (see synonyms.effective_synonyms), so its key is
# worked out once, not once per list; the entry holds them, so their id stays theirs.
_line_keys: dict[tuple[str, int], tuple[Effective, str]] = {}


def _resolved_key(line: str, effective: Effective) -> str:
    """Return sys.intern(line_key(line, effective)), worked out once per resolution."""
    if not effective:
        return line  # interned by _parsed
    known = _line_keys.get((line, id(effective)))
    if known is not None and known[0] is effective:
        return known[1]
    key = sys.intern(line_key(line, effective))
    if len(_line_keys) >= LINE_CACHE_SIZE:
        _line_keys.clear()  # only time is lost
    _line_keys[line, id(effective)] = (effective, key)
    return key


FrozenChoices = tuple[tuple[str, tuple[tuple[str, bool], ...]], ...]
# {(text, language, use_synonyms, frozen choices): its line keys} as other workers resolved
# them (clipping.matching.shared): a new worker then needs no WordNet for those lists.
Resolution = tuple[str, str, bool, FrozenChoices]
resolutions: dict[Resolution, tuple[str, ...]] = {}


def resolution(
    text: str, language: str, use_synonyms: bool, choices: Choices | None = None
) -> Resolution:
    """Return what identifies a list's resolution: its text and whatever else it depends on."""
    return (text, language, bool(use_synonyms), frozen_choices(choices))


def resolved_keys(found: Resolution) -> tuple[str, ...]:
    """Return the line keys of a list's stored text, resolved here unless shared.

    Raises TermSyntaxError as keyed_lines does.
    """
    known = resolutions.get(found)
    if known is None:
        known = tuple([key for key, _, _ in cached_keyed_lines(*found)])
        _remember(found, known)  # asked again when the list is compiled and shared
    return known


def needs_resolution(language: str, use_synonyms: bool) -> bool:
    """Return True if a list's line keys depend on WordNet (else they are its lines)."""
    return bool(use_synonyms) and stem_space(language) == "en"


def shared_resolution(keys: tuple[str, ...]) -> tuple[str | None, ...]:
    """Return a list's line keys as shared: None for a line that is its own key (most)."""
    return tuple([key if RESOLVED in key else None for key in keys])


def seed_resolution(found: Resolution, shared: Iterable[str | None]) -> None:
    """Remember the line keys another worker resolved a list's text to (shared_resolution).

    Raises ValueError if they do not fit the list's lines.
    """
    lines = [line for line in map(str.strip, found[0].splitlines()) if line]
    keys = tuple(
        sys.intern(line if key is None else key) for line, key in zip(lines, shared, strict=True)
    )
    _remember(found, keys)


def _remember(found: Resolution, keys: tuple[str, ...]) -> None:
    if len(resolutions) >= LINE_CACHE_SIZE:
        resolutions.clear()  # only time is lost
    resolutions[found] = keys


def frozen_choices(choices: Choices | None) -> FrozenChoices:
    """Return a list's synonym switches as nested tuples, for a cache key."""
    if not choices:
        return ()
    return tuple(sorted((line, tuple(sorted(own.items()))) for line, own in choices.items()))


@lru_cache(maxsize=1 << 17)
def cached_keyed_lines(
    text: str, language: str, use_synonyms: bool, choices: FrozenChoices
) -> list[tuple[str, Term, Effective]]:
    """Return keyed_lines, cached: a new worker asks for every list twice (unknown_lines,
    then compile_text). Callers must not change the list returned."""
    own = {line: dict(switches) for line, switches in choices}
    return keyed_lines(text, language, use_synonyms, own)


@lru_cache(maxsize=1 << 18)
def _parsed(line: str) -> Term:
    """Parse a stripped line once per process: popular lines recur in thousands of lists.

    Its raw line is interned: it is the line key of most lines (see _resolved_key).
    """
    return parse_line(sys.intern(line))


def line_key(line: str, effective: Effective) -> str:
    """Return a line's key in a line cache: the line, and a digest of its synonyms if it has
    any (short: a new worker reads a million keys from the shared cache)."""
    if not effective:
        return line
    return line + RESOLVED + hashlib.blake2b(repr(effective).encode(), digest_size=8).hexdigest()
