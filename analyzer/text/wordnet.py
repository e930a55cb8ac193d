"""WordNet senses and synonyms on the prepared offline data (English): NLTK's reader for the
index and base forms, synsets read line by line as they are needed (see _Data).

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
import mmap
import threading
import warnings
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import regex

from analyzer.nltkdata import REQUIRED_FILES, TextDataMissing, data_dir, wordnet_dir
from analyzer.text.languages import language_code, stopwords
from analyzer.text.stemming import stems
from analyzer.text.tokens import tokenize

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

# NLTK's reader seeks and reads shared file objects, so lookups from several threads
# take turns; results are cached, so the lock is held only on a first lookup.
_lock = threading.RLock()
# One reader per data folder: loading one takes a second or two.
_readers: dict[Path, WordNetCorpusReader] = {}
# Per data folder, the synsets read so far (see _Data).
_datas: dict[Path, _Data] = {}

# Languages with an offline thesaurus. Open Multilingual WordNet is neither in Debian nor
# in a PyPI package that ships its data (the `wn` package downloads it at run time).
THESAURUS_LANGUAGES = frozenset({"en"})

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


def has_thesaurus(language: str) -> bool:
    """Return True if synonyms exist offline for the language."""
    return (language_code(language) or language) in THESAURUS_LANGUAGES


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


def in_wordnet(phrase: str) -> bool:
    """Return True if WordNet holds a multi-word phrase as one lemma ("climate change")."""
    words = tokenize(phrase)
    return len(words) > 1 and bool(_senses(" ".join(words), data_dir()))


def word_forms(name: str, pos: str) -> tuple[str, ...]:
    """Return a lemma and its English inflections for a part of speech, the lemma first.

    Nouns inflect their last word ("work stoppages"), verbs their first ("walked out");
    irregular forms come from WordNet's exception lists, the rest from the regular rules.
    """
    return _word_forms(name, pos, data_dir())


@lru_cache(maxsize=1 << 18)
def _word_forms(name: str, pos: str, root: Path) -> tuple[str, ...]:
    """Return word_forms, cached per data folder: every phrase with a word asks for them."""
    words = name.lower().split()
    if not words:
        return ()
    if pos == "n":
        at, inflected = len(words) - 1, _plurals(words[-1], root)
    elif pos == "v":
        at, inflected = 0, _verb_forms(words[0], root)
    else:
        return (" ".join(words),)
    found = {" ".join(words): None}
    for form in inflected:
        found[" ".join([*words[:at], form, *words[at + 1 :]])] = None
    return tuple(found)


def variants(word: str) -> tuple[str, ...]:
    """Return a word and every inflection of the lemmas it may be a form of (any noun or verb).

    "prices" gives price, prices, priced, pricing: what a word of a phrase may look like
    where a synonym stands beside it.
    """
    return _variants(word, data_dir())


@lru_cache(maxsize=1 << 18)
def _variants(word: str, root: Path) -> tuple[str, ...]:
    found = {word: None}
    for base, pos in _bases(word, root):
        found.update(dict.fromkeys(_word_forms(base, pos, root)))
    if len(found) == 1:
        found.update(dict.fromkeys(_plurals(word, root)))
    return tuple(found)


@lru_cache(maxsize=1 << 18)
def _senses(term: str, root: Path) -> tuple[Sense, ...]:
    """Return senses(term) for a tokenised, space-joined term, cached per data folder."""
    if not term:
        return ()
    _reader(root)  # an unprepared folder is refused before anything is looked up
    key = term.replace(" ", "_")
    if "_" in key and not _may_be_phrase(key, root):
        return ()
    counts = _counts(root)
    with _lock:
        synsets = _synsets(key, root)
        bases: dict[str, set[str]] = {}  # per part of speech, the base forms of the term
        owned = [(synset, _own_lemma(synset, key, bases, root)) for synset in synsets]
        # "computing" is a noun of its own: the verb "compute" it may also be a form of is
        # not what a keyword list means by it.
        exact_pos = {_pos(s) for s, own in owned if own is not None and own.name().lower() == key}
        weighed: list[tuple[Synset, int, float]] = []
        for rank, (synset, own) in enumerate(owned):
            if own is None or _proper(own, synset) or _clipped(own, synset):
                continue
            pos = _pos(synset)
            if exact_pos and pos not in exact_pos:
                continue
            count = counts.get(own.key(), 0)
            weighed.append((synset, count, _POS_WEIGHT[pos] * (count + 1.0 / (rank + 1))))
        total = sum(weight for _, _, weight in weighed) or 1.0
        return tuple(
            Sense(
                synset.name(),
                _pos(synset),
                synset.definition(),
                term,
                count,
                weight / total,
                len(synset.lemmas()),
                root,
            )
            for synset, count, weight in weighed
        )


def _synsets(key: str, root: Path) -> list[Synset]:
    """Return reader.synsets(key) (read by _Data), its base forms looked up once per form
    (see _base_forms)."""
    index = _reader(root)._lemma_pos_offset_map
    get_synset = _data(root).synset_at
    return [
        get_synset(pos, offset)
        for pos, form in _base_forms(key.lower(), root)
        for offset in index[form].get(pos, [])
    ]


# The parts of speech reader.synsets looks a lemma up in, in its order.
_POS_LIST = ("n", "v", "a", "r")


@lru_cache(maxsize=1 << 18)
def _base_forms(form: str, root: Path) -> tuple[tuple[str, str], ...]:
    """Return (part of speech, base form) of a lowered word or phrase in every part of speech
    of _POS_LIST, in its order: NLTK's morphy for each, cached (a term, its synonyms' lemmas
    and the words of phrases ask for the same forms again)."""
    reader = _reader(root)
    return tuple((pos, base) for pos in _POS_LIST for base in _morphy_of(reader, form, pos))


def _morphy(form: str, pos: str, root: Path) -> tuple[str, ...]:
    """Return NLTK's base forms of a lowered word or phrase in a part of speech."""
    if pos not in _POS_LIST:  # "s": satellites, looked up in the index apart from "a"
        return _morphy_of(_reader(root), form, pos)
    return tuple(base for of, base in _base_forms(form, root) if of == pos)


