"""WordNet on the prepared offline data (English), through NLTK's public WordNet reader.

One reader per data folder (`wordnet_reader`), shared by every thread: NLTK's reader seeks
and reads shared file objects, so lookups take turns under `lock`; results are cached, so
the lock is held only on a first lookup. Besides the reader: base forms of a word as
NLTK's morphy finds them, and the inflections of a lemma (word_forms, variants,
irregular_forms) that WordNet's exception lists and the regular English rules give.
The senses of a term and the choice among them are analyzer.text.senses'.
"""

from __future__ import annotations

import threading
import warnings
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from analyzer.nltkdata import REQUIRED_FILES, TextDataMissing, data_dir, wordnet_dir
from analyzer.text.languages import language_code
from analyzer.text.stemming import stems

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Lemma, Synset, WordNetCorpusReader

lock = threading.RLock()
# One reader per data folder: loading one takes a second or two.
_readers: dict[Path, WordNetCorpusReader] = {}

# Languages with an offline thesaurus. Open Multilingual WordNet is neither in Debian nor
# in a PyPI package that ships its data (the `wn` package downloads it at run time).
THESAURUS_LANGUAGES = frozenset({"en"})

# WordNet's exception lists (wndb(5WN)) per part of speech; satellites share the adjectives'.
_EXCEPTION_FILES = {"n": "noun.exc", "v": "verb.exc", "a": "adj.exc", "r": "adv.exc"}


def has_thesaurus(language: str) -> bool:
    """Return True if synonyms exist offline for the language."""
    return (language_code(language) or language) in THESAURUS_LANGUAGES


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

    with lock, warnings.catch_warnings():
        if root in _readers:  # another thread built it while this one waited
            return _readers[root]
        # NLTK opens files only inside its registered data folders.
        if str(root) not in nltk.data.path:
            nltk.data.path.append(str(root))
        # Without Open Multilingual WordNet the reader warns; English is all we use.
        warnings.simplefilter("ignore")
        reader = _readers[root] = _nltk_wordnet.EnglishWordNet(str(folder), None)
        return reader


@lru_cache(maxsize=1 << 18)
def synsets(key: str, root: Path) -> tuple[Synset, ...]:
    """Return reader.synsets(key) (a lemma, "_" between its words), cached per folder."""
    reader = _reader(root)
    with lock:
        return tuple(reader.synsets(key))


def synset(name: str, root: Path) -> Synset:
    """Return a synset by its name ("car.n.01")."""
    reader = _reader(root)
    with lock:
        return reader.synset(name)


@lru_cache(maxsize=1 << 17)
def lemmas(name: str, root: Path) -> tuple[Lemma, ...]:
    """Return reader.lemmas(name), cached per lemma: many senses ask for the same lemmas."""
    lowered = name.lower()
    return tuple(
        other
        for found in synsets(lowered, root)
        for other in found.lemmas()
        if other.name().lower() == lowered
    )


def count(lemma: Lemma, root: Path) -> int:
    """Return lemma.count(), the lemma's tagged uses in SemCor (0 without cntlist.rev)."""
    return _counts(root).get(lemma.key(), 0)


@lru_cache(maxsize=4)
def _counts(root: Path) -> dict[str, int]:
    """Return {sense key: tagged uses} from cntlist.rev, read once: NLTK's lemma.count()
    searches the file on every call, a third of the time senses and synonyms took."""
    counts: dict[str, int] = {}
    path = wordnet_dir(root) / "cntlist.rev"
    if path.is_file():  # optional in Debian's wordnet-base: no counts, every sense alike
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) == 3:
                counts[parts[0]] = int(parts[2])
    return counts


@lru_cache(maxsize=4)
def _exceptions(root: Path) -> dict[str, dict[str, tuple[str, ...]]]:
    """Return WordNet's exception lists: {part of speech: {form: its base forms}}."""
    _reader(root)  # an unprepared folder is refused before anything is read
    found: dict[str, dict[str, tuple[str, ...]]] = {}
    for pos, name in _EXCEPTION_FILES.items():
        lines = (wordnet_dir(root) / name).read_text(encoding="utf-8").splitlines()
        found[pos] = {form: tuple(bases) for form, *bases in map(str.split, lines)}
    found["s"] = found["a"]
    return found


def candidates(form: str, pos: str, root: Path) -> tuple[str, ...]:
    """Return a lowered form and what morphy may take it for: its exceptions, else each of
    the part of speech's suffix rules applied once (not yet checked against WordNet)."""
    exceptions = _exceptions(root)[pos]
    if form in exceptions:
        return (form, *exceptions[form])
    rules = _reader(root).MORPHOLOGICAL_SUBSTITUTIONS[pos]
    return (form, *[form[: -len(old)] + new for old, new in rules if form.endswith(old)])


@lru_cache(maxsize=1 << 18)
def base_forms(form: str, pos: str, root: Path) -> tuple[str, ...]:
    """Return the base forms of a lowered word or phrase in a part of speech, as NLTK's
    morphy finds them: those of its candidates that WordNet holds in that part of speech."""
    reader = _reader(root)
    with lock:  # satellites: morphy takes any adjective for one, so their index is the a's
        found = reader.synsets(form, "a" if pos == "s" else pos)
    names = {lemma.name().lower() for each in found for lemma in each.lemmas()}
    return tuple(name for name in dict.fromkeys(candidates(form, pos, root)) if name in names)


def sense_gloss(sense_id: str) -> str:
    """Return the gloss of a sense by its synset name, "" for an unknown one."""
    return _sense_gloss(sense_id, data_dir())


@lru_cache(maxsize=4096)
def _sense_gloss(sense_id: str, root: Path) -> str:
    try:
        return str(synset(sense_id, root).definition())
    except (ValueError, LookupError, AttributeError):
        return ""


