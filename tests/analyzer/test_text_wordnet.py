"""WordNet synonyms through NLTK's reader on Debian's wordnet-base, prepared offline."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from analyzer import nltkdata
from analyzer.text import TextDataMissing, _nltk_wordnet, synonyms


@pytest.fixture(scope="module")
def wordnet_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("nltk_data")
    nltkdata.prepare(root)
    return root


@pytest.fixture
def prepared(wordnet_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("WEBCLIP_NLTK_DATA", str(wordnet_root))
    return wordnet_root


def test_car_has_automobile_and_motorcar(prepared):
    found = synonyms("car")
    assert {"automobile", "motorcar", "auto"} <= set(found)
    assert found.index("automobile") < found.index("railcar")  # most common sense first
    assert "car" not in found


def test_multi_word_lemmas_are_looked_up_and_returned_with_spaces(prepared):
    assert "solar energy" in synonyms("solar power")
    assert "solar energy" in synonyms("  Solar   Power ")
    assert {"railway car", "cable car"} <= set(synonyms("car"))
    assert not any("_" in name for name in synonyms("car") + synonyms("solar power"))


def test_other_forms_of_the_term_are_not_its_synonyms(prepared):
    found = synonyms("cars")
    assert "automobile" in found
    assert "car" not in found and "cars" not in found


def test_results_are_deterministic_and_callers_cannot_spoil_the_cache(prepared):
    first = synonyms("strike")
    first.append("not a synonym")
    assert synonyms("strike") == first[:-1]
    assert "work stoppage" in first


def test_unknown_terms_other_languages_and_blanks_have_none(prepared):
    assert synonyms("xyzzyplugh") == []
    assert synonyms("αυτοκίνητο", "el") == []
    assert synonyms("car", "de") == []
    assert synonyms("   ") == []


def test_threads_share_one_reader(prepared, monkeypatch):
    words = ["train", "house", "bank", "strike", "power", "energy", "news", "city"]
    expected = {word: synonyms(word) for word in words}
    nltkdata_root = prepared / "fresh"
    nltkdata.prepare(nltkdata_root)  # a new folder means a new reader and an empty cache
    results: dict[str, list[str]] = {}
    built: list[object] = []

    class CountingWordNet(_nltk_wordnet.EnglishWordNet):
        def __init__(self, *args: object) -> None:
            built.append(self)
            super().__init__(*args)

    monkeypatch.setattr(_nltk_wordnet, "EnglishWordNet", CountingWordNet)

    def look_up(word: str) -> None:
        results[word] = synonyms(word)

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WEBCLIP_NLTK_DATA", str(nltkdata_root))
        threads = [threading.Thread(target=look_up, args=(word,)) for word in words]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert results == expected
    assert len(built) == 1


def test_an_unprepared_folder_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("WEBCLIP_NLTK_DATA", str(tmp_path / "empty"))
    with pytest.raises(TextDataMissing, match=r"python -m analyzer\.nltkdata") as error:
        synonyms("car")
    assert isinstance(error.value, RuntimeError)
    assert not (tmp_path / "empty").exists()  # nothing downloaded or created


def test_the_var_dir_setting_moves_the_default_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("WEBCLIP_NLTK_DATA", raising=False)
    monkeypatch.setenv("WEBCLIP_VAR_DIR", str(tmp_path))
    assert nltkdata.data_dir() == tmp_path / "nltk_data"
    monkeypatch.setenv("WEBCLIP_NLTK_DATA", str(tmp_path / "elsewhere"))
    assert nltkdata.data_dir() == tmp_path / "elsewhere"


def test_the_default_folder_is_var_nltk_data_and_works_once_prepared(monkeypatch):
    monkeypatch.delenv("WEBCLIP_NLTK_DATA", raising=False)
    monkeypatch.delenv("WEBCLIP_VAR_DIR", raising=False)
    root = nltkdata.data_dir()
    assert root == Path(nltkdata.__file__).resolve().parent.parent / "var" / "nltk_data"
    nltkdata.prepare(root)  # what `make setup` runs; idempotent
    assert "automobile" in synonyms("car")
