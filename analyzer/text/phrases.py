"""The sense a word of a phrase takes from the phrase's other words (English, WordNet).

"chip" alone says nothing of what it means; in "chip export" the glosses of "export" speak of
electronic data, as the microchip's description does, and of no potato. A keyword list's
phrase not in WordNet ("chip export") has its words' senses chosen one by one
(clipping.matching.synonyms); a word the list's context and the tagged uses leave without a
sense takes the one its phrase supports.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from analyzer.text.senses import Sense, context_stems, senses
from analyzer.text.wordnet import lock, synset

# A word of a phrase that no other evidence gives a sense takes the one the phrase's other
# words speak of: at least this many stems of their glosses and lemmas in its description,
# more than any other sense's (bench/matching_quality.py chooses it by cross-validation).
PHRASE_OVERLAP = 2


def phrase_senses(
    found: Iterable[Sense],
    others: Iterable[str],
    parts_of_speech: str = "nar",
    min_overlap: int | None = None,
) -> tuple[Sense, ...]:
    """Return the sense a word of a phrase takes from the phrase's other words, or ().

    "chip" of "chip export": the glosses of "export" speak of electronic data, as the
    microchip's description does, and of no potato. The sense whose description (its
    signature) shares at least min_overlap (PHRASE_OVERLAP) stems with the glosses and lemmas of the other
    words' senses wins, if it shares more than any other sense.
    """
    least = PHRASE_OVERLAP if min_overlap is None else min_overlap
    words = _phrase_words(tuple(sorted(set(others))))
    scored = [
        (len(sense.signature & words), sense) for sense in found if sense.pos in parts_of_speech
    ]
    best = max((overlap for overlap, _ in scored), default=0)
    top = [sense for overlap, sense in scored if overlap == best]
    return (top[0],) if best >= least and len(top) == 1 else ()


@lru_cache(maxsize=1 << 16)
def _phrase_words(others: tuple[str, ...]) -> frozenset[str]:
    """Return the stems of the words, their senses' glosses and lemmas."""
    texts = list(others)
    for word in others:
        for sense in senses(word):
            texts.append(sense.gloss)
            with lock:
                names = synset(sense.id, sense.root).lemma_names()
            texts.extend(name.replace("_", " ") for name in names)
    return context_stems(texts)
