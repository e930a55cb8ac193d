"""WordNet senses and synonyms by sense (English), on analyzer.text.wordnet's reader.

A word has several senses, and most of its synonyms belong to one sense only: "car" means
an automobile far more often than a railcar or a gondola. So synonyms come by sense:

1. `senses(term)` lists the senses of a word or of a phrase WordNet holds, each with how
   often the term means it (its share, from the SemCor counts of lemma.count(), the part of
   speech and WordNet's order) and the synonyms it offers.
2. `choose_senses(senses, context)` picks the senses the term most likely means, helped by
   the other words of its keyword list (a Lesk-style overlap with each sense's gloss, lemmas,
   nearest hypernyms and topic domains): when the list speaks of some senses, it chooses
   among them; when it speaks of none, the usual sense must clearly dominate.

A synonym is a lemma of the sense that means the sense itself: not a proper name, not a
word of the term, not a lemma whose own usual meaning is something else ("machine" in the
automobile sense, "shot" for a shooting: most of its uses are missiles, strokes and
attempts), and never broader than the term (a hypernym of the sense).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from analyzer.nltkdata import data_dir
from analyzer.text.languages import language_code, stopwords
from analyzer.text.stemming import stems
from analyzer.text.tokens import tokenize
from analyzer.text.wordnet import (
    THESAURUS_LANGUAGES,
    candidates,
    count,
    lemmas,
    lock,
    synset,
    synsets,
)

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Lemma, Synset

# Keyword lists name things: a noun sense is likelier than a verb sense of the same count.
_POS_WEIGHT = {"n": 1.0, "a": 0.5, "s": 0.5, "r": 0.3, "v": 0.2}
# A second sense the context supports as well joins the best when it is meant at least
# this share as often.
_JOIN_RATIO = 0.45
# Without support from context, the best sense of an ambiguous term must have this share of
# its uses, and this many times the share of any other: a term spread over senses
# ("flights": aircraft, stairs, escape; "trade": commerce, craft) gets none.
_MIN_SHARE = 0.25
_DOMINANCE = 2.0
# A context word found in a sense's description weighs as much as this many times the
# tagged uses (at most _MAX_OVERLAP words count): SemCor's few counts come from other texts
# than the list's, the list's words from the very topic it follows.
_CONTEXT_WEIGHT = math.log(20.0)
_MAX_OVERLAP = 3
# A sense's description reaches this many hypernyms up: higher ones ("entity", "act") are
# words of every topic.
_HYPERNYM_LEVELS = 2
# Fewer tagged uses than this in every sense of an ambiguous term say nothing about
# which sense is meant: only context chooses then.
_MIN_EVIDENCE = 3
# A lemma is a synonym in a sense when at least this share of its counted uses in the sense's
# part of speech are in it ("cost" for a price: 7 of 86), and at most this share of its
# counted uses are in senses unrelated to it (see _near).
_LEMMA_SHARE = 0.05
_UNRELATED_SHARE = 0.5
# Related senses are at most this many hypernym links apart (siblings are two), or one link
# from a sense the term itself is used in.
_NEAR_LINKS = 2


class Sense(NamedTuple):
    """One sense of a term: its WordNet synset, gloss, synonyms and how often it is meant."""

    id: str  # the synset's name, "car.n.01"
    pos: str  # "n", "v", "a" (adjectives, satellites included) or "r"
    gloss: str
    term: str  # the tokenised term this is a sense of
    uses: int  # the term's tagged uses in this sense (lemma.count())
    share: float  # the share of the term's uses meaning this sense (0..1)
    lemmas: int  # how many lemmas the sense has: with one, it has no synonym
    root: Path  # the data folder it was read from (looking it up again costs more)

    @property
    def synonyms(self) -> tuple[str, ...]:
        """Lemma names (with spaces) that mean this sense as the term does, most used first.

        Worked out on first use: a keyword list needs those of its chosen senses only.
        """
        if self.lemmas < 2:
            return ()
        return _sense_synonyms(self.id, self.term, self.root)

    @property
    def signature(self) -> frozenset[str]:
        """Stems of the words that describe the sense, the term's own left out."""
        return _sense_signature(self.id, self.term, self.root)


