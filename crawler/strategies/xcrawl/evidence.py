"""Topical evidence around a link on a hub, and the terms a run learns from its authorities.

A hub says much about the pages it lists before they are fetched: the anchor, and the item
block the link sits in (a teaser's title, its excerpt, the category labels printed beside
it). `item_texts` finds that block from the page's structure: the largest element around the
link that holds no link to another page of the same URL shape (the next item of the list).

`Evidence` scores such text against the topic: the users' keyword stems, their synonyms
(weighted 0.8) and the terms learnt in this run (`LearnedTerms`, at most 0.2 each and 0.15
together), normalised by the score the validator requires, so 1 means "as topical as an
accepted page needs to be".
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from analyzer.text import stems, stopwords, synonyms, tokenize
from crawler.canonical import url_shape
from crawler.strategies.xcrawl.reading import ITEM_CHARS, MIN_ITEM_STEPS
from crawler.topic import Topic

SYNONYM_WEIGHT = 0.8
LEARNED_WEIGHT = 0.2  # the most one learnt term adds
# The most all learnt terms add together: below the yield expected of an unread list page
# (priority.PRIOR_YIELD), so learnt terms order posts among themselves and beat barren
# lists, but never send the crawl after every page sharing a common word.
LEARNED_CAP = 0.15
STOPWORD_LANGUAGES = ("en", "it", "fr", "de", "es", "pt", "nl", "sv", "ru")
_STEMS_KEPT = 20_000  # texts whose stems a run remembers


class Evidence:
    """Score text against a topic widened by synonyms and learnt terms."""

    def __init__(self, topic: Topic, needed: float) -> None:
        self.topic = topic
        self.language = topic.language
        self.needed = max(needed, 1e-9)
        self.synonyms = _synonym_stems(topic)
        self.learned: dict[str, float] = {}
        self._stems: dict[str, frozenset[str]] = {}

    def stems(self, text: str) -> frozenset[str]:
        """Return the stems of a text in the topic's language.

        Remembered: a site's menus, tags and sidebars give the same links the same words on
        every page.
        """
        found = self._stems.get(text)
        if found is None:
            if len(self._stems) >= _STEMS_KEPT:
                self._stems.clear()  # only time is lost
            found = self._stems[text] = frozenset(stems(tokenize(text), self.language))
        return found

    def score(self, found: Iterable[str]) -> float:
        """Return the evidence of a set of stems in [0, 1]."""
        found = found if isinstance(found, (set, frozenset)) else set(found)
        total = self.topic.score(found)
        total += sum(SYNONYM_WEIGHT for stem in self.synonyms if stem in found)
        learned = sum(w for stem, w in self.learned.items() if stem in found)
        total += min(LEARNED_CAP, learned)
        return min(1.0, total / self.needed)


def _synonym_stems(topic: Topic) -> set[str]:
    """Return the stems of the synonyms of the users' one-word keywords (not already terms)."""
    found: set[str] = set()
    common = stopwords(topic.language)
    for query in topic.queries:
        if " " in query.strip():
            continue
        for name in synonyms(query, topic.language):
            words = [w for w in tokenize(name) if w not in common]
            if len(words) == 1:
                found.update(stems(words, topic.language))
    return found - set(topic.terms)