def _morphy_of(reader: WordNetCorpusReader, form: str, pos: str) -> tuple[str, ...]:
    """Return reader._morphy(form, pos) without its closures: the exceptions, else each rule
    applied once; of the form and those, the ones WordNet holds in the part of speech."""
    exceptions = reader._exception_map[pos]
    if form in exceptions:
        forms = [form, *exceptions[form]]
    else:
        rules = reader.MORPHOLOGICAL_SUBSTITUTIONS[pos]
        forms = [form, *[form[: -len(old)] + new for old, new in rules if form.endswith(old)]]
    index = reader._lemma_pos_offset_map
    found: dict[str, None] = {}
    for candidate in forms:
        entry = index.get(candidate)  # get: the index is a defaultdict
        if entry is not None and pos in entry:
            found[candidate] = None
    return tuple(found)


@lru_cache(maxsize=4)
def _phrase_starts(root: Path) -> frozenset[str]:
    """Return WordNet's multi-word lemmas up to their last word ("climate_" of
    climate_change, "head_of_" of head_of_state)."""
    reader = _reader(root)
    with _lock:
        names = list(reader._lemma_pos_offset_map)
    return frozenset(name[: name.rfind("_") + 1] for name in names if "_" in name)


def _may_be_phrase(key: str, root: Path) -> bool:
    """Return False if no base form of a multi-word key can be a lemma.

    Morphy replaces an ending of the key's last word (its rules hold no "_"), or looks the
    key up in the exception lists: a lemma it finds otherwise starts with the key up to
    its last word. Most phrases of keyword lists ("rail strike") are settled here, without
    morphy's lookups in every part of speech.
    """
    if key[: key.rfind("_") + 1] in _phrase_starts(root):
        return True
    exceptions = _reader(root)._exception_map
    return any(key in exceptions[pos] for pos in _POS_LIST)


@lru_cache(maxsize=1 << 17)
def _lemmas(name: str, root: Path) -> tuple[Lemma, ...]:
    """Return reader.lemmas(name), cached per lemma: the synonyms of many senses ask for the
    uses of the same lemmas."""
    lemma = name.lower()
    return tuple(
        other
        for synset in _synsets(lemma, root)
        for other in synset.lemmas()
        if other.name().lower() == lemma
    )


