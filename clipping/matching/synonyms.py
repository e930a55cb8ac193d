"""Which synonyms each term of a keyword list matches: the senses it most likely means, then
the owner's own switches.

1. Senses are chosen per unit of a term: the whole term when WordNet holds it ("climate
   change", "car"), else each of its words ("measles" and "outbreak" of "measles outbreak",
   stop words left alone), with the other terms of the list as context (see
   analyzer.text.senses.choose_senses).
2. Quoted phrases, exclusions and names (a word written with a capital inside a term, or an
   acronym) get no synonyms; nor does a list in a language without an offline thesaurus.
3. A person's switches (stored on the list as synonym_choices) turn a sense or one synonym
   of it on or off; only what differs from the defaults is stored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import NamedTuple

import regex

from analyzer.text import stopwords
from analyzer.text.phrases import phrase_senses
from analyzer.text.senses import Sense, choose_senses, context_stems, in_wordnet, senses
from analyzer.text.wordnet import has_thesaurus
from clipping.terms import Term

WHOLE = -1  # the position of a synonym of the whole term
# Why a term has no synonyms (TermSynonyms.note; the list page words each).
EXCLUSION, QUOTED, SWITCHED_OFF, NO_THESAURUS, NAME, PATTERN = (
    "exclusion",
    "quoted",
    "off",
    "no-thesaurus",
    "name",
    "pattern",
)
# {raw line: {switch key: on}}; switch keys come from sense_key and synonym_key.
Choices = Mapping[str, Mapping[str, bool]]
# What a term matches besides its own forms: (position or WHOLE, synonym, part of speech,
# sense id), in a fixed order. Everything compile_term needs, and part of a line's cache key.
Effective = tuple[tuple[int, str, str, str], ...]
_RAW_TOKEN = regex.compile(r"[\p{L}\p{N}][\p{L}\p{M}\p{N}]*")


class Synonym(NamedTuple):
    name: str
    on: bool  # the switch as the person left it (on unless turned off)
    key: str  # its switch key


class SenseGroup(NamedTuple):
    """One sense of one unit of a term, with its synonyms and switches."""

    word: str  # the unit: the whole term or one of its words
    position: int  # WHOLE or the word's position in the term
    sense: Sense
    default: bool  # chosen by WordNet and the list's context
    on: bool  # after the person's switch
    key: str  # its switch key
    synonyms: tuple[Synonym, ...]


class TermSynonyms(NamedTuple):
    """A term's sense groups, or why it has none."""

    raw: str
    groups: tuple[SenseGroup, ...]
    note: str  # why the term has no synonyms, one of EXCLUSION ... NAME ("" if it may have)

    @property
    def chosen(self) -> list[SenseGroup]:
        """The groups of the senses chosen by default (on unless switched off)."""
        return [group for group in self.groups if group.default]

    @property
    def others(self) -> list[SenseGroup]:
        """The groups of the other senses (off unless switched on)."""
        return [group for group in self.groups if not group.default]

    @property
    def others_on(self) -> bool:
        return any(group.on for group in self.others)


def sense_key(word: str, sense_id: str) -> str:
    return f"{word}|{sense_id}"


def synonym_key(word: str, sense_id: str, name: str) -> str:
    return f"{word}|{sense_id}|{name}"


def list_synonyms(
    terms: Sequence[Term], language: str, use_synonyms: bool, choices: Choices | None = None
) -> list[TermSynonyms]:
    """Return every term's sense groups (site: lines left out), in the list's order."""
    choices = choices or {}
    wanted = use_synonyms and has_thesaurus(language)
    words = [term.words for term in terms if not term.exclude and not term.is_site]
    stemmed = [_stems_of(item) for item in words]
    described = []
    for term in terms:
        if term.is_site:
            continue
        note = _no_synonyms(term, use_synonyms, wanted)
        if note:
            described.append(TermSynonyms(term.raw, (), note))
            continue
        context = _context(words, term.words, stemmed)
        groups = tuple(_groups(term, context, choices.get(term.raw, {}), every=True))
        described.append(TermSynonyms(term.raw, groups, ""))
    return described


def effective_synonyms(
    terms: Sequence[Term], language: str, use_synonyms: bool, choices: Choices | None = None
) -> list[Effective]:
    """Return, per term (site: lines included, with none), the synonyms it matches."""
    if not use_synonyms or not has_thesaurus(language):
        return [() for _ in terms]
    choices = choices or {}
    facts = [_facts.get(term.raw) or _line_facts(term) for term in terms]
    everything: frozenset[str] | None = None
    found: list[Effective] = []
    for term, (_, described) in zip(terms, facts, strict=True):
        if described is None:
            found.append(())
            continue
        if term.raw in choices:
            own = frozenset(choices[term.raw].items())
        elif not described:  # most lines: no context can change what they match
            plain = _plain.get(term.raw)
            if plain is None:
                plain = _plain[term.raw] = _effective(term.raw, term.words, described, _NONE)
            found.append(plain)
            continue
        else:
            own = _NONE
        # Popular lines recur in thousands of lists: the result is cached on the part of
        # the context some sense of the term is described by, usually none of it. Every
        # term's context is the list's words (see _context), the term's own among them:
        # stemmed once per line, joined once per list that needs them.
        if described and everything is None:
            everything = frozenset().union(*(stemmed for stemmed, _ in facts))
        relevant = everything & described if described else described  # type: ignore[operator]
        found.append(_effective(term.raw, term.words, relevant, own))
    return found


