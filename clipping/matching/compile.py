"""Compile keyword lists into the token keys their terms match: stems, synonyms, exact phrases."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from analyzer.text import language_code, stems, stopwords, synonyms, tokenize
from clipping.terms import MAX_TERMS, NOTHING_TO_LOOK_FOR, Term, TermSyntaxError, parse_line

# The space of quoted phrases (and of lists in a language without a stemmer): lower-cased
# words compared as they are. Every other space is named by the language whose Snowball
# stems it holds, so one index serves lists in several languages.
EXACT = ""
# Bump when a line compiles to different keys (shared caches of compiled lines hold them).
COMPILE_VERSION = 1
# A key is the words (or stems) of one term joined by single spaces; tokens never hold one.
SEPARATOR = " "

Key = tuple[str, str]  # (space, joined words or stems)
SynonymSource = Callable[[str, str], Iterable[str]]


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


def compile_list(spec: ListSpec, synonyms_of: SynonymSource | None = None) -> CompiledList:
    """Turn a list's terms into keys in its language, with synonyms if the list wants them."""
    space = stem_space(spec.language)
    positives, exclusions, sites, excluded_sites = [], [], [], []
    for term in spec.terms:
        if term.site is not None:
            (excluded_sites if term.exclude else sites).append(term.site)
            continue
        if synonyms_of is None:
            compiled = _compiled_term(term.raw, term.words, term.phrase, space, spec.use_synonyms)
        else:
            compiled = compile_term(term, space, synonyms_of if spec.use_synonyms else None)
        (exclusions if term.exclude else positives).append(compiled)
    return CompiledList(
        id=spec.id,
        positives=tuple(positives),
        exclusions=tuple(exclusions),
        sites=tuple(sites),
        excluded_sites=tuple(excluded_sites),
        match_all=spec.match_all,
    )


def compile_text(
    list_id: int, text: str, language: str, use_synonyms: bool = True, match_all: bool = False
) -> CompiledList:
    """Compile a list straight from its stored text, reusing lines compiled before.

    The index is built from the database at start-up: popular lines recur in thousands of
    lists, so each is parsed and compiled once per process. Raises TermSyntaxError like
    parse_terms for a text the list form would have refused.
    """
    space = stem_space(language)
    lines = line_cache(space, use_synonyms)
    buckets: tuple[list, list, list, list] = ([], [], [], [])
    count = 0
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        count += 1
        known = lines.get(line)
        if known is None:
            try:
                known = _compile_line(line, space, use_synonyms)
            except TermSyntaxError as exc:
                raise TermSyntaxError(f"Line {number}: {exc}") from None
            if len(lines) >= LINE_CACHE_SIZE:
                lines.clear()  # crude bound; a rebuild refills it with the lines in use
            lines[line] = known
        buckets[known[0]].append(known[1])
    positives, exclusions, sites, excluded_sites = buckets
    if not positives:
        raise TermSyntaxError(NOTHING_TO_LOOK_FOR if count else "Add at least one term.")
    if count > MAX_TERMS:
        raise TermSyntaxError(f"A list holds at most {MAX_TERMS} terms; this one has {count}.")
    return CompiledList(
        id=list_id,
        positives=tuple(positives),
        exclusions=tuple(exclusions),
        sites=tuple(sites),
        excluded_sites=tuple(excluded_sites),
        match_all=match_all,
    )


# (space, use_synonyms) -> {stripped line: (bucket, compiled term or host)}. A dict per
# kind of list, keyed by the line alone, is the cheapest lookup for a million lines.
CompiledLine = tuple[int, CompiledTerm | str]
_line_cache: dict[tuple[str, bool], dict[str, CompiledLine]] = {}
LINE_CACHE_SIZE = 1 << 18


def line_cache(space: str, use_synonyms: bool) -> dict[str, CompiledLine]:
    """Return this process's compiled lines for one key space and synonym setting."""
    return _line_cache.setdefault((space, bool(use_synonyms)), {})


def _compile_line(line: str, space: str, use_synonyms: bool) -> CompiledLine:
    """Return (bucket, value) for one line: 0 term, 1 exclusion, 2 site, 3 excluded site."""
    term = parse_line(line)
    if term.site is not None:
        return 2 + term.exclude, term.site
    compiled = _compiled_term(term.raw, term.words, term.phrase, space, bool(use_synonyms))
    return int(term.exclude), compiled


def compile_term(term: Term, space: str, synonyms_of: SynonymSource | None) -> CompiledTerm:
    """Return a term's keys: its exact words if quoted, else its stems and its synonyms'."""
    if term.phrase:
        keys: tuple[Key, ...] = ((EXACT, sys.intern(SEPARATOR.join(term.words))),)
    elif synonyms_of is None:
        keys = ((space, _stem_key(term.words, space)),)
    else:
        keys = term_keys(term.words, space, synonyms_of)
    return CompiledTerm(sys.intern(term.raw), keys)


def term_keys(
    words: tuple[str, ...], space: str, synonyms_of: SynonymSource | None = None
) -> tuple[Key, ...]:
    """Return the stem keys of an unquoted term and of its synonyms, the term's own first."""
    return _term_keys(words, space, synonyms_of or default_synonyms)


# Popular lines recur in thousands of lists, and a WordNet lookup costs a few hundred
# microseconds: each line is compiled once per process and the result shared, which also
# lets the index recognise it by identity.
@lru_cache(maxsize=1 << 18)
def _compiled_term(
    raw: str, words: tuple[str, ...], phrase: bool, space: str, use_synonyms: bool
) -> CompiledTerm:
    """Return compile_term with the analyzer's synonyms, memoised."""
    term = Term(raw=raw, words=words, phrase=phrase)
    return compile_term(term, space, default_synonyms if use_synonyms else None)


def default_synonyms(term: str, space: str) -> Iterable[str]:
    """Return WordNet synonyms of a term through the analyzer (English only)."""
    return synonyms(term, space) if space else ()


def _term_keys(words: tuple[str, ...], space: str, synonyms_of: SynonymSource) -> tuple[Key, ...]:
    """Return the term's stem key followed by its synonyms' keys, without repeats."""
    own = (space, _stem_key(words, space))
    found = {own: None}
    common = stopwords(space)
    for name in synonyms_of(SEPARATOR.join(words), space):
        synonym_words = tuple(tokenize(name))
        # WordNet lists symbols and abbreviations ("in" for Indiana, "as" for arsenic):
        # made only of stop words, they would match nearly every page.
        if synonym_words and not all(word in common for word in synonym_words):
            found.setdefault((space, _stem_key(synonym_words, space)), None)
    return tuple(found)


def _stem_key(words: tuple[str, ...] | list[str], space: str) -> str:
    """Join the stems of words in a space (the words themselves in the exact space)."""
    if space == EXACT:
        return sys.intern(SEPARATOR.join(words))
    return sys.intern(SEPARATOR.join(stems(list(words), space)))