@lru_cache(maxsize=1 << 18)
def _sense_synonyms(sense_id: str, term: str, root: Path) -> tuple[str, ...]:
    data = _data(root)
    with _lock:
        return _synonyms_of(data, data.synset(sense_id), term, root)


@lru_cache(maxsize=1 << 18)
def _sense_signature(sense_id: str, term: str, root: Path) -> frozenset[str]:
    with _lock:
        return _synset_signature(sense_id, root) - frozenset(_english_stems(term.split()))


@lru_cache(maxsize=1 << 16)
def _synset_signature(sense_id: str, root: Path) -> frozenset[str]:
    """Return _signature of a sense, once per sense: a term and its forms share senses."""
    return _signature(_data(root).synset(sense_id))


@lru_cache(maxsize=4)
def _counts(root: Path) -> dict[str, int]:
    """Return {sense key: tagged uses} from cntlist.rev, read once (NLTK searches the file
    on every lemma.count())."""
    counts: dict[str, int] = {}
    path = wordnet_dir(root) / "cntlist.rev"
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) == 3:
                counts[parts[0]] = int(parts[2])
    return counts


# The pointer symbols of the relations read here, as NLTK names them.
_HYPERNYM, _INSTANCE_HYPERNYM, _HYPONYM, _SIMILAR = "@", "@i", "~", "&"
_POS_NUMBERS = {"n": 1, "v": 2, "a": 3, "r": 4, "s": 5}
_DATA_FILES = {"n": "data.noun", "v": "data.verb", "a": "data.adj", "r": "data.adv"}
_EXAMPLE = regex.compile(r"[\"].*?[\"]")  # a quoted example in a gloss, as NLTK finds it


class Lemma:
    """One lemma of a synset, as NLTK's reader gives it (equal by name, as NLTK's are)."""

    __slots__ = ("_key", "_lex_id", "_name", "_synset")

    def __init__(self, synset: Synset, name: str, lex_id: int) -> None:
        self._synset = synset
        self._name = name
        self._lex_id = lex_id
        self._key: str | None = None

    def name(self) -> str:
        return self._name

    def synset(self) -> Synset:
        return self._synset

    def key(self) -> str:
        """Return the sense key ("car%1:06:00::"), worked out on first use."""
        if self._key is None:
            self._key = self._synset._sense_key(self)
        return self._key

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Lemma):
            return NotImplemented
        return self._name == other._name

    def __hash__(self) -> int:
        return hash(self._name)

    def __repr__(self) -> str:
        return f"Lemma('{self._synset._name}.{self._name}')"