def alone_synonyms(term: Term, language: str, use_synonyms: bool) -> Effective | None:
    """Return the synonyms a term matches in every list that does not switch them, or None
    if they depend on the list's other terms (see effective_synonyms)."""
    if not use_synonyms or not has_thesaurus(language):
        return ()
    raw = term.raw
    described = (_facts.get(raw) or _line_facts(term))[1]
    if described is None:
        return ()
    if described:
        return None
    plain = _plain.get(raw)
    if plain is None:
        plain = _plain[raw] = _effective(raw, term.words, described, _NONE)
    return plain


# {line: _line_facts of its Term}: a dict read by the line alone, the cheapest lookup for
# the million lines of a worker's lists.
LineFacts = tuple[frozenset[str], frozenset[str] | None]
_facts: dict[str, LineFacts] = {}
_FACTS_SIZE = 1 << 18


def _line_facts(term: Term) -> LineFacts:
    """Return what a list needs of one of its lines, worked out once per line: the stems it
    adds to its list's context, and the stems its senses are described by (None if it gets
    no synonyms)."""
    context = frozenset() if term.exclude or term.is_site else _stems_of(term.words)
    if term.is_site or _no_synonyms(term, True, True):
        facts: LineFacts = (context, None)
    else:
        facts = (context, _term_described_by(term.words))
    if len(_facts) >= _FACTS_SIZE:
        _facts.clear()  # only time is lost
        _plain.clear()
    _facts[term.raw] = facts
    return facts


_NONE: frozenset[tuple[str, bool]] = frozenset()  # no switches
# {line: its synonyms} of lines whose synonyms no context or switch changes (_line_facts
# finds no stem describing their senses), read by the line alone; cleared with _facts.
_plain: dict[str, Effective] = {}


@lru_cache(maxsize=1 << 18)
def _effective(
    raw: str, words: tuple[str, ...], context: frozenset[str], own: frozenset[tuple[str, bool]]
) -> Effective:
    """Return the synonyms of an unquoted term to look for (keyed by strings and tuples, whose
    hashes Python keeps, not by the Term)."""
    if not own:
        return _chosen_synonyms(words, context)
    return tuple(
        (group.position, synonym.name, group.sense.pos, group.sense.id)
        for group in _groups(Term(raw, words), context, dict(own))
        for synonym in group.synonyms
        if synonym.on
    )


def _chosen_synonyms(words: tuple[str, ...], context: frozenset[str]) -> Effective:
    """Return what _effective flattens _groups into for a term without switches: the
    synonyms of the chosen senses, without building groups and switch keys for them (most
    lines of a worker's lists; _groups stays for the list page, which shows the switches)."""
    found: list[tuple[int, str, str, str]] = []
    for position, unit in _units(words):
        senses = _senses_of(unit)
        if not senses:
            continue
        unit_context = context - _stems_of((unit,))
        others = set(words) - {unit}
        phrase = others if position != WHOLE else set()
        chosen = {sense.id for sense in _chosen(unit, senses, unit_context, phrase)}
        if not chosen:
            continue
        for sense in senses:
            if sense.id in chosen:
                pos, sense_id = sense.pos, sense.id
                found.extend(
                    (position, name, pos, sense_id)
                    for name in sense.synonyms
                    if position == WHOLE or not set(name.split()) & others
                )
    return tuple(found)


@lru_cache(maxsize=1 << 18)
def _term_described_by(words: tuple[str, ...]) -> frozenset[str]:
    """Return every stem a sense of one of the term's units is described by."""
    found = [
        _described_by(unit, "nvar" if position == WHOLE else "nar")
        for position, unit in _units(words)
    ]
    return frozenset().union(*found)


def _no_synonyms(term: Term, use_synonyms: bool, wanted: bool) -> str:
    """Return why a term matches no synonyms (a note code), or "" if it may."""
    if term.is_pattern:
        return PATTERN
    if term.exclude:
        return EXCLUSION
    if term.phrase:
        return QUOTED
    if not use_synonyms:
        return SWITCHED_OFF
    if not wanted:
        return NO_THESAURUS
    if _is_name(term):
        return NAME
    return ""


def _is_name(term: Term) -> bool:
    """Return True for a name: an acronym, or a capital letter after the first word."""
    tokens = _RAW_TOKEN.findall(term.raw)
    if any(len(token) > 1 and token.isupper() for token in tokens):
        return True
    return any(token[:1].isupper() for token in tokens[1:])


def _context(
    words: list[tuple[str, ...]], own: tuple[str, ...], stemmed: list[frozenset[str]]
) -> frozenset[str]:
    """Return the stems of the list's other terms and the term's own words: the words of
    every term to look for, and the term's own (an exclusion's too).

    stemmed: _stems_of each of words, computed once per list.
    """
    return _stems_of(own).union(*stemmed)


