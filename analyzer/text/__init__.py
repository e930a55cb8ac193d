"""Text tools for the Page Analyzer: tokens, stems, stop words, sentences, synonyms, language.

Everything works offline: stemming is the Snowball project's (PyStemmer), stop words come
from stopwordsiso, sentence splitting is rule-based, and synonyms come from Debian's WordNet
prepared by `python -m analyzer.nltkdata`.
"""

from __future__ import annotations

import html

import regex

from analyzer.nltkdata import TextDataMissing
from analyzer.text.languages import (
    DEFAULT_LANGUAGE,
    SUPPORTED_LANGUAGES,
    detect_language,
    language_code,
    stopwords,
)
from analyzer.text.senses import synonyms
from analyzer.text.sentences import sentence_spans, split_sentences
from analyzer.text.stemming import stem, stems
from analyzer.text.tokens import token_columns, token_spans, tokenize

__all__ = [
    "DEFAULT_LANGUAGE",
    "SUPPORTED_LANGUAGES",
    "TextDataMissing",
    "detect_language",
    "language_code",
    "normalize",
    "sentence_spans",
    "split_sentences",
    "stem",
    "stems",
    "stopwords",
    "synonyms",
    "token_columns",
    "token_spans",
    "tokenize",
]

_TAG = regex.compile(r"<[^<>]*>")


def normalize(text: str, language: str = "en") -> str:
    """Return HiWE-normalised text: no tags or entities, lower case, no stop words, stemmed.

    1. Tags become spaces, then entities are decoded ("&eacute;" is a letter, "&amp;" a space).
    2. Tokens are runs of letters and digits: every other character acts as a space.
    3. Stop words are dropped, unless that would leave nothing: a label made only of
       stop words ("State", "Where") still needs a value to match.
    4. The rest is Snowball-stemmed and joined by single spaces.
    """
    tokens = tokenize(html.unescape(_TAG.sub(" ", text)))
    common = stopwords(language)
    kept = [token for token in tokens if token not in common] or tokens
    return " ".join(stems(kept, language))
