"""Why a list matched a text: which term, in which form, in which sentence.

A match keeps its summary and the spans marked in it ([start, end, term line]); this reads
each span back against the list's compiled terms:

- exact: the term's own words as written (a quoted phrase always);
- inflection: another form of its words (their stems are the term's);
- synonym: a key that stands for synonyms, with the word, the synonym and its sense;
- pattern: a re: line's regular expression, with the words it matched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from analyzer.text import sentence_spans, tokenize
from analyzer.text.wordnet import sense_gloss
from clipping.matching.keys import EXACT, SEPARATOR, CompiledTerm
from clipping.terms import TermSyntaxError, parse_line

MAX_REASONS = 3  # one per term, the first terms of the summary
SENTENCE_LIMIT = 240

Reason = dict[str, object]


def explain(
    text: str, spans: Sequence[Sequence[object]], terms: Sequence[CompiledTerm], language: str
) -> list[Reason]:
    """Return a reason per distinct term among the spans of a text, in text order."""
    by_raw = {term.raw: term for term in terms}
    reasons: list[Reason] = []
    seen: set[str] = set()
    for start, end, raw in sorted((int(s[0]), int(s[1]), str(s[2])) for s in spans):  # type: ignore[call-overload]
        if raw in seen or len(reasons) >= MAX_REASONS:
            continue
        seen.add(raw)
        term = by_raw.get(raw)
        matched = text[start:end]
        form, via = _form(term, raw, tokenize(matched))
        reasons.append(
            {
                "term": raw,
                "form": form,
                "matched": matched,
                "via": via,
                "sentence": _sentence(text, start, end, language),
            }
        )
    return reasons


def _form(term: CompiledTerm | None, raw: str, words: list[str]) -> tuple[str, list[Reason]]:
    """Return the form a term was found in, and the synonyms that made a synonym match."""
    try:
        parsed = parse_line(raw)
    except TermSyntaxError:
        return "exact", []
    if parsed.is_pattern:
        return "pattern", []
    if parsed.phrase or list(parsed.words) == words:
        return "exact", []
    if term is not None and term.notes:
        joined = SEPARATOR.join(words)
        for (space, key), note in zip(term.keys, term.notes, strict=True):
            if note and space == EXACT and key == joined:
                return "synonym", [_via(part) for part in note.split(";")]
    return "inflection", []


def _via(note: str) -> Reason:
    word, synonym, sense = note.split(">")
    return {"word": word, "synonym": synonym, "sense": sense, "gloss": sense_gloss(sense)}


def _sentence(text: str, start: int, end: int, language: str) -> str:
    """Return the sentence holding a span, cut around it to SENTENCE_LIMIT characters."""
    for first, last in sentence_spans(text, language) or [(0, len(text))]:
        if first <= start < last:
            sentence = text[first:last].strip()
            if len(sentence) <= SENTENCE_LIMIT:
                return sentence
            middle = (start + end) // 2 - first
            left = max(0, min(middle - SENTENCE_LIMIT // 2, len(sentence) - SENTENCE_LIMIT))
            return "…" + sentence[left : left + SENTENCE_LIMIT].strip() + "…"
    return text[start:end]


def describe(reason: Reason) -> str:
    """Return one short line saying why: 'strike as “work stoppage” (synonym: …)'."""
    term, matched, form = reason.get("term", ""), reason.get("matched", ""), reason.get("form")
    if form == "synonym":
        via = cast(list[dict[str, object]], reason.get("via") or [])
        senses = "; ".join(
            f"{item.get('synonym')} for {item.get('word')}, “{item.get('gloss')}”" for item in via
        )
        return f"{term} as “{matched}” (synonym: {senses})"
    if form == "pattern":
        return f"{term} as “{matched}” (regular expression)"
    if form == "inflection":
        return f"{term} as “{matched}” (another form)"
    return f"{term} as written"
