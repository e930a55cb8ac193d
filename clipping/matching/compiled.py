"""Use the keyword index compiled by mypyc from its own Python source, when that build is current.

`make compile-matching` (build() here) compiles copies of index.py and spans.py with mypyc
into the package clipping/matching/_mypyc/ and records there the hash of the sources it
compiled. The package is used only while that hash is the hash of the sources here, so a
build never runs older code than the Python beside it: after an edit, until the next build,
the index runs as pure Python, the reference, which is also what runs without any build.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from clipping.matching import index

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
BUILD = HERE / "_mypyc"
PACKAGE = "clipping.matching._mypyc"
# The modules compiled, and the modules whose types they were compiled against.
COMPILED = ("index.py", "spans.py")
SOURCES = (*COMPILED, "compile.py", "keys.py", "lines.py", "resolution.py", "text.py")


def source_hash() -> str:
    """Return the hash of the sources a build must have been made from to be used."""
    digest = hashlib.sha256()
    for name in SOURCES:
        digest.update(name.encode() + b"\0" + (HERE / name).read_bytes() + b"\0")
    return digest.hexdigest()


def load(package: str = PACKAGE) -> ModuleType | None:
    """Return the compiled index module if it was built from the sources here, else None."""
    try:
        built = importlib.import_module(package)
    except ImportError:
        return None  # never built (or the build failed): pure Python
    if getattr(built, "SOURCE_HASH", None) != source_hash():
        log.warning(
            "%s was compiled from other sources: the keyword index runs as pure Python until"
            " `make compile-matching` builds it again",
            package,
        )
        return None
    try:
        return importlib.import_module(f"{package}.index")
    except ImportError as exc:  # built for another Python, say
        log.warning("%s cannot be loaded (%s): the keyword index runs as pure Python", package, exc)
        return None


# The keyword index every caller uses: the build's while it is current, else index.py's.
_current = load()
KeywordIndex: type[index.KeywordIndex] = (
    index.KeywordIndex if _current is None else _current.KeywordIndex
)


def build() -> None:
    """Compile index.py and spans.py with mypyc into clipping/matching/_mypyc.

    1. Remove any previous build: until this one completes, the index is pure Python.
    2. Copy the modules into the package, hashing the very bytes copied.
    3. Compile them (one shared library, inside the package) and remove the copies.
    4. Write the hash into the package's __init__.py: only now is the build current.
    A build that fails leaves no package behind.
    """
    root = HERE.parent.parent
    shutil.rmtree(BUILD, ignore_errors=True)
    BUILD.mkdir()
    expected = source_hash()
    try:
        (BUILD / "__init__.py").write_text('"""Being built: not current."""\n')
        for name in COMPILED:
            shutil.copyfile(HERE / name, BUILD / name)
        _compile(root, [f"{PACKAGE.replace('.', '/')}/{name}" for name in COMPILED])
        for name in COMPILED:
            (BUILD / name).unlink()
        if source_hash() != expected:
            raise RuntimeError("the sources changed during the build: run it again")
    except BaseException:
        shutil.rmtree(BUILD, ignore_errors=True)
        raise
    (BUILD / "__init__.py").write_text(
        f'"""The keyword index compiled by mypyc (clipping/matching/compiled.py)."""\n\n'
        f'SOURCE_HASH = "{expected}"\n'
    )
    print(f"Compiled {', '.join(COMPILED)} into {BUILD}", file=sys.stderr)


def _compile(root: Path, paths: list[str]) -> None:
    """Run mypyc on the copied modules (paths relative to root) and build them in place."""
    from mypyc.build import mypycify  # noqa: PLC0415 (dev dependency, needed only here)
    from setuptools import Distribution  # noqa: PLC0415

    cwd = os.getcwd()
    os.chdir(root)  # mypy names modules by their path, and --inplace writes beside them
    try:
        with tempfile.TemporaryDirectory() as temp:
            # The mypy options are pyproject.toml's (strict); the modules they import are
            # only read for their types.
            options = ["--follow-imports=silent", f"--cache-dir={temp}/mypy"]
            extensions = mypycify(
                [*paths, *options],
                target_dir=f"{temp}/c",
                group_name=f"{PACKAGE}.loops",  # its shared library stays inside the package
            )
            # build_ext --inplace, without setup() reading pyproject.toml's project table.
            distribution = Distribution({"ext_modules": extensions})
            command = distribution.get_command_obj("build_ext")
            command.inplace = True
            command.build_lib, command.build_temp = f"{temp}/lib", f"{temp}/o"
            distribution.run_command("build_ext")
    finally:
        os.chdir(cwd)