def senses(term: str, language: str = "en") -> tuple[Sense, ...]:
    """Return the senses of a word or a phrase WordNet holds, in WordNet's order.

    Senses naming a person, place or other proper name, and senses where the term only
    abbreviates a longer lemma ("car" for "cable car"), are left out.
    """
    code = language_code(language) or language
    if code not in THESAURUS_LANGUAGES:
        return ()
    return _senses(" ".join(tokenize(term)), data_dir())


def choose_senses(
    found: Iterable[Sense], context: Iterable[str] = (), parts_of_speech: str = "nvar"
) -> tuple[Sense, ...]:
    """Return the senses a term most likely means, in WordNet's order.

    context: stems of the other words of the term's keyword list. parts_of_speech: those the
    term may be ("na" for a word inside a noun phrase); shares are taken among them.

    1. An ambiguous term with almost no tagged uses ("chip": one each for a fragment and a
       piece of crockery) keeps only the senses the context supports, if any.
    2. Only senses of the term's most used part of speech compete: context chooses a sense,
       not whether the term is a noun or a verb.
    3. Score each sense: the log of its tagged uses (plus one), plus _CONTEXT_WEIGHT per
       context word found in its signature (gloss, lemmas, near hypernyms, hyponyms, parts,
       topic domains): a list about government means the minister in office, although the
       word meant a clergyman in 10 of 13 tagged uses; one about hospitals still means the
       physician (73 uses), not the children's game whose gloss names a nurse (1 use).
    4. A best sense without context support must clearly dominate: _MIN_SHARE of the uses
       and _DOMINANCE times the share of any sense not near it (near: _NEAR_LINKS hypernym
       links apart, as news on events and news in a paper).
    5. Another sense joins the best when it is meant nearly as often and, like the best,
       supported by context, or near it: the paint is not the oil of "oil spill".
    """
    candidates = [sense for sense in found if sense.pos in parts_of_speech]
    total = sum(sense.share for sense in candidates)
    if candidates and total < 1.0:
        candidates = [sense._replace(share=sense.share / total) for sense in candidates]
    words = context if isinstance(context, frozenset | set) else frozenset(context)
    overlap = {
        sense.id: min(_MAX_OVERLAP, len(sense.signature & words)) if words else 0
        for sense in candidates
    }
    if len(candidates) > 1 and max(sense.uses for sense in candidates) < _MIN_EVIDENCE:
        candidates = [sense for sense in candidates if overlap[sense.id]]
    if not candidates:
        return ()
    # Context chooses among the senses of the part of speech the term is most used in.
    usual = max(candidates, key=lambda sense: sense.share)
    candidates = [sense for sense in candidates if sense.pos == usual.pos]
    score = {
        sense.id: math.log(sense.uses + 1) + _CONTEXT_WEIGHT * overlap[sense.id]
        for sense in candidates
    }
    # The first of equals; the share (WordNet's order among unused senses) breaks ties.
    best = max(candidates, key=lambda sense: (score[sense.id], sense.share))
    near = {sense.id for sense in candidates if _near_senses(best.id, sense.id, best.root)}
    if not overlap[best.id]:
        others = [sense.share for sense in candidates if sense.id not in near]
        if best.share < _MIN_SHARE or best.share < _DOMINANCE * max(others, default=0.0):
            return ()
    chosen = {
        sense.id
        for sense in candidates
        if sense.share >= _JOIN_RATIO * best.share
        and (sense.id in near or (overlap[best.id] and overlap[sense.id]))
    }
    return tuple(sense for sense in candidates if sense.id in chosen | {best.id})


