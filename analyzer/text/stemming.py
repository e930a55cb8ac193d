"""Stem words with the Snowball project's stemmers (PyStemmer, C speed, Greek included)."""

from __future__ import annotations

import threading
from functools import lru_cache

import regex
import Stemmer

from analyzer.text.languages import SUPPORTED_LANGUAGES, language_code

# PyStemmer objects are not thread-safe, so every thread gets its own per language.
_local = threading.local()
_SURROGATE = regex.compile(r"[\ud800-\udfff]")


def _stemmer(code: str) -> Stemmer.Stemmer:
    """Return this thread's stemmer for a supported language code."""
    try:
        stemmers: dict[str, Stemmer.Stemmer] = _local.stemmers
    except AttributeError:
        stemmers = _local.stemmers = {}
    stemmer = stemmers.get(code)
    if stemmer is None:
        stemmer = stemmers[code] = Stemmer.Stemmer(SUPPORTED_LANGUAGES[code])
    return stemmer


@lru_cache(maxsize=64)
def _code(language: str) -> str | None:
    """Return language_code(language), once per language: stems is called word by word."""
    return language_code(language)


@lru_cache(maxsize=65536)
def stem(word: str, language: str = "en") -> str:
    """Return the Snowball stem of a word; an unsupported language gives the word lower-cased."""
    lowered = word.lower()
    code = language_code(language)
    if code is None:
        return lowered
    try:
        return str(_stemmer(code).stemWord(lowered))
    except UnicodeEncodeError:
        return str(_stemmer(code).stemWord(_encodable(lowered)))


def stems(tokens: list[str], language: str = "en") -> list[str]:
    """Return the stems of many tokens in one call."""
    lowered = [token.lower() for token in tokens]
    code = _code(language)
    if code is None:
        return lowered
    try:
        return list(map(str, _stemmer(code).stemWords(lowered)))
    except UnicodeEncodeError:
        return [str(word) for word in _stemmer(code).stemWords(map(_encodable, lowered))]


def _encodable(word: str) -> str:
    """Replace lone surrogates, which the C stemmer cannot encode, by U+FFFD."""
    return str(_SURROGATE.sub("\ufffd", word))
