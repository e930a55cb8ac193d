"""Split text into sentences offline, minding abbreviations, decimals, quotes and ellipses.

A regex finds every place where a sentence may end (terminal punctuation, then closing
quotes or brackets, then white space) and a few rules reject the false ones. NLTK's Punkt
with hand-given abbreviations did the same job at about 8 ms per 2,000-word article; this
does it in well under 1 ms, and the Page Analyzer runs it on every page.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from analyzer.text.languages import language_code

_CLOSERS = "\"'”’»›)]}"
_OPENERS = "\"'“‘„«‹([{¿¡"
# Full stop, ! and ?, the Greek question mark (U+037E), the Arabic question mark, the
# Armenian full stop, the Devanagari danda and double danda, and the ellipsis character.
_TERMINATORS = ".!?\u037e\u061f\u0589\u0964\u0965\u2026"
_PARAGRAPH = r"(?P<para>\n[^\S\n]*\n\s*)"
# A sentence does not start with these; after a period they continue it ("N.Y. — Hours").
_CONTINUERS = frozenset(",;:—–-")
_NEXT_CHAR = re.compile(rf"[\s{re.escape(_OPENERS)}]*([^\s{re.escape(_OPENERS)}])")


def _boundary_pattern(terminators: str) -> re.Pattern[str]:
    """Compile the pattern of possible sentence ends for a set of terminal characters."""
    chars = re.escape(terminators)
    closers = re.escape(_CLOSERS)
    return re.compile(rf"(?P<end>[{chars}]+)[{closers}]*(?=\s|$)|{_PARAGRAPH}")


# In Greek ";" is the question mark.
_BOUNDARY = _boundary_pattern(_TERMINATORS)
_BOUNDARY_GREEK = _boundary_pattern(_TERMINATORS + ";")

# Abbreviations (lower case, no final period) after which a capitalised word does not start
# a new sentence: titles before names, and a few Latin forms. Words that usually end a
# sentence when they end with a period ("etc.", "p.m.", "Inc.") are deliberately absent.
_COMMON = {"dr", "prof", "st", "mt", "ft", "vs", "v", "cf", "viz", "e.g", "i.e", "ca", "approx"}
_TITLES: dict[str, set[str]] = {
    "en": {
        "mr",
        "mrs",
        "ms",
        "mx",
        "messrs",
        "jr",
        "sr",
        "rev",
        "hon",
        "gen",
        "col",
        "lt",
        "sgt",
        "capt",
        "cmdr",
        "adm",
        "gov",
        "sen",
        "rep",
        "pres",
        "supt",
        "insp",
        "u.s",
        "u.k",
        "u.n",
        "e.u",
    },
    "de": {"hr", "fr", "frl", "z.b", "bzw", "vgl", "evtl", "ggf", "inkl", "sog", "u.a", "d.h", "s"},
    "fr": {"m", "mm", "mme", "mmes", "mlle", "mlles", "me", "p.ex", "ste"},
    "es": {"sr", "sra", "srta", "dra", "ud", "uds", "p.ej", "lic"},
    "it": {"sig", "sigg", "sig.ra", "dott", "dott.ssa", "ing", "avv", "on"},
    "pt": {"sr", "sra", "dra", "exmo", "exma"},
    "nl": {"dhr", "mevr", "mw", "bijv", "o.a", "m.b.t"},
    "el": {"κ", "κα", "π.χ", "δηλ", "βλ", "υπ", "τηλ", "αγ", "μ.χ"},
    "ru": {"т.е", "т.к", "им", "ул", "г-н", "г-жа", "проф", "акад"},
}
# Abbreviations that stand before a number ("No. 5", "Fig. 3", "Jan. 12"): no break when a
# digit follows, an ordinary break otherwise ("The answer was no. Then ...").
_BEFORE_NUMBER = {
    "no",
    "nos",
    "nr",
    "fig",
    "figs",
    "vol",
    "p",
    "pp",
    "ch",
    "art",
    "sec",
    "para",
    "eq",
    "ref",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "est",
    "αρ",
    "σελ",
    "άρθ",
    "τ",
}
# Languages that write ordinals with a period ("am 3. Oktober"): a number then a period
# does not end the sentence.
_ORDINAL_DOT = {"de", "da", "no", "fi", "hu", "cs", "et", "lt", "pl", "sr", "tr", "eo"}


@lru_cache(maxsize=64)
def _abbreviations(code: str) -> frozenset[str]:
    """Return the no-break abbreviations of a language."""
    return frozenset(_COMMON | _TITLES["en"] | _TITLES.get(code, set()))


def sentence_spans(text: str, language: str = "en") -> list[tuple[int, int]]:
    """Return (start, end) offsets of every sentence, white space trimmed."""
    code = language_code(language) or "en"
    pattern = _BOUNDARY_GREEK if code == "el" else _BOUNDARY
    rules = _Rules(code, _abbreviations(code), code in _ORDINAL_DOT)
    spans: list[tuple[int, int]] = []
    start = 0
    for match in pattern.finditer(text):
        if match.group("para") is not None:
            _append(spans, text, start, match.start())
            start = match.end()
        elif _ends_sentence(text, match.start(), match.group("end"), match.end(), start, rules):
            _append(spans, text, start, match.end())
            start = match.end()
    _append(spans, text, start, len(text))
    return spans


def split_sentences(text: str, language: str = "en") -> list[str]:
    """Return the sentences of a text."""
    return [text[start:end] for start, end in sentence_spans(text, language)]


def _append(spans: list[tuple[int, int]], text: str, start: int, end: int) -> None:
    """Add the span start..end with white space trimmed, unless it is empty."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        spans.append((start, end))


class _Rules(NamedTuple):
    """The language-specific facts one split needs, looked up once."""

    code: str
    abbreviations: frozenset[str]
    ordinal_dot: bool


def _ends_sentence(
    text: str, term_start: int, terminator: str, after: int, sentence_start: int, rules: _Rules
) -> bool:
    """Decide whether the terminator at term_start really ends the sentence.

    1. A lower-case letter or a dash or comma next means the sentence goes on ("e.g. this",
       '"Why?" she asked', "BUFFALO, N.Y. — Hours").
    2. Only a single period can belong to a word: "?", "!", ";" and ellipses end the sentence.
    3. A period after a known abbreviation, an initial ("J. R. R. Tolkien"), an ordinal in
       languages that write them with a period, or a list number opening the sentence
       ("1. Introduction") does not.
    """
    following = _next_char(text, after)
    if following is None:
        return True
    if following.islower() or following in _CONTINUERS:
        return False
    if terminator != ".":
        return True
    word_start = term_start
    while word_start > sentence_start and not text[word_start - 1].isspace():
        word_start -= 1
    word = text[word_start:term_start].lstrip(_OPENERS).lower()
    if not word:
        return True
    if word in rules.abbreviations or (len(word) == 1 and word.isalpha()):
        return False
    if word in _BEFORE_NUMBER and following.isdigit():
        return False
    if not word.isdigit():
        return True
    # Bounded look-back keeps a long run of abbreviations from making this quadratic.
    opens_sentence = (
        len(word) <= 2
        and word_start - sentence_start <= 32
        and not text[sentence_start:word_start].strip()
    )
    return not rules.ordinal_dot and not opens_sentence


def _next_char(text: str, position: int) -> str | None:
    """Return the first character after position that is neither space nor an opener."""
    # A real sentence start is near; the window bounds the scan on a run of blanks.
    match = _NEXT_CHAR.match(text, position, position + 64)
    if match is not None:
        return match.group(1)
    return None if position + 64 >= len(text) else " "
