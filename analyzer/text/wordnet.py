"""Look up WordNet synonyms through NLTK's reader on the prepared offline data."""

from __future__ import annotations

import threading
import warnings
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from analyzer.nltkdata import REQUIRED_FILES, TextDataMissing, data_dir, wordnet_dir
from analyzer.text.languages import language_code
from analyzer.text.stemming import stems
from analyzer.text.tokens import tokenize

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

# NLTK's reader seeks and reads shared file objects, so lookups from several threads
# take turns; results are cached, so the lock is held only on a first lookup.
_lock = threading.RLock()
# One reader per data folder: loading one takes a second or two.
_readers: dict[Path, WordNetCorpusReader] = {}


def synonyms(term: str, language: str = "en") -> list[str]:
    """Return WordNet synonyms of a word or phrase (English only), most common sense first."""
    return list(_synonyms(" ".join(term.split()), language_code(language) or language, data_dir()))


@lru_cache(maxsize=16384)
def _synonyms(term: str, language: str, root: Path) -> tuple[str, ...]:
    """Return the synonyms of a space-normalised term, cached per data folder.

    Lemmas that are only another form of the term itself ("car" for "cars") are left
    out: they share its stems, so matching by stems finds them anyway.
    """
    if language != "en" or not term:
        return ()
    reader = _reader(root)
    with _lock:
        names = [
            lemma
            for synset in reader.synsets(term.replace(" ", "_"))
            for lemma in synset.lemma_names()
        ]
    seen = {tuple(stems(tokenize(term)))}
    found: list[str] = []
    for lemma in names:
        name = lemma.replace("_", " ")
        key = tuple(stems(tokenize(name)))
        if key not in seen:
            seen.add(key)
            found.append(name)
    return tuple(found)


def wordnet_reader(root: Path | None = None) -> WordNetCorpusReader:
    """Return NLTK's WordNet reader on a prepared data folder (default: data_dir())."""
    return _reader(Path(root) if root is not None else data_dir())


def _reader(root: Path) -> WordNetCorpusReader:
    """Build the reader once per folder, refusing a folder that is not prepared."""
    reader = _readers.get(root)
    if reader is not None:
        return reader
    folder = wordnet_dir(root)
    missing = [name for name in (*REQUIRED_FILES, "lexnames") if not (folder / name).is_file()]
    if missing:
        raise TextDataMissing(
            f"WordNet data not prepared in {folder} (missing {', '.join(missing)}). "
            f"Run: python -m analyzer.nltkdata {root}   (needs Debian's wordnet-base)"
        )
    # Imported here: NLTK pulls in SciPy, a second of start-up most callers never need.
    import nltk.data

    from analyzer.text import _nltk_wordnet

    with _lock, warnings.catch_warnings():
        if root in _readers:  # another thread built it while this one waited
            return _readers[root]
        # NLTK opens files only inside its registered data folders.
        if str(root) not in nltk.data.path:
            nltk.data.path.append(str(root))
        # Without Open Multilingual WordNet the reader warns; English is all we use.
        warnings.simplefilter("ignore")
        reader = _readers[root] = _nltk_wordnet.EnglishWordNet(str(folder), None)
        return reader
