"""Lay out Debian's WordNet files as an NLTK data folder, offline.

The Makefile's `$(NLTK_DATA)/.ready` rule runs it, so `make install`, `make run`, `make test`
and `make test-fast` do.

Usage: python -m analyzer.nltkdata [TARGET]
(default TARGET: $WEBCLIP_NLTK_DATA, else $WEBCLIP_VAR_DIR/nltk_data, else var/nltk_data)
"""

from __future__ import annotations

import os
import shutil
import sys
from functools import lru_cache
from pathlib import Path

DEBIAN_WORDNET = Path("/usr/share/wordnet")
REQUIRED_FILES = (
    "data.adj",
    "data.adv",
    "data.noun",
    "data.verb",
    "index.adj",
    "index.adv",
    "index.noun",
    "index.verb",
    "adj.exc",
    "adv.exc",
    "noun.exc",
    "verb.exc",
)
OPTIONAL_FILES = ("cntlist.rev",)

# WordNet 3.0's lexicographer files, numbered 0..44, with their syntactic category
# (1 noun, 2 verb, 3 adjective, 4 adverb), as listed in lexnames(5WN). Debian's
# wordnet-base ships the database without this file and NLTK's reader needs it.
LEXNAMES = (
    ("adj.all", 3), ("adj.pert", 3), ("adv.all", 4), ("noun.Tops", 1), ("noun.act", 1),
    ("noun.animal", 1), ("noun.artifact", 1), ("noun.attribute", 1), ("noun.body", 1),
    ("noun.cognition", 1), ("noun.communication", 1), ("noun.event", 1), ("noun.feeling", 1),
    ("noun.food", 1), ("noun.group", 1), ("noun.location", 1), ("noun.motive", 1),
    ("noun.object", 1), ("noun.person", 1), ("noun.phenomenon", 1), ("noun.plant", 1),
    ("noun.possession", 1), ("noun.process", 1), ("noun.quantity", 1), ("noun.relation", 1),
    ("noun.shape", 1), ("noun.state", 1), ("noun.substance", 1), ("noun.time", 1),
    ("verb.body", 2), ("verb.change", 2), ("verb.cognition", 2), ("verb.communication", 2),
    ("verb.competition", 2), ("verb.consumption", 2), ("verb.contact", 2),
    ("verb.creation", 2), ("verb.emotion", 2), ("verb.motion", 2), ("verb.perception", 2),
    ("verb.possession", 2), ("verb.social", 2), ("verb.stative", 2), ("verb.weather", 2),
    ("adj.ppl", 3),
)  # fmt: skip


class TextDataMissing(RuntimeError):
    """Offline language data (WordNet) is not where the text tools look for it."""


def data_dir() -> Path:
    """Return the NLTK data folder: $WEBCLIP_NLTK_DATA, else <var dir>/nltk_data.

    The var dir is $WEBCLIP_VAR_DIR or <repo root>/var, the same default as the settings.
    """
    return _data_dir(os.environ.get("WEBCLIP_NLTK_DATA"), os.environ.get("WEBCLIP_VAR_DIR"))


# Every synonym lookup asks for the folder: resolving paths each time was a third of the
# time spent compiling a new keyword list.
_REPO_VAR = Path(__file__).resolve().parent.parent / "var"


@lru_cache(maxsize=16)
def _data_dir(configured: str | None, var_dir: str | None) -> Path:
    if configured:
        return Path(configured)
    return Path(var_dir or _REPO_VAR) / "nltk_data"


def wordnet_dir(root: Path) -> Path:
    """Return the WordNet folder inside an NLTK data folder."""
    return root / "corpora" / "wordnet"


def lexnames_text() -> str:
    """Return the content of WordNet's lexnames file."""
    return "".join(
        f"{number:02d}\t{name}\t{category}\n" for number, (name, category) in enumerate(LEXNAMES)
    )


def prepare(target: Path, source: Path = DEBIAN_WORDNET) -> Path:
    """Copy WordNet's files into target/corpora/wordnet, write lexnames; return that folder.

    1. Every required database file must exist in source (else TextDataMissing).
    2. Files are copied, not linked: NLTK refuses to open files whose real path lies
       outside its data folders, and a copy survives the folder moving to another host.
    3. A file already copied (same size and time) and a correct lexnames are left alone,
       so running twice changes nothing.
    """
    missing = [name for name in REQUIRED_FILES if not (source / name).is_file()]
    if missing:
        raise TextDataMissing(
            f"WordNet files missing in {source}: {', '.join(missing)}. "
            "Install Debian's package: apt-get install wordnet-base"
        )
    folder = wordnet_dir(Path(target))
    folder.mkdir(parents=True, exist_ok=True)
    for name in REQUIRED_FILES + OPTIONAL_FILES:
        if (source / name).is_file():
            _copy(source / name, folder / name)
    lexnames = folder / "lexnames"
    text = lexnames_text()
    if not lexnames.is_file() or lexnames.read_text(encoding="utf-8") != text:
        partial = folder / "lexnames.tmp"
        partial.write_text(text, encoding="utf-8")
        partial.replace(lexnames)  # atomic, so a reader never sees half a file
    return folder


def _copy(source: Path, destination: Path) -> None:
    """Copy source to destination unless an identical copy is already there."""
    if destination.is_file() and not destination.is_symlink():
        have, want = destination.stat(), source.stat()
        if have.st_size == want.st_size and int(have.st_mtime) == int(want.st_mtime):
            return
    destination.unlink(missing_ok=True)
    partial = destination.with_name(destination.name + ".tmp")
    shutil.copy2(source, partial)
    partial.replace(destination)


def main(argv: list[str] | None = None) -> int:
    """Prepare the NLTK data folder named on the command line (or the default)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or (args and args[0] in {"-h", "--help"}):
        print(__doc__, file=sys.stderr)
        return 2
    target = Path(args[0]) if args else data_dir()
    try:
        folder = prepare(target)
    except (TextDataMissing, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"WordNet ready in {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
