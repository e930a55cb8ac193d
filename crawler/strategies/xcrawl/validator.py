"""xCrawl's validator: is a fetched page an authority for the topic? (accepted / not accepted)

A page is accepted when

1. the Page Analyzer classifies it as an information page (hub pages, and so pages made of
   navigation, are never authorities), and
2. the text of its informational areas (teasers excluded: they summarise other pages)
   contains topic terms whose summed weight reaches the required score. The score counts
   each distinct stem once with its topic weight (keywords weigh 1, sample-document terms
   their TF-IDF weight in (0, 1]) and each multi-word keyword found whole as 1.
   Required: `min_score` (XCRAWL_VALIDATOR_MIN_SCORE, default 2.0, i.e. two keywords), or
   the whole topic's weight when the topic is lighter than that (a one-keyword topic
   accepts pages holding that keyword).

The crawler treats the verdict as a black box; only `accepted` steers the walk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crawler.strategies.xcrawl.reading import PageWords, page_words
from crawler.topic import Topic

DEFAULT_MIN_SCORE = 2.0


@dataclass(frozen=True)
class Verdict:
    """The validator's answer on one page, with the score and a reason for people."""

    accepted: bool
    score: float = 0.0
    reason: str = ""


def required_score(topic: Topic, min_score: float = DEFAULT_MIN_SCORE) -> float:
    """Return the score a page needs: `min_score`, or the whole topic's weight if lighter."""
    total = sum(topic.terms.values()) + len(topic.phrases)
    return min(min_score, total)


def topic_affinity(
    analysis: Any,
    topic: Topic,
    *,
    min_score: float = DEFAULT_MIN_SCORE,
    words: PageWords | None = None,
) -> float:
    """Return how much of the required topic score a page's content shows, in [0, 1].

    Counts the title and every informational area, teasers included, of any page kind: a
    list whose teasers speak of the topic leads to authorities. Menus do not count.
    `words`: the page's `page_words` in the topic's language, when read already.
    """
    if analysis is None or topic.is_empty():
        return 0.0
    shown = (words or page_words(analysis, topic.language)).shown
    needed = required_score(topic, min_score)
    return min(1.0, topic.score(shown) / needed) if needed > 0 else 0.0


def validate(
    analysis: Any,
    topic: Topic,
    *,
    min_score: float = DEFAULT_MIN_SCORE,
    words: PageWords | None = None,
) -> Verdict:
    """Return whether the analysed page is an authority for the topic.

    `words`: the page's `page_words` in the topic's language, when read already.
    """
    if analysis is None:
        return Verdict(False, reason="not analysed")
    if topic.is_empty():
        return Verdict(False, reason="empty topic")
    if analysis.kind != "information":
        return Verdict(False, reason=f"{analysis.kind} page")
    found = (words or page_words(analysis, topic.language)).informational
    if not found:
        return Verdict(False, reason="no informational text")
    score = topic.score(found)
    needed = required_score(topic, min_score)
    if score >= needed:
        return Verdict(True, score, f"topic score {score:g} >= {needed:g}")
    return Verdict(False, score, f"topic score {score:g} < {needed:g}")