class Synset:
    """One synset read from a data.* line: what synonyms need of NLTK's Synset, with the
    same values (equal by name, as NLTK's are)."""

    __slots__ = (
        "_data",
        "_definition",
        "_lemma_names",
        "_lemmas",
        "_lexname",
        "_name",
        "_offset",
        "_pointers",
        "_pos",
    )

    def __init__(self, data: _Data, line: str) -> None:
        columns, gloss = line.strip().split("|")
        if '"' in gloss:
            gloss = _EXAMPLE.sub("", gloss)
        self._definition = gloss.strip().strip("; ")
        fields = columns.split()
        self._data = data
        self._offset = int(fields[0])
        self._lexname = int(fields[1])
        self._pos = pos = fields[2]
        count = int(fields[3], 16)
        self._lemmas: list[Lemma] = []
        for at in range(4, 4 + 2 * count, 2):
            name = fields[at]
            if name.endswith(")"):  # a syntactic marker, "(a)", "(p)", "(ip)"
                start = name.rfind("(")
                if start >= 0 and ")" not in name[start + 1 : -1]:
                    name = name[:start]
            self._lemmas.append(Lemma(self, name, int(fields[at + 1], 16)))
        self._lemma_names = [lemma._name for lemma in self._lemmas]
        start = 4 + 2 * count  # the number of pointers, then 4 fields each
        pointers: dict[str, dict[tuple[str, int], None]] = {}
        for at in range(start + 1, start + 1 + 4 * int(fields[start]), 4):
            if fields[at + 3] == "0000":  # between synsets, not between two of their lemmas
                target = (fields[at + 2], int(fields[at + 1]))
                pointers.setdefault(fields[at], {})[target] = None
        self._pointers = {symbol: tuple(targets) for symbol, targets in pointers.items()}
        first = self._lemma_names[0].lower()
        number = data.index[first][pos].index(self._offset) + 1
        self._name = f"{first}.{pos}.{number:02d}"

    def name(self) -> str:
        return self._name

    def pos(self) -> str:
        return self._pos

    def definition(self) -> str:
        return self._definition

    def lemmas(self) -> list[Lemma]:
        return self._lemmas

    def lemma_names(self) -> list[str]:
        return self._lemma_names

    def _related(self, symbol: str) -> list[Synset]:
        synset_at = self._data.synset_at
        return [synset_at(pos, offset) for pos, offset in self._pointers.get(symbol, ())]

    def hypernyms(self) -> list[Synset]:
        return self._related(_HYPERNYM)

    def instance_hypernyms(self) -> list[Synset]:
        return self._related(_INSTANCE_HYPERNYM)

    def hyponyms(self) -> list[Synset]:
        return self._related(_HYPONYM)

    def part_holonyms(self) -> list[Synset]:
        return self._related("#p")

    def part_meronyms(self) -> list[Synset]:
        return self._related("%p")

    def member_holonyms(self) -> list[Synset]:
        return self._related("#m")

    def topic_domains(self) -> list[Synset]:
        return self._related(";c")

    def usage_domains(self) -> list[Synset]:
        return self._related(";u")

    def region_domains(self) -> list[Synset]:
        return self._related(";r")

    def _sense_key(self, lemma: Lemma) -> str:
        """Return a lemma's sense key as NLTK writes it (a satellite names its head)."""
        head_name = head_id = ""
        if self._pos == "s":
            head = self._related(_SIMILAR)[0]._lemmas[0]
            head_name, head_id = head._name, f"{head._lex_id:02d}"
        number = _POS_NUMBERS[self._pos]
        return (
            f"{lemma._name}%{number}:{self._lexname:02d}:{lemma._lex_id:02d}:{head_name}:{head_id}"
        ).lower()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Synset):
            return NotImplemented
        return self._name == other._name

    def __hash__(self) -> int:
        return hash(self._name)

    def __repr__(self) -> str:
        return f"Synset('{self._name}')"


class _Data:
    """The synsets of a data folder, read line by line as they are first asked for.

    NLTK's reader parses a line with regular expressions and builds what synonyms never
    use (examples, verb frames, pointers between lemmas); the index, the exception lists and
    morphy stay NLTK's. The data files are mapped into memory (read-only, shared with every
    process through the page cache): a line is a slice, without a seek and a buffered read
    each. Callers hold _lock.
    """

    def __init__(self, root: Path) -> None:
        self.folder = wordnet_dir(root)
        self.index = _reader(root)._lemma_pos_offset_map
        self.files: dict[str, mmap.mmap | bytes] = {}
        self.read: dict[str, dict[int, Synset]] = {pos: {} for pos in _DATA_FILES}

    def synset_at(self, pos: str, offset: int) -> Synset:
        """Return the synset at a byte offset of a part of speech's data file."""
        if pos == "s":
            pos = "a"
        read = self.read[pos]
        synset = read.get(offset)
        if synset is None:
            data = self.files.get(pos)
            if data is None:
                data = self.files[pos] = _mapped(self.folder / _DATA_FILES[pos])
            end = data.find(b"\n", offset)
            line = data[offset : len(data) if end < 0 else end + 1].decode("utf-8")
            if line[:8] != f"{offset:08d}":
                raise LookupError(f"No WordNet synset at offset {offset} ({pos})")
            synset = read[offset] = Synset(self, line)
        return synset

    def synset(self, name: str) -> Synset:
        """Return a synset by its name ("car.n.01")."""
        lemma, pos, number = name.lower().rsplit(".", 2)
        return self.synset_at(pos, self.index[lemma][pos][int(number) - 1])


