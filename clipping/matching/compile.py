"""Compile keyword lists into the token keys their terms match: stems, synonyms, exact phrases.

A term's own key holds the stems of its words, so every form of them matches. Synonyms
(clipping.matching.synonyms: the senses the term most likely means, and the owner's
switches) match by their own word forms in the exact space: a synonym's stem may be another
word's ("authorities" and "authors" share "author"). A phrase WordNet does not hold matches
by parts: each word by one of its forms or by a synonym of that word, in order, as one key
per combination ("rail strike" also as "rail work stoppage(s)", "railed work stoppage" ...).
"""

from __future__ import annotations

import hashlib
import itertools
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple, cast

from analyzer.text import language_code, stems, stopwords, tokenize
from analyzer.text.wordnet import has_thesaurus, irregular_forms, variants, word_forms
from clipping.matching.synonyms import (
    WHOLE,
    Choices,
    Effective,
    alone_synonyms,
    effective_synonyms,
)
from clipping.terms import (
    MAX_TERMS,
    NOTHING_TO_LOOK_FOR,
    Term,
    TermSyntaxError,
    parse_line,
)

# The space of quoted phrases (and of lists in a language without a stemmer): lower-cased
# words compared as they are. Every other space is named by the language whose Snowball
# stems it holds, so one index serves lists in several languages.
EXACT = ""
# Bump when a line compiles to different keys, or when its shared form (see shareable)
# changes: the shared cache's keys carry it, so workers never read another version's lines.
COMPILE_VERSION = 4
# A key is the words (or stems) of one term joined by single spaces; tokens never hold one.
SEPARATOR = " "

Key = tuple[str, str]  # (space, joined words or stems)
# Combinations of forms and synonyms one phrase may expand to: the phrases with the fewest
# synonyms come first, so a long phrase with many synonyms loses only its rarest variants.
MAX_KEYS_PER_TERM = 400
# Between a line and what its synonyms resolved to, in a line cache's key.
RESOLVED = "\x00"


@dataclass(frozen=True)
class ListSpec:
    """What the index needs of one keyword list, free of the database."""

    id: int
    language: str
    terms: list[Term]
    use_synonyms: bool = True
    match_all: bool = False
    choices: Mapping[str, Mapping[str, bool]] = field(default_factory=dict)


class CompiledTerm(NamedTuple):
    """One term with every key that makes it match; a quoted phrase has exactly one.

    notes: per key, which synonyms it stands for, as "word>synonym>sense" joined by ";"
    ("" for the term's own key): what tells a person why a clip matched.
    """

    raw: str
    keys: tuple[Key, ...]
    notes: tuple[str, ...] = ()


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
    resolved = effective_synonyms(spec.terms, spec.language, spec.use_synonyms, spec.choices)
    for term, effective in zip(spec.terms, resolved, strict=True):
        key = line_key(term.raw, effective)
        bucket, value = _cached_line(lines, key, term, spec.language, effective)
        buckets[bucket].append(value)
    return _compiled(spec.id, buckets, spec.match_all)


def compile_text(
    list_id: int,
    text: str,
    language: str,
    use_synonyms: bool = True,
    match_all: bool = False,
    choices: Choices | None = None,
) -> CompiledList:
    """Compile a list straight from its stored text, reusing lines compiled before.

    The index is built from the database at start-up: popular lines recur in thousands of
    lists, so each is parsed and compiled once per process (once per resolution of its
    synonyms, which depends on the list's other terms). Raises TermSyntaxError like
    parse_terms for a text the list form would have refused.
    """
    lines = line_cache(stem_space(language), use_synonyms)
    buckets: Buckets = ([], [], [], [])
    frozen = _frozen(choices)
    resolved: Sequence[str] | None
    known: list[CompiledLine | None] | None = None
    if needs_resolution(language, use_synonyms):
        resolved = _resolutions.get((text, language, bool(use_synonyms), frozen))
    else:  # its line keys are its lines
        resolved = [line for line in map(str.strip, text.splitlines()) if line]
    if resolved is not None and len(resolved) <= MAX_TERMS:
        known = [lines.get(key) for key in resolved]
        if None not in known:  # every line compiled or shared already: no parsing, no WordNet
            positives = [value for bucket, value in known if not bucket]  # type: ignore[misc]
            if positives and len(positives) == len(known):  # most lists: terms only
                terms = cast(list[CompiledTerm], positives)
                return CompiledList(list_id, tuple(terms), (), (), (), match_all)
            for bucket, value in known:  # type: ignore[misc]
                buckets[bucket].append(value)
            if buckets[0]:  # else parsed below, to be refused as compile_text refuses it
                return _compiled(list_id, buckets, match_all)
            buckets = ([], [], [], [])
    keyed = _keyed(text, language, use_synonyms, frozen)
    looked: Sequence[str | None] = [None] * len(keyed)
    if resolved is not None and known is not None and len(known) == len(keyed):
        looked = resolved  # lines looked up above under the same key: not looked up again
    else:
        known = [None] * len(keyed)
    for (key, term, effective), at, line in zip(keyed, looked, known, strict=True):
        if line is None or (at is not key and at != key):
            line = _cached_line(lines, key, term, language, effective)
        buckets[line[0]].append(line[1])
    if len(keyed) > MAX_TERMS:
        raise TermSyntaxError(f"A list holds at most {MAX_TERMS} terms; this one has {len(keyed)}.")
    if not buckets[0]:
        raise TermSyntaxError(NOTHING_TO_LOOK_FOR if keyed else "Add at least one term.")
    return _compiled(list_id, buckets, match_all)


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
_resolutions: dict[Resolution, tuple[str, ...]] = {}