def synonyms(term: str, language: str = "en", context: Iterable[str] = ()) -> list[str]:
    """Return the synonyms of the senses a word or phrase most likely means (English only)."""
    found: dict[str, None] = {}
    for sense in choose_senses(senses(term, language), context):
        found.update(dict.fromkeys(sense.synonyms))
    return list(found)


def in_wordnet(phrase: str) -> bool:
    """Return True if WordNet holds a multi-word phrase as one lemma ("climate change")."""
    words = tokenize(phrase)
    return len(words) > 1 and bool(_senses(" ".join(words), data_dir()))


def context_stems(texts: Iterable[str]) -> frozenset[str]:
    """Return the English stems of the content words of some texts, for choose_senses."""
    common = stopwords("en")
    words = [word for text in texts for word in tokenize(text) if word not in common]
    return frozenset(_english_stems(words))


# {word: its English stem}: glosses, lemmas and the terms of keyword lists share most of
# their words, so each is stemmed once. Bounded: cleared when it grows too large.
_STEMS: dict[str, str] = {}
_STEMS_SIZE = 1 << 18


def _english_stems(words: list[str]) -> list[str]:
    """Return stems(words, "en"), each word stemmed once per process."""
    known = _STEMS
    try:
        return list(map(known.__getitem__, words))
    except KeyError:
        pass
    found: dict[str, str] = {}  # this call's own: no other thread clears it
    for word in words:
        stem = known.get(word)
        if stem is not None:
            found[word] = stem
    missing = list({word: None for word in words if word not in found})
    stemmed = dict(zip(missing, stems(missing, "en"), strict=True))
    found.update(stemmed)
    if len(known) + len(stemmed) > _STEMS_SIZE:
        known.clear()
    known.update(stemmed)
    return list(map(found.__getitem__, words))


@lru_cache(maxsize=1 << 18)
def _senses(term: str, root: Path) -> tuple[Sense, ...]:
    """Return senses(term) for a tokenised, space-joined term, cached per data folder."""
    if not term:
        return ()
    key = term.replace(" ", "_")
    with lock:
        owned = [(each, _own_lemma(each, key, root)) for each in synsets(key, root)]
        # "computing" is a noun of its own: the verb "compute" it may also be a form of is
        # not what a keyword list means by it.
        exact_pos = {_pos(s) for s, own in owned if own is not None and own.name().lower() == key}
        weighed: list[tuple[Synset, int, float]] = []
        for rank, (each, own) in enumerate(owned):
            if own is None or _proper(own, each) or _clipped(own, each):
                continue
            pos = _pos(each)
            if exact_pos and pos not in exact_pos:
                continue
            uses = count(own, root)
            weighed.append((each, uses, _POS_WEIGHT[pos] * (uses + 1.0 / (rank + 1))))
        total = sum(weight for _, _, weight in weighed) or 1.0
        return tuple(
            Sense(
                each.name(),
                _pos(each),
                each.definition(),
                term,
                uses,
                weight / total,
                len(each.lemmas()),
                root,
            )
            for each, uses, weight in weighed
        )


def _pos(sense: Synset) -> str:
    pos: str = sense.pos()
    return "a" if pos == "s" else pos


def _own_lemma(sense: Synset, key: str, root: Path) -> Lemma | None:
    """Return the synset's lemma that the term (or a base form of it) names.

    The synset was found under one of the term's candidate base forms, so its lemma named
    by one is the lemma morphy found it by.
    """
    names = set(candidates(key.lower(), sense.pos(), root))
    for lemma in sense.lemmas():
        if lemma.name().lower() in names:
            return lemma
    return None


def _proper(own: Lemma, sense: Synset) -> bool:
    """Return True for a proper-name sense: capitalised in WordNet, or an instance."""
    return bool(own.name()[:1].isupper()) or bool(sense.instance_hypernyms())


def _clipped(own: Lemma, sense: Synset) -> bool:
    """Return True when the term only abbreviates the sense's main lemma ("car", cable car)."""
    first = sense.lemmas()[0]
    parts = first.name().lower().split("_")
    return bool(first != own and len(parts) > 1 and own.name().lower() in parts)