def _mapped(path: Path) -> mmap.mmap | bytes:
    """Return a data file mapped read-only into memory (its bytes if it cannot be mapped:
    an empty file cannot)."""
    with path.open("rb") as file:
        try:
            return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError):
            return file.read()


def _data(root: Path) -> _Data:
    data = _datas.get(root)
    if data is None:
        with _lock:
            data = _datas.get(root)
            if data is None:
                data = _datas[root] = _Data(root)
    return data


def _pos(synset: Synset) -> str:
    pos = synset.pos()
    return "a" if pos == "s" else pos


def _own_lemma(synset: Synset, key: str, bases: dict[str, set[str]], root: Path) -> Lemma | None:
    """Return the synset's lemma that the term (or its base form) names.

    bases: the term's base forms per part of speech, filled as they are looked up.
    """
    names = bases.get(synset.pos())
    if names is None:
        names = {key.lower()}
        names.update(base.lower() for base in _morphy(key.lower(), synset.pos(), root))
        bases[synset.pos()] = names
    for lemma in synset.lemmas():
        if lemma.name().lower() in names:
            return lemma
    return None


def _proper(own: Lemma, synset: Synset) -> bool:
    """Return True for a proper-name sense: capitalised in WordNet, or an instance."""
    return own.name()[:1].isupper() or bool(synset.instance_hypernyms())


def _clipped(own: Lemma, synset: Synset) -> bool:
    """Return True when the term only abbreviates the sense's main lemma ("car", cable car)."""
    first = synset.lemmas()[0]
    parts = first.name().lower().split("_")
    return first != own and len(parts) > 1 and own.name().lower() in parts


def _synonyms_of(data: _Data, synset: Synset, term: str, root: Path) -> tuple[str, ...]:
    """Return the lemmas of a sense that are synonyms of the term in that sense."""
    term_words = set(term.split())
    term_stems = tuple(_english_stems(term.split()))
    # The senses the term itself is used in: a synonym's use one link from them still
    # means what the term means ("cost" as an outlay is next to "price" as an amount).
    used = [
        data.synset(sense.id)
        for sense in _senses(term, root)
        if sense.uses and sense.pos == _pos(synset)
    ]
    common = stopwords("en")
    broader = set(_ancestors(synset.name(), root)) - {synset.name()}
    counts = _counts(root)
    found: list[tuple[int, str]] = []
    for lemma in synset.lemmas():
        name = lemma.name().replace("_", " ")
        words = tokenize(name)
        if not words or any(char.isupper() for char in name):
            continue  # a proper name, or an abbreviation written in capitals
        if set(words) <= term_words or tuple(_english_stems(words)) == term_stems:
            continue  # the term itself, one of its forms, or a word taken out of it
        if all(word in common for word in words):
            continue  # symbols made of stop words ("in" for Indiana)
        uses = _lemmas(lemma.name(), root)
        if any(other.synset().name() in broader for other in uses):
            continue  # broader than the term
        if not _usual_sense(lemma, synset, uses, used, root):
            continue
        found.append((counts.get(lemma.key(), 0), name))
    found.sort(key=lambda item: -item[0])  # stable: WordNet's order among equals
    return tuple(name for _, name in found)


