"""Cut a page's text into tokens once, and stem them per language on demand."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from analyzer.text import stems, token_spans
from clipping.matching.compile import EXACT


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
            # A page repeats its words; stemming each distinct word once halves the work.
            distinct = list(set(self.words))
            stem_of = dict(zip(distinct, stems(distinct, space), strict=True))
            cached = self._stemmed[space] = [stem_of[word] for word in self.words]
        return cached


def prepare_text(text: str) -> PreparedText:
    """Tokenise a text for matching."""
    spans = token_spans(text)
    if not spans:
        return PreparedText(text, [], [], [])
    words, starts, ends = (list(column) for column in zip(*spans, strict=True))
    return PreparedText(text, words, starts, ends)