@lru_cache(maxsize=1 << 18)
def _sense_synonyms(sense_id: str, term: str, root: Path) -> tuple[str, ...]:
    with lock:
        return _synonyms_of(synset(sense_id, root), term, root)


@lru_cache(maxsize=1 << 18)
def _sense_signature(sense_id: str, term: str, root: Path) -> frozenset[str]:
    with lock:
        return _synset_signature(sense_id, root) - frozenset(_english_stems(term.split()))


@lru_cache(maxsize=1 << 16)
def _synset_signature(sense_id: str, root: Path) -> frozenset[str]:
    """Return _signature of a sense, once per sense: a term and its forms share senses."""
    return _signature(synset(sense_id, root))


def _synonyms_of(sense: Synset, term: str, root: Path) -> tuple[str, ...]:
    """Return the lemmas of a sense that are synonyms of the term in that sense."""
    term_words = set(term.split())
    term_stems = tuple(_english_stems(term.split()))
    # The senses the term itself is used in: a synonym's use one link from them still
    # means what the term means ("cost" as an outlay is next to "price" as an amount).
    used = [
        synset(other.id, root)
        for other in _senses(term, root)
        if other.uses and other.pos == _pos(sense)
    ]
    # A lemma that means nothing but senses of the term ("drouth" of "drought", in both of
    # its senses) is a synonym whichever of them is meant.
    term_senses = {other.id for other in _senses(term, root)}
    common = stopwords("en")
    broader = set(_ancestors(sense.name(), root)) - {sense.name()}
    found: list[tuple[int, str]] = []
    for lemma in sense.lemmas():
        name = lemma.name().replace("_", " ")
        words = tokenize(name)
        if not words or any(char.isupper() for char in name):
            continue  # a proper name, or an abbreviation written in capitals
        if set(words) <= term_words or tuple(_english_stems(words)) == term_stems:
            continue  # the term itself, one of its forms, or a word taken out of it
        if all(word in common for word in words):
            continue  # symbols made of stop words ("in" for Indiana)
        uses = lemmas(lemma.name(), root)
        if any(other.synset().name() in broader for other in uses):
            continue  # broader than the term
        if not _within(uses, term_senses) and not _usual_sense(
            lemma, sense, uses, used, term_senses, root
        ):
            continue
        found.append((count(lemma, root), name))
    found.sort(key=lambda item: -item[0])  # stable: WordNet's order among equals
    return tuple(name for _, name in found)


def _within(uses: tuple[Lemma, ...], term_senses: set[str]) -> bool:
    """Return True if every sense a lemma has is a sense of the term."""
    return all(other.synset().name() in term_senses for other in uses)


def _usual_sense(
    lemma: Lemma,
    sense: Synset,
    uses: tuple[Lemma, ...],
    used: list[Synset],
    term_senses: set[str],
    root: Path,
) -> bool:
    """Return True if the lemma stands for this sense in most of its counted uses.

    It needs _LEMMA_SHARE of its uses in the sense's part of speech, and its uses in
    unrelated senses (another part of speech, or a sense not near this one nor a sense the
    term is used in: see _near; a sense the term has too is never unrelated: "mistake" for
    an error, whose uses as a wrong statement are the term's too) may be at most _UNRELATED_SHARE of them: "cost" for a price
    keeps (its other uses are outlays, next to a price), "suit" for a lawsuit does not (13
    of its 24 uses are clothes), nor "shot" for a shooting (30 of 54 are missiles, strokes,
    attempts), nor "offense" for a crime (3 of 4 are discourtesy and umbrage). A lemma with
    no counted use keeps only a sense it alone names in its part of speech.
    """
    if len(uses) <= 1:
        return True
    counted = [count(other, root) for other in uses]
    total = sum(counted)
    if total == 0:
        return sum(_pos(other.synset()) == _pos(sense) for other in uses) == 1
    pos = _pos(sense)
    same_pos = sum(
        each for other, each in zip(uses, counted, strict=True) if _pos(other.synset()) == pos
    )
    own = count(lemma, root)
    if own == 0 or own < _LEMMA_SHARE * same_pos:
        return False
    # What the sense is called, but for the lemma itself, which its other glosses may name.
    named = _lemma_stems(sense) - context_stems([lemma.name().replace("_", " ")])
    unrelated = sum(
        each
        for other, each in zip(uses, counted, strict=True)
        if each
        and other.synset().name() not in term_senses
        and not _near(other.synset(), sense, used, named, root)
    )
    return unrelated <= _UNRELATED_SHARE * total