class LearnedTerms:
    """Terms that keep company with the users' words: frequent in authorities, rare elsewhere.

    Document frequencies over the information pages fetched in the run; a stem is learnt
    when at least `min_pages` authorities hold it and it is at least `lift` times more
    frequent among authorities than among the other pages (smoothed, and only once
    `contrast` other pages were seen: without them every common word looks topical).
    """

    def __init__(
        self,
        language: str,
        exclude: Iterable[str],
        *,
        min_pages: int = 4,
        lift: float = 4.0,
        contrast: int = 10,
    ) -> None:
        self.language = language
        self.exclude = set(exclude) | set(stems(list(stopwords(language)), language))
        self.min_pages = min_pages
        self.lift = lift
        self.contrast = contrast  # rejected pages needed before anything is learnt
        self.accepted: Counter[str] = Counter()
        self.rejected: Counter[str] = Counter()
        self.pages = [0, 0]  # accepted, rejected
        self._stopwords: dict[str, frozenset[str]] = {}

    def add(self, found: Iterable[str], *, accepted: bool, language: str = "") -> None:
        """Count one information page's stems (stop words of the page's language left out)."""
        # Pages often declare one language for all (a template's lang="en" on Italian
        # posts): the stop words of the common languages all go.
        common = self._common(language or self.language)
        words = {
            s
            for s in found
            if len(s) > 2 and not s.isdigit() and s not in self.exclude and s not in common
        }
        if accepted:
            self.accepted.update(words)
            self.pages[0] += 1
        else:
            self.rejected.update(words)
            self.pages[1] += 1

    def _common(self, language: str) -> frozenset[str]:
        """Return the stop words of a language, as words and as the topic's stems of them."""
        if language not in self._stopwords:
            words: set[str] = set()
            for code in {language, *STOPWORD_LANGUAGES}:
                words |= stopwords(code)
            self._stopwords[language] = frozenset(words) | frozenset(
                stems(list(words), self.language)
            )
        return self._stopwords[language]

    def terms(self, limit: int = 20) -> dict[str, float]:
        """Return the learnt stems with their weight in (0, LEARNED_WEIGHT], best first."""
        good, bad = self.pages
        if good < self.min_pages or bad < self.contrast:
            return {}
        scored = []
        for stem, count in self.accepted.items():
            if count < self.min_pages:
                continue
            inside = count / good
            outside = (self.rejected[stem] + 0.5) / (bad + 1)
            lift = inside / outside
            if lift >= self.lift:
                scored.append((inside * math.log(lift), stem))
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        best = scored[0][0] if scored else 1.0
        return {stem: LEARNED_WEIGHT * value / best for value, stem in scored[:limit]}


def item_texts(links: Iterable[Any], canonical: Callable[[str], str]) -> dict[str, str]:
    """Return, per canonical link target, the text of the list item(s) holding its links.

    1. Every link's element path ("html/body/main/section/article[3]/h2/a") is climbed
       while the ancestor holds no link to another target of the same URL shape.
    2. The item's text: anchors and block texts of every link inside it, cut to
       ITEM_CHARS; a target linked from several items gets all of them.
    """
    rows = []
    for link in links:
        try:
            url = canonical(link.url)
        except ValueError:
            continue
        rows.append((url, url_shape(url), link.path.split("/"), f"{link.text} {link.context}"))
    # Per element path prefix and shape: the targets below it.
    below: dict[tuple[str, str], set[str]] = {}
    for url, shape, steps, _ in rows:
        for depth in range(1, len(steps)):
            below.setdefault(("/".join(steps[:depth]), shape), set()).add(url)
    texts_at: dict[str, list[str]] = {}
    for _, _, steps, text in rows:
        for depth in range(1, len(steps) + 1):
            texts_at.setdefault("/".join(steps[:depth]), []).append(text)
    items: dict[str, list[str]] = {}
    for url, shape, steps, text in rows:
        root = "/".join(steps)
        for depth in range(len(steps) - 1, MIN_ITEM_STEPS - 1, -1):
            prefix = "/".join(steps[:depth])
            if below.get((prefix, shape), set()) - {url}:
                break
            root = prefix
        block = " ".join(dict.fromkeys(texts_at.get(root, [text])))
        items.setdefault(url, []).append(block[:ITEM_CHARS])
    return {url: " ".join(dict.fromkeys(blocks)) for url, blocks in items.items()}


def url_words(url: str) -> str:
    """Return the words of a URL's path and query ("/posts/python-tips/" -> "posts python tips")."""
    rest = url.split("://", 1)[-1]
    return " ".join(address_words(rest.split("/", 1)[1] if "/" in rest else ""))


def address_words(part: str) -> list[str]:
    """Return the words of a part of an address ("python-tips" -> python, tips), no numbers."""
    return [word for word in re.split(r"[^\w]+|_", part) if word and not word.isdigit()]
