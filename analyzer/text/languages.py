"""Name languages, give their stop words and guess a text's language, all offline."""

from __future__ import annotations

from functools import lru_cache

import regex
import stopwordsiso

from analyzer.text.tokens import tokenize

DEFAULT_LANGUAGE = "en"

# ISO 639-1 code -> Snowball algorithm name (the names NLTK's SnowballStemmer also uses).
# Every language with both a Snowball stemmer (PyStemmer) and an offline stop-word list
# (stopwordsiso), so that every text tool works for each. That is all of NLTK's Snowball
# languages plus Greek and 14 more. Snowball's Nepali, Serbian, Tamil and Yiddish stemmers
# are left out for want of a stop-word list; "porter" and "dutch_porter" are older
# variants of English and Dutch.
SUPPORTED_LANGUAGES: dict[str, str] = {
    "ar": "arabic",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": "english",
    "eo": "esperanto",
    "es": "spanish",
    "et": "estonian",
    "eu": "basque",
    "fa": "persian",
    "fi": "finnish",
    "fr": "french",
    "ga": "irish",
    "hi": "hindi",
    "hu": "hungarian",
    "hy": "armenian",
    "id": "indonesian",
    "it": "italian",
    "lt": "lithuanian",
    "nl": "dutch",
    "no": "norwegian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "st": "sesotho",
    "sv": "swedish",
    "tr": "turkish",
}

# Other codes seen in <html lang> for the same languages.
_ALIASES = {"nb": "no", "nn": "no", "gr": "el", "in": "id"}
_NAMES = {name: code for code, name in SUPPORTED_LANGUAGES.items()}

# Scripts used by exactly one supported language decide at once; shared scripts (Latin,
# Arabic) go to the stop-word vote among their languages.
_SCRIPT_LANGUAGES: dict[str, tuple[str, ...]] = {
    "Greek": ("el",),
    "Armenian": ("hy",),
    "Cyrillic": ("ru",),
    "Devanagari": ("hi",),
    "Arabic": ("ar", "fa"),
}
_SCRIPT_RE = {
    script: regex.compile(rf"\p{{Script={script}}}") for script in [*_SCRIPT_LANGUAGES, "Latin"]
}
_LETTER = regex.compile(r"\p{L}")
_LATIN_LANGUAGES = tuple(
    code
    for code in SUPPORTED_LANGUAGES
    if not any(code in codes for codes in _SCRIPT_LANGUAGES.values())
)
# Enough text to vote on; reading more only costs time.
_SAMPLE_CHARS = 4000
# A vote below this (about two words only a couple of languages share) is noise.
_MIN_VOTES = 1.0


@lru_cache(maxsize=256)  # asked for every stemmed word list: a pure function of a short string
def language_code(language: str | None) -> str | None:
    """Return the supported ISO 639-1 code for a code, tag or Snowball name, else None."""
    if not language:
        return None
    tag = language.strip().lower().replace("_", "-")
    primary = tag.split("-", 1)[0]
    primary = _ALIASES.get(primary, primary)
    if primary in SUPPORTED_LANGUAGES:
        return primary
    return _NAMES.get(tag)


@lru_cache(maxsize=64)
def stopwords(language: str = DEFAULT_LANGUAGE) -> frozenset[str]:
    """Return the lower-cased stop words of a language (empty for an unsupported one)."""
    code = language_code(language)
    if code is None:
        return frozenset()
    return frozenset(word.lower() for word in stopwordsiso.stopwords(code))


@lru_cache(maxsize=1)
def _stopword_weights() -> dict[str, dict[str, float]]:
    """Map each stop word to the languages listing it, weighted 1/len(languages)."""
    owners: dict[str, list[str]] = {}
    for code in SUPPORTED_LANGUAGES:
        for word in stopwords(code):
            owners.setdefault(word, []).append(code)
    # A word many languages share (e.g. "a", "de") says little about any one of them.
    return {word: {code: 1.0 / len(codes) for code in codes} for word, codes in owners.items()}


def detect_language(text: str, html_lang: str | None = None) -> str:
    """Return the page's language: <html lang> if supported, else guessed from the text."""
    declared = language_code(html_lang)
    if declared is not None:
        return declared
    sample = text[:_SAMPLE_CHARS]
    candidates = _script_candidates(sample)
    if len(candidates) == 1:
        return candidates[0]
    fallback = candidates[0] if candidates and DEFAULT_LANGUAGE not in candidates else None
    return _vote(sample, candidates) or fallback or DEFAULT_LANGUAGE


def _script_candidates(sample: str) -> tuple[str, ...]:
    """Return the languages written in the sample's dominant script.

    Letters of scripts no supported language uses (Hangul, Han, Thai ...) count too: when
    they dominate, no candidate is returned and the caller falls back to the default.
    """
    counts = {script: len(pattern.findall(sample)) for script, pattern in _SCRIPT_RE.items()}
    script, count = max(counts.items(), key=lambda item: item[1])
    if count == 0 or count * 2 < len(_LETTER.findall(sample)) - sum(counts.values()):
        return ()
    if script == "Latin":
        return _LATIN_LANGUAGES
    return _SCRIPT_LANGUAGES[script]


def _vote(sample: str, candidates: tuple[str, ...]) -> str | None:
    """Return the candidate whose stop words the sample uses most, if the vote is clear."""
    weights = _stopword_weights()
    allowed = set(candidates)
    scores: dict[str, float] = {}
    for token in tokenize(sample):
        for code, weight in weights.get(token, {}).items():
            if code in allowed:
                scores[code] = scores.get(code, 0.0) + weight
    if not scores:
        return None
    # Ties go to English, then alphabetically, so the answer never depends on dict order.
    best = max(scores, key=lambda code: (scores[code], code == DEFAULT_LANGUAGE, code))
    return best if scores[best] >= _MIN_VOTES else None
