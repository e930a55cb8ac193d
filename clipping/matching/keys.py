"""Compile keyword lists into the token keys their terms match: stems, synonyms, exact phrases.

A term's own key holds the stems of its words, so every form of them matches. Synonyms
(clipping.matching.synonyms: the senses the term most likely means, and the owner's
switches) match by their own word forms in the exact space: a synonym's stem may be another
word's ("authorities" and "authors" share "author"). A phrase WordNet does not hold matches
by parts: each word by one of its forms or by a synonym of that word, in order, as one key
per combination ("rail strike" also as "rail work stoppage(s)", "railed work stoppage" ...).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import NamedTuple

from analyzer.text import language_code, stems, stopwords, tokenize
from analyzer.text.wordnet import irregular_forms, variants, word_forms
from clipping.matching.synonyms import WHOLE, Effective
from clipping.terms import Term

# The space of quoted phrases (and of lists in a language without a stemmer): lower-cased
# words compared as they are. Every other space is named by the language whose Snowball
# stems it holds, so one index serves lists in several languages.
EXACT = ""
# The space of re: lines: a key is the regular expression itself, looked for in the text by
# clipping.matching.patterns rather than by tokens. No language code holds a "/".
PATTERN_SPACE = "/re"
# A key is the words (or stems) of one term joined by single spaces; tokens never hold one.
SEPARATOR = " "

Key = tuple[str, str]  # (space, joined words or stems)
# Combinations of forms and synonyms one phrase may expand to: the phrases with the fewest
# synonyms come first, so a long phrase with many synonyms loses only its rarest variants.
MAX_KEYS_PER_TERM = 400
# The most entries one of this package's per-process caches holds: past it, one is emptied.
LINE_CACHE_SIZE = 1 << 18


class CompiledTerm(NamedTuple):
    """One term with every key that makes it match; a quoted phrase has exactly one.

    notes: per key, which synonyms it stands for, as "word>synonym>sense" joined by ";"
    ("" for the term's own key): what tells a person why a clip matched.
    """

    raw: str
    keys: tuple[Key, ...]
    notes: tuple[str, ...] = ()


new_term = tuple.__new__  # CompiledTerm(...) runs Python code; this makes the same tuple


@lru_cache(maxsize=256)
def stem_space(language: str) -> str:
    """Return the key space of a list's unquoted terms (EXACT when nothing stems them)."""
    return language_code(language) or EXACT


def compile_term(term: Term, language: str, effective: Effective = ()) -> CompiledTerm:
    """Return a term's keys: its exact words if quoted, else its stems, then its synonyms'.

    effective: the synonyms it matches (clipping.matching.synonyms). The term's own key
    comes first; a synonym key whose stems are the term's adds nothing and is left out.
    """
    raw = sys.intern(term.raw)
    if term.pattern is not None:
        return new_term(CompiledTerm, (raw, ((PATTERN_SPACE, sys.intern(term.pattern)),), ()))
    if term.phrase:
        return new_term(CompiledTerm, (raw, ((EXACT, _stem_key(term.words, EXACT)),), ()))
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
        return new_term(CompiledTerm, (raw, (own,), ()))
    return new_term(CompiledTerm, (raw, tuple(found), tuple(found.values())))


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
