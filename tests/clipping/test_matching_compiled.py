"""The mypyc build of the keyword index (make compile-matching): used only if current."""

from __future__ import annotations

import logging
import shutil

import pytest

from clipping.matching import KeywordIndex, compiled
from clipping.matching import index as pure


def fake_build(tmp_path, monkeypatch, name: str, source_hash: str, index: str) -> str:
    """Make an importable package laid out as a build, recording a source hash."""
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text(f'SOURCE_HASH = "{source_hash}"\n')
    (package / "index.py").write_text(index)
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def test_the_index_is_pure_python_unless_a_current_build_exists() -> None:
    build = compiled.load()
    if build is None:
        assert KeywordIndex is pure.KeywordIndex
    else:
        assert KeywordIndex is build.KeywordIndex is not pure.KeywordIndex
        assert build.__name__ == "clipping.matching._mypyc.index"


def test_without_a_build_nothing_is_loaded_or_reported(caplog) -> None:
    with caplog.at_level(logging.INFO, logger="clipping.matching.compiled"):
        assert compiled.load("clipping.matching._never_built") is None
    assert not caplog.records  # pure Python is the default, nothing to report


def test_a_build_from_the_current_sources_is_loaded(tmp_path, monkeypatch) -> None:
    index = "from clipping.matching.index import KeywordIndex\n"
    name = fake_build(tmp_path, monkeypatch, "current_build", compiled.source_hash(), index)
    loaded = compiled.load(name)
    assert loaded is not None and loaded.__name__ == "current_build.index"


def test_a_build_from_other_sources_is_not_loaded_and_the_log_says_so(
    tmp_path, monkeypatch, caplog
) -> None:
    index = "raise AssertionError('a stale build must not even be imported')\n"
    name = fake_build(tmp_path, monkeypatch, "stale_build", "0" * 64, index)
    with caplog.at_level(logging.WARNING, logger="clipping.matching.compiled"):
        assert compiled.load(name) is None
    assert "make compile-matching" in caplog.text


def test_a_build_that_cannot_be_imported_is_not_used(tmp_path, monkeypatch, caplog) -> None:
    index = "raise ImportError('built for another Python')\n"
    name = fake_build(tmp_path, monkeypatch, "broken_build", compiled.source_hash(), index)
    with caplog.at_level(logging.WARNING, logger="clipping.matching.compiled"):
        assert compiled.load(name) is None
    assert "another Python" in caplog.text


def test_editing_any_source_the_build_depends_on_changes_its_hash(tmp_path, monkeypatch) -> None:
    for name in compiled.SOURCES:
        shutil.copyfile(compiled.HERE / name, tmp_path / name)
    monkeypatch.setattr(compiled, "HERE", tmp_path)
    hashes = {compiled.source_hash()}
    for name in compiled.SOURCES:
        with (tmp_path / name).open("a") as source:
            source.write("\n")
        hashes.add(compiled.source_hash())
    assert len(hashes) == len(compiled.SOURCES) + 1


def test_a_build_records_the_hash_of_its_sources_once_compiled(tmp_path, monkeypatch) -> None:
    compiled_paths = []
    monkeypatch.setattr(compiled, "BUILD", tmp_path / "_mypyc")
    monkeypatch.setattr(compiled, "_compile", lambda root, paths: compiled_paths.extend(paths))
    compiled.build()
    assert compiled_paths == [
        "clipping/matching/_mypyc/index.py",
        "clipping/matching/_mypyc/spans.py",
    ]
    assert sorted(path.name for path in (tmp_path / "_mypyc").iterdir()) == ["__init__.py"]
    init = (tmp_path / "_mypyc" / "__init__.py").read_text()
    assert f'SOURCE_HASH = "{compiled.source_hash()}"' in init


def test_a_build_that_fails_leaves_nothing_behind(tmp_path, monkeypatch) -> None:
    def no_compiler(root, paths) -> None:
        raise OSError("no C compiler")

    monkeypatch.setattr(compiled, "BUILD", tmp_path / "_mypyc")
    monkeypatch.setattr(compiled, "_compile", no_compiler)
    with pytest.raises(OSError, match="no C compiler"):
        compiled.build()
    assert not (tmp_path / "_mypyc").exists()  # so the index runs as pure Python, silently
