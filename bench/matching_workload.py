"""Generate the keyword-index benchmark's lists and pages offline from Debian's WordNet.

A page is about one or two topics, like a news article: function words, common words
(Zipf over SemCor's counts in cntlist.rev) and the words and collocations of its topics.
A list belongs to someone following one or two topics: ten terms drawn from those topics.
Topics are groups of WordNet nouns; their popularity follows a mild Zipf law.

Calibration: a list should match a few pages in a thousand (someone gets a handful of clips
a day from thousands of crawled pages, or they would narrow the list). So topical words are
nouns whose stem is not a common word's, nor is any of their WordNet synonyms': a list
whose "nighttime" also matches "night" matches every page and gets edited by its owner.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from analyzer.text import stems, stopwords

WORDNET = Path("/usr/share/wordnet")
FUNCTION_WORDS = [
    "the",
    "of",
    "and",
    "to",
    "a",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
    "or",
    "his",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "they",
    "you",
    "were",
    "her",
    "she",
    "there",
    "been",
    "one",
    "all",
    "we",
    "their",
    "has",
    "would",
    "when",
    "if",
    "more",
    "will",
    "who",
    "its",
    "into",
    "than",
    "about",
    "after",
    "also",
    "new",
    "two",
]
TERMS_PER_LIST = 10
PAGE_WORDS = 2000
COMMON_WORDS = 8000  # the words every kind of page uses (Zipf, exponent 1.1 as for English)
TOPIC_SIZE = 12
TOPIC_EXPONENT = 0.2
VERB_LIKE = ("ing", "ed", "er", "ers", "s", "en", "ly")
HOSTS = [f"news{number}.example.com" for number in range(50)]


@dataclass(frozen=True)
class Vocabulary:
    """Common words for every page, and topics of nouns and collocations for pages and terms."""

    common: list[str]
    topic_words: list[list[str]]
    topic_phrases: list[list[str]]


@dataclass(frozen=True)
class Row:
    """A keyword list as stored: what the KeywordList table holds."""

    id: int
    terms: str
    use_synonyms: bool
    match_all: bool


def load_vocabulary(seed: int) -> Vocabulary:
    """Rank WordNet's lemmas by SemCor counts, and group the topical nouns into topics."""
    counts: Counter[str] = Counter()
    for line in (WORDNET / "cntlist.rev").read_text().splitlines():
        key, _, count = line.split()
        counts[key.split("%", 1)[0]] += int(count)
    offsets: dict[str, dict[str, list[str]]] = {}
    for pos in ("noun", "verb", "adj", "adv"):
        offsets[pos] = {}
        for line in (WORDNET / f"index.{pos}").read_text().splitlines():
            if not line.startswith(" "):
                fields = line.split()
                offsets[pos][fields[0]] = fields[-int(fields[2]) :]
    lemmas = sorted(set().union(*offsets.values()), key=lambda name: (-counts[name], name))
    words = [lemma for lemma in lemmas if _plain(lemma)]
    common = words[:COMMON_WORDS]
    common_stems = set(stems([*common, *FUNCTION_WORDS, *stopwords("en")], "en"))
    synsets = _noun_synsets()
    others = offsets["verb"].keys() | offsets["adj"].keys() | offsets["adv"].keys()

    def topical(lemma: str) -> bool:
        names = {lemma, *(name for offset in offsets["noun"][lemma] for name in synsets[offset])}
        return not any(
            set(stems(name.lower().replace("-", "_").split("_"), "en")) & common_stems
            for name in names
        )

    nouns = [lemma for lemma in lemmas if lemma in offsets["noun"] and lemma not in others]
    phrases = [
        noun
        for noun in nouns
        if noun.count("_") in (1, 2) and _plain(noun.replace("_", "")) and topical(noun)
    ]
    # A word inside collocations ("genus") or one WordNet reads as a verb form
    # ("forging", "lent") would match far beyond its topic.
    parts = {part for phrase in phrases for part in phrase.split("_")}
    singles = [
        noun
        for noun in nouns[COMMON_WORDS // 4 :]
        if _plain(noun)
        and "_" not in noun
        and noun not in parts
        and not noun.endswith(VERB_LIKE)
        and topical(noun)
    ]
    return _group_topics(singles, phrases, offsets["noun"], synsets, common, seed)


def _group_topics(singles, phrases, noun_offsets, synsets, common, seed) -> Vocabulary:
    """Pack words into topics so that synonyms share one, as they share articles.

    Words and collocations linked by a synset form a cluster; clusters are shuffled and
    packed into topics of about TOPIC_SIZE single words.
    """
    parent = {name: name for name in [*singles, *phrases]}

    def root(name: str) -> str:
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    for name in parent:
        for offset in noun_offsets[name]:
            for other in synsets[offset]:
                other = other.lower()
                if other in parent:
                    parent[root(other)] = root(name)
    clusters: dict[str, list[str]] = {}
    for name in parent:
        clusters.setdefault(root(name), []).append(name)
    order = list(clusters.values())
    np.random.default_rng(seed).shuffle(order)
    topic_words: list[list[str]] = [[]]
    topic_phrases: list[list[str]] = [[]]
    for cluster in order:
        if len(topic_words[-1]) >= TOPIC_SIZE:
            topic_words.append([])
            topic_phrases.append([])
        for name in sorted(cluster):
            if "_" in name:
                topic_phrases[-1].append(name.replace("_", " "))
            else:
                topic_words[-1].append(name)
    if len(topic_words[-1]) < TOPIC_SIZE:
        topic_words.pop()
        topic_phrases.pop()
    return Vocabulary(common=common, topic_words=topic_words, topic_phrases=topic_phrases)


def _noun_synsets() -> dict[str, list[str]]:
    """Return {offset: lemma names} of every noun synset, read straight from data.noun."""
    synsets = {}
    for line in (WORDNET / "data.noun").read_text().splitlines():
        if line.startswith(" "):
            continue
        fields = line.split(" ", 4 + 2 * 60)
        size = int(fields[3], 16)
        synsets[fields[0]] = [fields[4 + 2 * n].split("(")[0] for n in range(size)]
    return synsets


def _plain(word: str) -> bool:
    """Return True for a lower-case ASCII word of letters (underscores join collocations)."""
    return word.replace("_", "").isalpha() and word.isascii() and word.islower() and len(word) > 2


def zipf(size: int, offset: float = 1.0, exponent: float = 1.0) -> np.ndarray:
    """Return Zipf-Mandelbrot probabilities over ranks 0 .. size - 1."""
    weights = 1.0 / (np.arange(size) + offset) ** exponent
    return weights / weights.sum()


def inflect(word: str) -> str:
    """Return a plural-looking form, so stems have something to do."""
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def make_lists(count: int, vocabulary: Vocabulary, rng: np.random.Generator) -> list[Row]:
    """Return lists of TERMS_PER_LIST terms, 20% of them two- or three-word phrases.

    10% of lists end with an exclusion, 5% require every term, 3% are limited to a site,
    and 70% use synonyms (the form's default is on).
    """
    words, phrases = vocabulary.topic_words, vocabulary.topic_phrases
    popularity = zipf(len(words), exponent=TOPIC_EXPONENT)
    rows = []
    for number in range(count):
        interests = rng.choice(len(words), size=1 + int(rng.random() < 0.5), p=popularity)
        lines = []
        for kind in rng.random(TERMS_PER_LIST):
            topic = int(interests[int(kind * 1000) % len(interests)])
            word = words[topic][int(rng.integers(len(words[topic])))]
            if kind < 0.14 and phrases[topic]:  # a WordNet collocation, a third of them quoted
                phrase = phrases[topic][int(rng.integers(len(phrases[topic])))]
                lines.append(f'"{phrase}"' if kind < 0.047 else phrase)
            elif kind < 0.20:  # two of the topic's words together
                lines.append(f"{word} {words[topic][int(rng.integers(len(words[topic])))]}")
            elif kind < 0.30:
                lines.append(inflect(word))
            else:
                lines.append(word)
        flags = rng.random(4)
        if flags[0] < 0.10:
            lines[-1] = "-" + lines[-1].strip('"')
        if flags[2] < 0.03:
            lines.append(f"site:{HOSTS[int(flags[3] * len(HOSTS))]}")
        # Python bools, as the database gives them (numpy's are another type).
        synonyms, match_all = bool(flags[1] < 0.70), bool(flags[1] > 0.95)
        rows.append(Row(number + 1, "\n".join(lines), synonyms, match_all))
    return rows


def make_pages(count: int, vocabulary: Vocabulary, rng: np.random.Generator) -> list[str]:
    """Return pages of PAGE_WORDS words about one or two topics, with sentences."""
    common_p = zipf(len(vocabulary.common), offset=2.7, exponent=1.1)
    function_p = zipf(len(FUNCTION_WORDS))
    popularity = zipf(len(vocabulary.topic_words), exponent=TOPIC_EXPONENT)
    within_topic = zipf(4 * TOPIC_SIZE)
    pages = []
    for _ in range(count):
        topics = rng.choice(len(popularity), size=2, p=popularity)
        kinds = rng.random(PAGE_WORDS)
        common = rng.choice(len(common_p), size=PAGE_WORDS, p=common_p)
        function = rng.choice(len(function_p), size=PAGE_WORDS, p=function_p)
        topical = rng.choice(4 * TOPIC_SIZE, size=PAGE_WORDS, p=within_topic)
        tokens: list[str] = []
        sentence = 0
        for slot in range(PAGE_WORDS):
            kind = kinds[slot]
            topic = int(topics[int(kind * 1e6) % 2])
            if kind < 0.45:
                token = FUNCTION_WORDS[function[slot]]
            elif kind < 0.82:
                token = vocabulary.common[common[slot]]
            elif kind < 0.84 and vocabulary.topic_phrases[topic]:
                phrases = vocabulary.topic_phrases[topic]
                token = phrases[topical[slot] % len(phrases)]
            else:
                words = vocabulary.topic_words[topic]
                token = words[topical[slot] % len(words)]
                token = inflect(token) if kind > 0.95 else token
            sentence += 1
            if sentence == 1:
                token = token.capitalize()
            if sentence > 8 and kind * 100 % 1 < 0.08:
                token += "."
                sentence = 0
            tokens.append(token.replace("_", " "))
        pages.append(" ".join(tokens) + ".")
    return pages
