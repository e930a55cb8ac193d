"""Algorithm 2 (clip extraction): titled summaries around the terms users asked for.

A term matches case-insensitively on word boundaries and by Snowball stems in the page's
language, word by word for phrases: "subsidy" matches "Subsidies", "rail strike" matches
"rail strikes". The summary is the sentence before, the sentence with the term and the
sentence after, joined by single spaces. Teasers give no clip: their article is what the
user wants, so they give a FollowHint for its URL instead (extract_follow_hints), as do
hub links whose anchor text holds a term.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from functools import lru_cache

from analyzer import text as text_tools
from analyzer.model import Clip, FollowHint, InfoArea, PageAnalysis


def find_terms(text: str, terms: Iterable[str], language: str) -> list[tuple[str, int, int]]:
    """Return (term, start, end) for every occurrence of every term in text, in order."""
    tokens = _tokens(text, language)
    if not tokens[0]:
        return []
    words, stems, starts, ends = tokens
    first_word: dict[str, list[int]] = {}
    first_stem: dict[str, list[int]] = {}
    for position, (word, stem) in enumerate(zip(words, stems, strict=True)):
        first_word.setdefault(word, []).append(position)
        first_stem.setdefault(stem, []).append(position)
    found: list[tuple[str, int, int]] = []
    for term in dict.fromkeys(terms):  # each distinct term once, in the caller's order
        term_words = text_tools.tokenize(term)
        if not term_words:
            continue
        term_stems = text_tools.stems(term_words, language)
        size = len(term_words)
        candidates = sorted(
            set(first_word.get(term_words[0], ())) | set(first_stem.get(term_stems[0], ()))
        )
        last_end = -1
        for position in candidates:
            if position + size > len(words) or starts[position] < last_end:
                continue
            if all(
                words[position + k] == term_words[k] or stems[position + k] == term_stems[k]
                for k in range(1, size)
            ):
                end = ends[position + size - 1]
                found.append((term, starts[position], end))
                last_end = end
    found.sort(key=lambda match: (match[1], match[2]))
    return found


def summarize(text: str, start: int, end: int, language: str) -> tuple[str, tuple[int, int]]:
    """Return (summary, span): the sentences before, with and after text[start:end].

    span locates text[start:end] inside the summary. At the start or the end of the text
    the summary simply has no sentence before or after.
    """
    spans = _sentences(text, language)
    if not spans:
        return text[start:end], (0, end - start)
    starts = [span[0] for span in spans]
    middle = max(0, bisect_right(starts, start) - 1)
    first = max(0, middle - 1)
    pieces = [text[a:b] for a, b in spans[first : middle + 2]]
    summary = " ".join(pieces)
    local = sum(len(piece) + 1 for piece in pieces[: middle - first])
    local += start - spans[middle][0]
    return summary, (local, min(local + end - start, len(summary)))


def clip_for_span(
    analysis: PageAnalysis, area: InfoArea, start: int, end: int, term: str | None = None
) -> Clip:
    """Return the clip for text area.text[start:end] (a match found by another index)."""
    summary, span = summarize(area.text, start, end, analysis.language)
    return Clip(
        title=area.title,
        summary=summary,
        term=term if term is not None else area.text[start:end],
        span=span,
        matched=area.text[start:end],
        area_path=area.path,
        url=analysis.url,
    )


def extract_clips(analysis: PageAnalysis, terms: Iterable[str]) -> list[Clip]:
    """Return one clip per term occurrence (one per term and sentence) in informational
    areas, teasers excepted."""
    wanted = list(terms)
    clips: list[Clip] = []
    for area in analysis.informational_areas:
        if area.teaser:
            continue
        seen: set[tuple[str, int]] = set()
        for term, start, end in find_terms(area.text, wanted, analysis.language):
            sentence = _sentence_start(area.text, start, analysis.language)
            if (term, sentence) in seen:
                continue
            seen.add((term, sentence))
            clips.append(clip_for_span(analysis, area, start, end, term))
    return clips


def extract_follow_hints(analysis: PageAnalysis, terms: Iterable[str]) -> list[FollowHint]:
    """Return the articles to clip instead of this page: teasers and hub links whose text
    holds a term (one hint per URL and term)."""
    wanted = list(terms)
    hints: list[FollowHint] = []
    seen: set[tuple[str, str]] = set()

    def add(url: str, term: str, title: str, teaser: str, area_path: str) -> None:
        if (url, term) not in seen:
            seen.add((url, term))
            hints.append(FollowHint(url, term, title, teaser, area_path, analysis.url))

    for area in analysis.informational_areas:
        if not (area.teaser and area.follow_url):
            continue
        for term, _, _ in find_terms(f"{area.title}\n{area.text}", wanted, analysis.language):
            add(area.follow_url, term, area.title, area.text, area.path)
    for hub in analysis.hub_areas:
        for link in hub.links:
            for term, _, _ in find_terms(link.text, wanted, analysis.language):
                add(link.url, term, link.text, link.context, hub.path)
    return hints


@lru_cache(maxsize=16)  # an area is matched term by term; big texts must not pile up
def _tokens(text: str, language: str) -> tuple[list[str], list[str], list[int], list[int]]:
    """Return the words, stems, starts and ends of a text's tokens (cached per area)."""
    spans = text_tools.token_spans(text)
    words = [word for word, _, _ in spans]
    return (
        words,
        text_tools.stems(words, language),
        [start for _, start, _ in spans],
        [end for _, _, end in spans],
    )


@lru_cache(maxsize=16)  # an area is matched term by term; big texts must not pile up
def _sentences(text: str, language: str) -> list[tuple[int, int]]:
    """Return the sentence spans of a text (cached per area)."""
    return text_tools.sentence_spans(text, language)


def _sentence_start(text: str, position: int, language: str) -> int:
    """Return the start of the sentence holding position."""
    spans = _sentences(text, language)
    starts = [span[0] for span in spans]
    index = bisect_right(starts, position) - 1
    return starts[index] if index >= 0 else 0
