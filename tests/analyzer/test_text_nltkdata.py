"""Preparing Debian's WordNet as an NLTK data folder: lexnames, idempotence, the CLI."""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer import nltkdata
from analyzer.nltkdata import data_dir
from analyzer.text import TextDataMissing
from analyzer.text.wordnet import wordnet_reader

REPO = Path(nltkdata.__file__).resolve().parent.parent
MAN_PAGE = Path("/usr/share/man/man5/lexnames.5WN.gz")


def test_lexnames_match_the_wordnet_manual():
    with gzip.open(MAN_PAGE, "rt") as manual:
        table = re.findall(r"^(\d\d)\t(\w+\.\w+)\s*\t", manual.read(), re.M)
    categories = {"noun": "1", "verb": "2", "adj": "3", "adv": "4"}
    expected = "".join(f"{num}\t{name}\t{categories[name.split('.')[0]]}\n" for num, name in table)
    assert len(table) == 45
    assert nltkdata.lexnames_text() == expected


def test_prepare_lays_out_the_folder_nltk_reads(tmp_path):
    folder = nltkdata.prepare(tmp_path)
    assert folder == tmp_path / "corpora" / "wordnet"
    for name in (*nltkdata.REQUIRED_FILES, "lexnames"):
        assert (folder / name).is_file(), name
    car = wordnet_reader(tmp_path).synset("car.n.01")
    assert car.lexname() == "noun.artifact"
    assert "automobile" in car.lemma_names()


def test_prepare_twice_changes_nothing(tmp_path):
    folder = nltkdata.prepare(tmp_path)
    before = {path.name: (path.stat().st_mtime_ns, path.stat().st_ino) for path in folder.iterdir()}
    nltkdata.prepare(tmp_path)
    after = {path.name: (path.stat().st_mtime_ns, path.stat().st_ino) for path in folder.iterdir()}
    assert after == before


def test_prepare_repairs_a_damaged_folder(tmp_path):
    folder = nltkdata.prepare(tmp_path)
    (folder / "lexnames").write_text("00\tbroken\t1\n")
    (folder / "index.noun").write_text("")
    nltkdata.prepare(tmp_path)
    assert (folder / "lexnames").read_text() == nltkdata.lexnames_text()
    assert (folder / "index.noun").stat().st_size == (
        nltkdata.DEBIAN_WORDNET / "index.noun"
    ).stat().st_size


def test_prepare_refuses_a_source_without_wordnet(tmp_path):
    with pytest.raises(TextDataMissing, match="wordnet-base"):
        nltkdata.prepare(tmp_path / "target", source=tmp_path)
    assert not (tmp_path / "target").exists()


def test_the_command_prepares_the_folder_it_is_given(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "analyzer.nltkdata", str(tmp_path / "data")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "WordNet ready" in result.stdout
    assert (tmp_path / "data" / "corpora" / "wordnet" / "lexnames").is_file()


def test_the_command_uses_the_environment_and_rejects_extra_arguments(tmp_path):
    env = {**os.environ, "WEBCLIP_NLTK_DATA": str(tmp_path / "env")}
    run = [sys.executable, "-m", "analyzer.nltkdata"]
    ok = subprocess.run(run, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "env" / "corpora" / "wordnet" / "data.noun").is_file()
    bad = subprocess.run([*run, "a", "b"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
    assert "Usage" in bad.stderr


def test_the_data_folder_follows_the_environment_on_every_call(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("WEBCLIP_NLTK_DATA", raising=False)
    monkeypatch.delenv("WEBCLIP_VAR_DIR", raising=False)
    assert data_dir() == Path(nltkdata.__file__).resolve().parent.parent / "var" / "nltk_data"
    monkeypatch.setenv("WEBCLIP_VAR_DIR", str(tmp_path / "a"))
    assert data_dir() == tmp_path / "a" / "nltk_data"
    monkeypatch.setenv("WEBCLIP_VAR_DIR", str(tmp_path / "b"))
    assert data_dir() == tmp_path / "b" / "nltk_data"
    monkeypatch.setenv("WEBCLIP_NLTK_DATA", str(tmp_path / "c"))
    assert data_dir() == tmp_path / "c"
