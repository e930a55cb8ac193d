"""NLTK's WordNet reader, trimmed to what English synonyms need."""

from __future__ import annotations

from nltk.corpus.reader.wordnet import WordNetCorpusReader


class EnglishWordNet(WordNetCorpusReader):  # type: ignore[misc]
    """NLTK's WordNet reader without the Open Multilingual WordNet mapping."""

    def map_wn(self, version: str = "wordnet") -> None:
        """Skip the mapping to WordNet 3.0 sense keys, which only OMW data needs.

        The reader builds it at start from index.sense, a file Debian's wordnet-base does
        not ship; synonyms never use it, and skipping it saves start-up time.
        """
        return None