@lru_cache(maxsize=1 << 18)
def _stems_of(texts: tuple[str, ...]) -> frozenset[str]:
    """Return context_stems(texts), from each text's, worked out once: the terms of a
    worker's lists are made of far fewer words than lines."""
    if len(texts) == 1:
        return _text_stems(texts[0])
    return frozenset().union(*map(_text_stems, texts))


@lru_cache(maxsize=1 << 18)
def _text_stems(text: str) -> frozenset[str]:
    return context_stems((text,))


@lru_cache(maxsize=1 << 18)
def _units(words: tuple[str, ...]) -> tuple[tuple[int, str], ...]:
    """Return the (position, text) units of a term whose senses are chosen."""
    if len(words) == 1 or in_wordnet(" ".join(words)):
        return ((WHOLE, " ".join(words)),)
    common = stopwords("en")
    return tuple((at, word) for at, word in enumerate(words) if word not in common)


def _groups(
    term: Term, context: frozenset[str], own: Mapping[str, bool], every: bool = False
) -> list[SenseGroup]:
    """Return the sense groups of a term's units that offer synonyms: all of them, or (for
    matching) only those switched on, whose synonyms alone are worked out."""
    groups = []
    for position, unit in _units(term.words):
        # A word's synonym that is another word of the phrase makes no new phrase ("trade
        # deal" is not "deal deal").
        others = set(term.words) - {unit}
        found = _senses_of(unit)
        if not found:
            continue
        unit_context = context - _stems_of((unit,))
        # A word inside a phrase ("pay" of "pay dispute") names or qualifies: no verb sense.
        phrase = others if position != WHOLE else set()
        chosen = {sense.id for sense in _chosen(unit, found, unit_context, phrase)}
        for sense in found:
            default = sense.id in chosen
            if not (default or every or own):
                continue  # matching a list without switches: the chosen senses only
            key = sense_key(unit, sense.id)
            on = bool(own.get(key, default))
            if not (on or every) or not sense.synonyms:
                continue
            synonyms = tuple(
                Synonym(name, bool(own.get(synonym_key(unit, sense.id, name), True)), skey)
                for name in sense.synonyms
                if position == WHOLE or not set(name.split()) & others
                for skey in [synonym_key(unit, sense.id, name)]
            )
            if not synonyms:
                continue
            groups.append(SenseGroup(unit, position, sense, default, on, key, synonyms))
    return groups


def _chosen(
    unit: str, found: tuple[Sense, ...], context: frozenset[str], others: set[str]
) -> tuple[Sense, ...]:
    """Return choose_senses for a unit, cached on the only part of context that matters.

    others: the phrase's other words, when the unit is a word of a phrase; a word left
    without a sense takes the one they speak of (analyzer.text.phrases).
    """
    pos = "nar" if others else "nvar"
    if sum(sense.pos in pos for sense in found) <= 1:
        context = frozenset()  # nothing to choose between: no sense's description is read
    chosen = _choose(unit, context & _described_by(unit, pos) if context else context, pos)
    if chosen or not others:
        return chosen
    return _phrase_choice(unit, tuple(sorted(others - stopwords("en"))))


@lru_cache(maxsize=1 << 16)
def _phrase_choice(unit: str, others: tuple[str, ...]) -> tuple[Sense, ...]:
    return phrase_senses(_senses_of(unit), others) if others else ()


@lru_cache(maxsize=1 << 18)
def _described_by(unit: str, parts_of_speech: str) -> frozenset[str]:
    """Return every stem some sense of the unit is described by: all context can overlap.

    Empty when context cannot change what the unit matches: one sense to choose, or none
    with a second lemma (no synonym in any sense).
    """
    found = [sense for sense in _senses_of(unit) if sense.pos in parts_of_speech]
    if len(found) <= 1 or all(sense.lemmas < 2 for sense in found):
        return frozenset()
    return frozenset().union(*(sense.signature for sense in found))


@lru_cache(maxsize=1 << 18)
def _choose(unit: str, context: frozenset[str], parts_of_speech: str) -> tuple[Sense, ...]:
    return choose_senses(_senses_of(unit), context, parts_of_speech)


@lru_cache(maxsize=1 << 18)
def _senses_of(unit: str) -> tuple[Sense, ...]:
    """Return senses(unit) in English, cached here: the lists of a worker ask for each unit
    thousands of times."""
    return senses(unit)


def changed_choices(
    described: Sequence[TermSynonyms], switched_on: set[str]
) -> dict[str, dict[str, bool]]:
    """Return the choices a submitted form makes: every shown switch off unless submitted.

    Only switches that differ from their default are kept (a sense's default is WordNet's
    choice, a synonym's is on).
    """
    choices: dict[str, dict[str, bool]] = {}
    for term in described:
        own: dict[str, bool] = {}
        for group in term.groups:
            on = group.key in switched_on
            if on != group.default:
                own[group.key] = on
            for synonym in group.synonyms:
                if synonym.key not in switched_on:
                    own[synonym.key] = False
        if own:
            choices[term.raw] = own
    return choices
