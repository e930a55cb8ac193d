"""The Label Value Set table in memory, and matching form labels against it (HiWE 3.2, 5.3).

An LVS row is a label, its aliases (labels sharing the same value set) and a fuzzy set of
values with weights in [0, 1]. Labels are compared after HiWE normalisation with rapidfuzz's
`token_sort_ratio`, which tolerates typing errors (edit distance) and word reordering (the
words are sorted first): "Type of Company" and "company type" match, so do "Sectoin" and
"Section". HiWE used a block edit distance for the same two properties.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz, process

from analyzer.text import normalize, stems, tokenize
from crawler.sitesearch.detect import KEYWORD_ALIASES, KEYWORD_LABEL

ADMIN = "admin"
USERS = "users"
LEARNED = "learned"
# Human-supplied values are trusted first, then users' keywords, then what crawling taught.
SOURCE_ORDER = {ADMIN: 0, USERS: 1, LEARNED: 2}


@dataclass(frozen=True)
class LabelValues:
    """One LVS row: label, aliases, and values with weights in [0, 1]."""

    label: str
    values: tuple[tuple[str, float], ...]
    aliases: tuple[str, ...] = ()
    source: str = ADMIN
    row_id: int | None = None

    def __post_init__(self) -> None:
        for value, weight in self.values:
            if not 0.0 <= weight <= 1.0:
                raise ValueError(f"LVS value {value!r} has weight {weight}, not in [0, 1].")

    def weight(self, value: str) -> float | None:
        """Return the weight of `value` (compared normalised), None if the row lacks it."""
        wanted = _normal(value, "en")
        for own, weight in self.values:
            if _normal(own, "en") == wanted:
                return weight
        return None


@dataclass(frozen=True)
class LabelMatch:
    """The LVS row a form label matched, and how closely (0..1)."""

    row: LabelValues
    score: float
    matched: str  # the row's label or alias that matched, normalised


def keyword_row(queries: Mapping[str, float], source: str = USERS) -> LabelValues:
    """Return the LVS row of users' keywords, weights scaled so the heaviest is 1."""
    top = max(queries.values(), default=0.0)
    values = tuple(
        (query, round(weight / top, 6) if top > 0 else 1.0)
        for query, weight in sorted(queries.items(), key=lambda item: (-item[1], item[0]))
        if query.strip()
    )
    return LabelValues(KEYWORD_LABEL, values, KEYWORD_ALIASES, source)


def with_keywords(rows: Sequence[LabelValues], queries: Mapping[str, float]) -> list[LabelValues]:
    """Return the table with its users' row holding exactly `queries` (this site's keywords).

    The stored users' row is shared by every site and rewritten by each run; a run reads its
    own topic's keywords from here instead, so another site's run can never swap them. The
    stored row's aliases (admins may edit them) are kept.
    """
    stored = next((row for row in rows if row.source == USERS), None)
    own = keyword_row(queries)
    if stored is not None:
        own = LabelValues(own.label, own.values, stored.aliases, USERS, stored.row_id)
    return [row for row in rows if row.source != USERS] + [own]


# English function words and form filler ("Enter State", "Select a section"). The general
# stop list (stopwordsiso, 1,298 words) drops "state", "section", "date", "order" and "name":
# the very words labels are made of.
LABEL_STOPWORDS_EN = frozenset(
    {"a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any",
     "are", "as", "at", "be", "been", "before", "being", "below", "between", "both", "but",
     "by", "can", "choose", "could", "did", "do", "does", "doing", "down", "during", "each",
     "enter", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her",
     "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
     "just", "me", "more", "most", "my", "no", "nor", "not", "of", "off", "on", "once", "only",
     "or", "other", "our", "ours", "out", "over", "own", "please", "same", "select", "she",
     "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "then",
     "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up",
     "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom",
     "why", "will", "with", "would", "you", "your", "yours"}
)  # fmt: skip
_TAG = re.compile(r"<[^<>]*>")


def normalize_label(text: str, language: str = "en") -> str:
    """Return a label HiWE-normalised: no tags or entities, lower case, no stop words, stemmed.

    English uses LABEL_STOPWORDS_EN; other languages use the analyzer's normalisation.
    """
    if language != "en":
        return normalize(text, language)
    tokens = tokenize(html.unescape(_TAG.sub(" ", text)))
    kept = [t for t in tokens if t not in LABEL_STOPWORDS_EN] or tokens
    return " ".join(stems(kept, language))


@lru_cache(maxsize=4096)
def _normal(text: str, language: str) -> str:
    return normalize_label(text, language)


def match_label(
    label: str,
    rows: Sequence[LabelValues],
    threshold: float,
    *,
    language: str = "en",
) -> LabelMatch | None:
    """Return the LVS row whose label or alias best matches `label`, None below `threshold`.

    Ties go to the more trusted source (admin, then users, then learned).
    """
    wanted = _normal(label, language)
    if not wanted:
        return None
    choices: dict[tuple[int, str], str] = {}
    for index, row in enumerate(rows):
        for name in (row.label, *row.aliases):
            normal = _normal(name, language)
            if normal:
                choices[(index, normal)] = normal
    found = process.extract(
        wanted,
        choices,
        scorer=fuzz.token_sort_ratio,
        score_cutoff=threshold * 100,
        limit=None,
    )
    if not found:
        return None
    _, score, (index, normal) = max(
        found, key=lambda hit: (hit[1], -SOURCE_ORDER.get(rows[hit[2][0]].source, 9))
    )
    return LabelMatch(rows[index], score / 100, normal)