def _usual_sense(
    lemma: Lemma, synset: Synset, uses: tuple[Lemma, ...], used: list[Synset], root: Path
) -> bool:
    """Return True if the lemma stands for this sense in most of its counted uses.

    It needs _LEMMA_SHARE of its uses in the sense's part of speech, and its uses in
    unrelated senses (another part of speech, or a sense not near this one nor a sense the
    term is used in: see _near) may be at most _UNRELATED_SHARE of them: "cost" for a price
    keeps (its other uses are outlays, next to a price), "suit" for a lawsuit does not (13
    of its 24 uses are clothes), nor "shot" for a shooting (30 of 54 are missiles, strokes,
    attempts), nor "offense" for a crime (3 of 4 are discourtesy and umbrage). A lemma with
    no counted use keeps only a sense it alone names in its part of speech.
    """
    if len(uses) <= 1:
        return True
    counts = _counts(root)
    counted = [counts.get(other.key(), 0) for other in uses]
    total = sum(counted)
    if total == 0:
        return sum(_pos(other.synset()) == _pos(synset) for other in uses) == 1
    pos = _pos(synset)
    same_pos = sum(
        count for other, count in zip(uses, counted, strict=True) if _pos(other.synset()) == pos
    )
    own = counts.get(lemma.key(), 0)
    if own == 0 or own < _LEMMA_SHARE * same_pos:
        return False
    # What the sense is called, but for the lemma itself, which its other glosses may name.
    named = _lemma_stems(synset) - context_stems([lemma.name().replace("_", " ")])
    unrelated = sum(
        count
        for other, count in zip(uses, counted, strict=True)
        if count
        and other.synset() != synset
        and not _near(other.synset(), synset, used, named, root)
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
    data = _data(root)
    found = {sense_id: 0}
    level = [sense_id]
    with _lock:
        while level:
            upper = []
            for name in level:
                synset = data.synset(name)
                for above in synset.hypernyms() + synset.instance_hypernyms():
                    if above.name() not in found:
                        found[above.name()] = found[name] + 1
                        upper.append(above.name())
            level = upper
    return found


def _gloss_stems(synset: Synset) -> frozenset[str]:
    return context_stems([synset.definition()])


def _lemma_stems(synset: Synset) -> frozenset[str]:
    return context_stems(name.replace("_", " ") for name in synset.lemma_names())


def _signature(synset: Synset) -> frozenset[str]:
    """Return the stems of the words describing a sense: its gloss and its neighbours' lemmas.

    Neighbours: its hypernyms up to _HYPERNYM_LEVELS links, its hyponyms, parts, wholes and
    the topic, usage and region domains of it and of its hypernyms. Not its examples: "The
    car hit a tree" would tie "strike" (hit) to any list about cars.
    """
    texts = [synset.definition()]
    above: list[Synset] = []
    level = [synset]
    for _ in range(_HYPERNYM_LEVELS):
        level = [upper for lower in level for upper in lower.hypernyms()]
        above.extend(level)
    domains = [
        domain
        for sense in (synset, *above)
        for domain in (*sense.topic_domains(), *sense.usage_domains(), *sense.region_domains())
    ]
    neighbours = [
        synset,
        *above,
        *domains,
        *synset.hyponyms(),
        *synset.part_holonyms(),
        *synset.part_meronyms(),
        *synset.member_holonyms(),
    ]
    texts.extend(name.replace("_", " ") for other in neighbours for name in other.lemma_names())
    return context_stems(texts)


@lru_cache(maxsize=1 << 18)
def _bases(word: str, root: Path) -> tuple[tuple[str, str], ...]:
    """Return the (lemma, pos) a word may be a noun or verb form of."""
    found: dict[tuple[str, str], None] = {}
    for pos in ("n", "v"):
        for base in _morphy(word, pos, root):
            found[(base.replace("_", " ").lower(), pos)] = None
    return tuple(found)


@lru_cache(maxsize=1)
def _irregular(root: Path) -> dict[tuple[str, str], tuple[str, ...]]:
    """Return {(lemma, pos): its irregular forms} from WordNet's exception lists."""
    reader = _reader(root)
    found: dict[tuple[str, str], list[str]] = {}
    for pos in ("n", "v"):
        for form, bases in reader._exception_map[pos].items():
            for base in bases:
                found.setdefault((base, pos), []).append(form)
    return {key: tuple(forms) for key, forms in found.items()}


def _plurals(word: str, root: Path) -> tuple[str, ...]:
    """Return a noun's plural forms: irregular ones, else the regular one."""
    irregular = _irregular(root).get((word, "n"))
    if irregular:
        return irregular
    return _add_s(word)


def _add_s(word: str) -> tuple[str, ...]:
    """Return the regular -s forms (plural of a noun, third person of a verb)."""
    if word.endswith("o"):
        return (word + "s", word + "es")  # autos, potatoes
    if word.endswith("man") and len(word) > 3:
        return (word[:-3] + "men", word + "s")  # gunmen (and Germans)
    if word.endswith(("ss", "us", "x", "z", "ch", "sh")):
        return (word + "es",)
    if word.endswith("s"):
        return ()  # already plural, or a mass noun ("measles", "news")
    if len(word) > 1 and word.endswith("y") and word[-2] not in "aeiou":
        return (word[:-1] + "ies",)
    return (word + "s",)


def _verb_forms(word: str, root: Path) -> tuple[str, ...]:
    """Return a verb's -s, past and -ing forms, irregular past forms from WordNet first."""
    irregular = _irregular(root).get((word, "v"), ())
    past = irregular if irregular else (_add_ed(word),)
    return (*_add_s(word), *past, _add_ing(word))


def _doubles(word: str) -> bool:
    """Return True if a short verb doubles its last consonant (stop, stopped, stopping)."""
    vowels = "aeiou"
    return (
        3 <= len(word) <= 4
        and word[-1] not in vowels + "wxy"
        and word[-2] in vowels
        and word[-3] not in vowels
    )


def _add_ed(word: str) -> str:
    if word.endswith("e"):
        return word + "d"
    if len(word) > 1 and word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ied"
    return word + word[-1] + "ed" if _doubles(word) else word + "ed"


def _add_ing(word: str) -> str:
    if word.endswith("ie"):
        return word[:-2] + "ying"
    if word.endswith("e") and not word.endswith("ee") and len(word) > 2:
        return word[:-1] + "ing"
    return word + word[-1] + "ing" if _doubles(word) else word + "ing"


def wordnet_reader(root: Path | None = None) -> WordNetCorpusReader:
    """Return NLTK's WordNet reader on a prepared data folder (default: data_dir())."""
    return _reader(Path(root) if root is not None else data_dir())


def _reader(root: Path) -> WordNetCorpusReader:
    """Build the reader once per folder, refusing a folder that is not prepared."""
    reader = _readers.get(root)
    if reader is not None:
        return reader
    folder = wordnet_dir(root)
    missing = [name for name in (*REQUIRED_FILES, "lexnames") if not (folder / name).is_file()]
    if missing:
        raise TextDataMissing(
            f"WordNet data not prepared in {folder} (missing {', '.join(missing)}). "
            f"Run: python -m analyzer.nltkdata {root}   (needs Debian's wordnet-base)"
        )
    # Imported here: NLTK pulls in SciPy, a second of start-up most callers never need.
    import nltk.data

    from analyzer.text import _nltk_wordnet

    with _lock, warnings.catch_warnings():
        if root in _readers:  # another thread built it while this one waited
            return _readers[root]
        # NLTK opens files only inside its registered data folders.
        if str(root) not in nltk.data.path:
            nltk.data.path.append(str(root))
        # Without Open Multilingual WordNet the reader warns; English is all we use.
        warnings.simplefilter("ignore")
        reader = _readers[root] = _nltk_wordnet.EnglishWordNet(str(folder), None)
        return reader


def irregular_forms(word: str) -> tuple[str, ...]:
    """Return the irregular forms of the lemmas a word may be a form of ("strike": struck).

    Only those a Snowball stem does not already find ("mice" for "mouse", "struck" for
    "strike", but not "strikes").
    """
    return _irregular_forms(word, data_dir())


@lru_cache(maxsize=1 << 18)
def _irregular_forms(word: str, root: Path) -> tuple[str, ...]:
    table = _irregular(root)
    own = None  # the word's stem, worked out only if it has irregular forms (few do)
    found: dict[str, None] = {}
    for base, pos in ((word, "n"), (word, "v"), *_bases(word, root)):
        for form in table.get((base, pos), ()):
            if " " in form:
                continue
            if own is None:
                own = _english_stems([word])[0]
            if _english_stems([form])[0] != own:
                found[form] = None
    if word.endswith("man") and len(word) > 3:
        found[word[:-3] + "men"] = None  # "gunmen": a rule of morphy's, not an exception
    return tuple(found)


@lru_cache(maxsize=4096)
def sense_gloss(sense_id: str) -> str:
    """Return the gloss of a sense by its synset name, "" for an unknown one."""
    reader = _reader(data_dir())
    with _lock:
        try:
            return str(reader.synset(sense_id).definition())
        except (ValueError, LookupError, AttributeError):
            return ""