def _near(
    one: Synset, other: Synset, used: list[Synset], named: frozenset[str], root: Path
) -> bool:
    """Return True if a lemma's use in one sense is as good as a use in the other.

    Adjectives and adverbs have no hypernyms: any two of the same part of speech are near.
    Nouns and verbs are near within _NEAR_LINKS hypernym links, within one link of a sense
    the term is used in, or when one's gloss names the other (named: stems of its lemmas).
    """
    if _pos(one) != _pos(other):
        return False
    if one.pos() not in ("n", "v"):
        return True
    if _links(one.name(), other.name(), root) <= _NEAR_LINKS:
        return True
    if any(_links(one.name(), sense.name(), root) <= 1 for sense in used):
        return True
    return bool(_gloss_stems(one) & named)


@lru_cache(maxsize=1 << 16)
def _near_senses(one: str, other: str, root: Path) -> bool:
    """Return True if two senses (synset names) are at most _NEAR_LINKS hypernym links apart."""
    return _links(one, other, root) <= _NEAR_LINKS


def _links(one: str, other: str, root: Path) -> float:
    """Return how many hypernym links apart two senses are (inf with no common hypernym)."""
    if one == other:
        return 0
    mine, theirs = _ancestors(one, root), _ancestors(other, root)
    if len(theirs) < len(mine):
        mine, theirs = theirs, mine
    return min((up + theirs[name] for name, up in mine.items() if name in theirs), default=math.inf)


@lru_cache(maxsize=1 << 16)
def _ancestors(sense_id: str, root: Path) -> dict[str, int]:
    """Return {hypernym's synset name: links up to it} of a sense, itself at 0."""
    found = {sense_id: 0}
    level = [sense_id]
    with lock:
        while level:
            upper = []
            for name in level:
                sense = synset(name, root)
                for above in sense.hypernyms() + sense.instance_hypernyms():
                    if above.name() not in found:
                        found[above.name()] = found[name] + 1
                        upper.append(above.name())
            level = upper
    return found


def _gloss_stems(sense: Synset) -> frozenset[str]:
    return context_stems([sense.definition()])


def _lemma_stems(sense: Synset) -> frozenset[str]:
    return context_stems(name.replace("_", " ") for name in sense.lemma_names())


def _signature(sense: Synset) -> frozenset[str]:
    """Return the stems of the words describing a sense: its gloss and its neighbours' lemmas.

    Neighbours: its hypernyms up to _HYPERNYM_LEVELS links, its hyponyms, parts, wholes and
    the topic, usage and region domains of it and of its hypernyms. Not its examples: "The
    car hit a tree" would tie "strike" (hit) to any list about cars.
    """
    texts = [sense.definition()]
    above: list[Synset] = []
    level = [sense]
    for _ in range(_HYPERNYM_LEVELS):
        level = [upper for lower in level for upper in lower.hypernyms()]
        above.extend(level)
    domains = [
        domain
        for each in (sense, *above)
        for domain in (*each.topic_domains(), *each.usage_domains(), *each.region_domains())
    ]
    neighbours = [
        sense,
        *above,
        *domains,
        *sense.hyponyms(),
        *sense.part_holonyms(),
        *sense.part_meronyms(),
        *sense.member_holonyms(),
    ]
    texts.extend(name.replace("_", " ") for other in neighbours for name in other.lemma_names())
    return context_stems(texts)