# --- Inflections -----------------------------------------------------------------------------


def word_forms(name: str, pos: str) -> tuple[str, ...]:
    """Return a lemma and its English inflections for a part of speech, the lemma first.

    Nouns inflect their last word ("work stoppages"), verbs their first ("walked out");
    irregular forms come from WordNet's exception lists, the rest from the regular rules.
    """
    return _word_forms(name, pos, data_dir())


@lru_cache(maxsize=1 << 18)
def _word_forms(name: str, pos: str, root: Path) -> tuple[str, ...]:
    """Return word_forms, cached per data folder: every phrase with a word asks for them."""
    words = name.lower().split()
    if not words:
        return ()
    if pos == "n":
        at, inflected = len(words) - 1, _plurals(words[-1], root)
    elif pos == "v":
        at, inflected = 0, _verb_forms(words[0], root)
    else:
        return (" ".join(words),)
    found = {" ".join(words): None}
    for form in inflected:
        found[" ".join([*words[:at], form, *words[at + 1 :]])] = None
    return tuple(found)


def variants(word: str) -> tuple[str, ...]:
    """Return a word and every inflection of the lemmas it may be a form of (any noun or verb).

    "prices" gives price, prices, priced, pricing: what a word of a phrase may look like
    where a synonym stands beside it.
    """
    return _variants(word, data_dir())


@lru_cache(maxsize=1 << 18)
def _variants(word: str, root: Path) -> tuple[str, ...]:
    found = {word: None}
    for base, pos in _bases(word, root):
        found.update(dict.fromkeys(_word_forms(base, pos, root)))
    if len(found) == 1:
        found.update(dict.fromkeys(_plurals(word, root)))
    return tuple(found)


def irregular_forms(word: str) -> tuple[str, ...]:
    """Return the irregular forms of the lemmas a word may be a form of ("strike": struck).

    Only those a Snowball stem does not already find ("mice" for "mouse", "struck" for
    "strike", but not "strikes").
    """
    return _irregular_forms(word, data_dir())


@lru_cache(maxsize=1 << 18)
def _irregular_forms(word: str, root: Path) -> tuple[str, ...]:
    table = _irregular(root)
    own = None  # the word's stem, worked out only if it has irregular forms (few do)
    found: dict[str, None] = {}
    for base, pos in ((word, "n"), (word, "v"), *_bases(word, root)):
        for form in table.get((base, pos), ()):
            if " " in form:
                continue
            if own is None:
                own = stems([word], "en")[0]
            if stems([form], "en")[0] != own:
                found[form] = None
    if word.endswith("man") and len(word) > 3:
        found[word[:-3] + "men"] = None  # "gunmen": a rule of morphy's, not an exception
    return tuple(found)


@lru_cache(maxsize=1 << 18)
def _bases(word: str, root: Path) -> tuple[tuple[str, str], ...]:
    """Return the (lemma, pos) a word may be a noun or verb form of."""
    found: dict[tuple[str, str], None] = {}
    for pos in ("n", "v"):
        for base in base_forms(word, pos, root):
            found[(base.replace("_", " ").lower(), pos)] = None
    return tuple(found)


@lru_cache(maxsize=1)
def _irregular(root: Path) -> dict[tuple[str, str], tuple[str, ...]]:
    """Return {(lemma, pos): its irregular forms} from WordNet's exception lists."""
    found: dict[tuple[str, str], list[str]] = {}
    for pos in ("n", "v"):
        for form, bases in _exceptions(root)[pos].items():
            for base in bases:
                found.setdefault((base, pos), []).append(form)
    return {key: tuple(forms) for key, forms in found.items()}


def _plurals(word: str, root: Path) -> tuple[str, ...]:
    """Return a noun's plural forms: irregular ones, else the regular one."""
    irregular = _irregular(root).get((word, "n"))
    if irregular:
        return irregular
    return _add_s(word)


def _add_s(word: str) -> tuple[str, ...]:
    """Return the regular -s forms (plural of a noun, third person of a verb)."""
    if word.endswith("o"):
        return (word + "s", word + "es")  # autos, potatoes
    if word.endswith("man") and len(word) > 3:
        return (word[:-3] + "men", word + "s")  # gunmen (and Germans)
    if word.endswith(("ss", "us", "x", "z", "ch", "sh")):
        return (word + "es",)
    if word.endswith("s"):
        return ()  # already plural, or a mass noun ("measles", "news")
    if len(word) > 1 and word.endswith("y") and word[-2] not in "aeiou":
        return (word[:-1] + "ies",)
    return (word + "s",)


def _verb_forms(word: str, root: Path) -> tuple[str, ...]:
    """Return a verb's -s, past and -ing forms, irregular past forms from WordNet first."""
    irregular = _irregular(root).get((word, "v"), ())
    past = irregular if irregular else (_add_ed(word),)
    return (*_add_s(word), *past, _add_ing(word))


def _doubles(word: str) -> bool:
    """Return True if a short verb doubles its last consonant (stop, stopped, stopping)."""
    vowels = "aeiou"
    return (
        3 <= len(word) <= 4
        and word[-1] not in vowels + "wxy"
        and word[-2] in vowels
        and word[-3] not in vowels
    )


def _add_ed(word: str) -> str:
    if word.endswith("e"):
        return word + "d"
    if len(word) > 1 and word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ied"
    return word + word[-1] + "ed" if _doubles(word) else word + "ed"


def _add_ing(word: str) -> str:
    if word.endswith("ie"):
        return word[:-2] + "ying"
    if word.endswith("e") and not word.endswith("ee") and len(word) > 2:
        return word[:-1] + "ing"
    return word + word[-1] + "ing" if _doubles(word) else word + "ing"
