"""Cut a page's text into tokens once, and stem them per language on demand."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import NamedTuple, cast

from analyzer.text import stems, token_columns
from clipping.matching.keys import EXACT


class MatchedSpan(NamedTuple):
    """Where a term matched: character offsets into the matched text, and the term's line."""

    start: int
    end: int
    term: str


@dataclass
class PreparedText:
    """A text's lower-cased tokens with their offsets, and their stems per language."""

    text: str
    words: list[str]
    starts: list[int]
    ends: list[int]
    _stemmed: dict[str, list[str]] = field(default_factory=dict, repr=False)

    def sequence(self, space: str) -> list[str]:
        """Return the tokens as a key space sees them: words (EXACT) or their stems."""
        if space == EXACT:
            return self.words
        cached = self._stemmed.get(space)
        if cached is None:
            cached = self._stemmed[space] = stem_all(self.words, space)
        return cached


# {language: {word: stem}}: pages share most of their words, so after a few pages nearly
# every word's stem is a dictionary lookup away. Bounded: cleared when it grows too large.
_stems: dict[str, dict[str, str]] = {}
STEM_CACHE_SIZE = 1 << 19


def stem_all(words: list[str], language: str) -> list[str]:
    """Return the stem of every word, stemming only words this process has not seen."""
    known = _stems.setdefault(language, {})
    found = list(map(known.get, words))
    if None in found:
        missing = {word for word, stem in zip(words, found, strict=True) if stem is None}
        if len(known) + len(missing) > STEM_CACHE_SIZE:
            known.clear()
            missing = set(words)
        unknown = list(missing)
        # Interned: a stem that is a key of the index is then the same object as the key.
        known.update(zip(unknown, map(sys.intern, stems(unknown, language)), strict=True))
        found = list(map(known.__getitem__, words))
    return cast(list[str], found)


def prepare_text(text: str) -> PreparedText:
    """Tokenise a text for matching."""
    words, starts, ends = token_columns(text)
    return PreparedText(text, words, starts, ends)