def resolution(
    text: str, language: str, use_synonyms: bool, choices: Choices | None = None
) -> Resolution:
    """Return what identifies a list's resolution: its text and whatever else it depends on."""
    return (text, language, bool(use_synonyms), _frozen(choices))


def resolved_keys(found: Resolution) -> tuple[str, ...]:
    """Return the line keys of a list's stored text, resolved here unless shared.

    Raises TermSyntaxError as keyed_lines does.
    """
    known = _resolutions.get(found)
    if known is None:
        known = tuple([key for key, _, _ in _keyed(*found)])
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
    if len(_resolutions) >= LINE_CACHE_SIZE:
        _resolutions.clear()  # only time is lost
    _resolutions[found] = keys


def _frozen(choices: Choices | None) -> FrozenChoices:
    """Return a list's synonym switches as nested tuples, for a cache key."""
    if not choices:
        return ()
    return tuple(sorted((line, tuple(sorted(own.items()))) for line, own in choices.items()))


@lru_cache(maxsize=1 << 17)
def _keyed(
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
_new_term = tuple.__new__  # CompiledTerm(...) runs Python code; this makes the same tuple


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
            bucket, raw, keys, notes = shared  # type: ignore[misc]
            if bucket in (0, 1) and keys and len(notes) in (0, len(keys)):
                keys = tuple([(intern(space), intern(key)) for space, key in keys])
                notes = tuple(str(note) for note in notes)
                return interned((bucket, _new_term(CompiledTerm, (intern(raw), keys, notes))))
    except (TypeError, ValueError):
        pass
    raise ValueError(f"not a shared compiled line: {shared!r:.80}")


def _cached_line(
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


def compile_term(term: Term, language: str, effective: Effective = ()) -> CompiledTerm:
    """Return a term's keys: its exact words if quoted, else its stems, then its synonyms'.

    effective: the synonyms it matches (clipping.matching.synonyms). The term's own key
    comes first; a synonym key whose stems are the term's adds nothing and is left out.
    """
    raw = sys.intern(term.raw)
    if term.phrase:
        return _new_term(CompiledTerm, (raw, ((EXACT, _stem_key(term.words, EXACT)),), ()))
    space = stem_space(language)
    own = (space, _stem_key(term.words, space))
    found = {own: ""}
    if effective:
        stem_key = _key_stems(space)
        for key, note in synonym_keys(term.words, effective):
            exact = (EXACT, sys.intern(key))
            if exact not in found and stem_key(key) != own[1]:
                found[exact] = sys.intern(note)
    if space == "en":
        for exact in _irregular_exact(term.words, own[1]):
            if exact not in found:
                found[exact] = ""
    if len(found) == 1:
        return _new_term(CompiledTerm, (raw, (own,), ()))
    return _new_term(CompiledTerm, (raw, tuple(found), tuple(found.values())))


@lru_cache(maxsize=1 << 17)
def _irregular_exact(words: tuple[str, ...], own: str) -> tuple[Key, ...]:
    """Return the exact keys of irregular_keys(words) whose stems are not own (the words'
    stem key), once per term's words: a line compiles once per resolution of its synonyms
    and once per synonym setting, its irregular forms are the same each time."""
    stem_key = _key_stems("en")
    return tuple(
        [(EXACT, sys.intern(key)) for key, _ in _irregular_keys(words) if stem_key(key) != own]
    )


def synonym_keys(words: Sequence[str], effective: Effective) -> list[tuple[str, str]]:
    """Return (exact key, note) for every form of a term's synonyms.

    1. A synonym of the whole term: each of its forms.
    2. Synonyms of single words: every sequence of the term's words where each word is one
       of its forms or a form of one of its synonyms, with at least one synonym; those with
       fewer synonyms first, at most MAX_KEYS_PER_TERM in all.
    """
    keys: list[tuple[str, str]] = []
    whole = " ".join(words)
    by_position: dict[int, list[tuple[str, str]]] = {}
    for position, name, pos, sense in effective:
        note = f"{whole if position == WHOLE else words[position]}>{name}>{sense}"
        forms = [(form, note) for form in _exact_forms(name, pos)]
        if position == WHOLE:
            keys.extend(forms)
        else:
            by_position.setdefault(position, []).extend(forms)
    if by_position:
        common = stopwords("en")
        choices = [
            [(word, "")] if word in common else [(form, "") for form in variants(word)]
            for word in words
        ]
        keys.extend(_combinations(choices, by_position, MAX_KEYS_PER_TERM - len(keys)))
    return keys


@lru_cache(maxsize=1 << 17)
def _exact_forms(name: str, pos: str) -> tuple[str, ...]:
    """Return a synonym's word forms as exact keys (tokens joined), once per synonym: the
    same synonyms recur in the keys of many terms."""
    return tuple([SEPARATOR.join(tokenize(form)) for form in word_forms(name, pos)])


def irregular_keys(words: Sequence[str]) -> list[tuple[str, str]]:
    """Return (exact key, "") for the irregular forms of a term's words ("struck", "gunmen"),
    which their stems miss: every sequence with at least one of them."""
    return list(_irregular_keys(tuple(words)))


@lru_cache(maxsize=1 << 17)
def _irregular_keys(words: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Return irregular_keys, once per term's words: a line compiles once per resolution of
    its synonyms, its words' forms do not depend on them."""
    irregular = {
        at: [(form, "") for form in irregular_forms(word)] for at, word in enumerate(words)
    }
    irregular = {at: forms for at, forms in irregular.items() if forms}
    if not irregular:
        return ()
    common = stopwords("en")
    own = [[(word, "")] if word in common else [(f, "") for f in variants(word)] for word in words]
    return tuple(_combinations(own, irregular, MAX_KEYS_PER_TERM))


def _combinations(
    own: list[list[tuple[str, str]]], synonyms: dict[int, list[tuple[str, str]]], limit: int
) -> list[tuple[str, str]]:
    """Return the phrases made of own forms and at least one synonym, fewest synonyms first."""
    keys: list[tuple[str, str]] = []
    positions = sorted(synonyms)
    for count in range(1, len(positions) + 1):
        for chosen in itertools.combinations(positions, count):
            slots = [synonyms[at] if at in chosen else own[at] for at in range(len(own))]
            for parts in itertools.product(*slots):
                if len(keys) >= limit:
                    return keys
                text = SEPARATOR.join(form for form, _ in parts)
                keys.append((text, ";".join(note for _, note in parts if note)))
    return keys


def _stem_key(words: tuple[str, ...], space: str) -> str:
    """Join the stems of words in a space (the words themselves in the exact space)."""
    if space == EXACT:
        return sys.intern(SEPARATOR.join(words))
    # Each word is stemmed once per process: a synonym's forms recur in the keys of many
    # terms, and Snowball stems every word on its own.
    known = _word_stems.get(space)
    if known is None or len(known) >= LINE_CACHE_SIZE:
        known = _word_stems[space] = {}
    try:
        return sys.intern(SEPARATOR.join(map(known.__getitem__, words)))
    except KeyError:  # a word not stemmed yet
        missing = [word for word in words if word not in known]
        known.update(zip(missing, stems(missing, space), strict=True))
        return sys.intern(SEPARATOR.join([known[word] for word in words]))


_word_stems: dict[str, dict[str, str]] = {}  # {space: {word: its stem}}


def _key_stems(space: str) -> Callable[[str], str]:
    """Return a function giving the stem key of an exact key (words joined by SEPARATOR) in
    a space, each key worked out once: a synonym's forms recur in the keys of many terms."""
    known = _exact_stems.get(space)
    if known is None or len(known) >= LINE_CACHE_SIZE:
        known = _exact_stems[space] = {}

    def stem_key(key: str) -> str:
        found = known.get(key)
        if found is None:
            found = known[key] = _stem_key(tuple(key.split(SEPARATOR)), space)
        return found

    return stem_key


_exact_stems: dict[str, dict[str, str]] = {}  # {space: {exact key: its stem key}}
