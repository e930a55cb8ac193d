"""WordNet senses and synonyms through NLTK's reader on Debian's wordnet-base, prepared offline."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from analyzer import nltkdata
from analyzer.text import TextDataMissing, _nltk_wordnet, synonyms, wordnet
from analyzer.text.phrases import phrase_senses
from analyzer.text.senses import _english_stems, choose_senses, context_stems, in_wordnet, senses
from analyzer.text.stemming import stems


@pytest.fixture(scope="module")
def wordnet_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("nltk_data")
    nltkdata.prepare(root)
    return root


@pytest.fixture
def prepared(wordnet_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("WEBCLIP_NLTK_DATA", str(wordnet_root))
    return wordnet_root


def test_car_has_automobile_and_motorcar_but_only_in_its_usual_sense(prepared):
    found = synonyms("car")
    assert {"automobile", "motorcar", "auto"} <= set(found)
    assert found.index("automobile") < found.index("motorcar")  # most used first
    assert not {"car", "machine", "railcar", "gondola", "cable car"} & set(found)


def test_every_sense_is_listed_with_its_share_and_the_usual_one_is_chosen(prepared):
    listed = senses("car")
    assert [sense.id for sense in choose_senses(listed)] == ["car.n.01"]
    assert abs(sum(sense.share for sense in listed) - 1) < 1e-9
    railcar = next(sense for sense in listed if sense.id == "car.n.02")
    assert "railcar" in railcar.synonyms and railcar.share < 0.1
    assert not any(sense.id == "cable_car.n.01" for sense in listed)  # "car" only abbreviates it


def test_a_lemma_that_usually_means_something_else_or_more_is_no_synonym(prepared):
    [car] = [sense for sense in senses("car") if sense.id == "car.n.01"]
    assert "machine" not in car.synonyms
    assert "fart" not in synonyms("wind") and "jazz" not in synonyms("wind")


def test_context_words_choose_among_rare_senses(prepared):
    assert choose_senses(senses("chip")) == ()
    [sense] = choose_senses(senses("chip"), context_stems(["semiconductor"]))
    assert "microchip" in sense.synonyms


def test_proper_name_senses_are_left_out(prepared):
    assert not any(sense.id == "price.n.07" for sense in senses("price"))  # Leontyne Price


def test_multi_word_lemmas_are_looked_up_and_returned_with_spaces(prepared):
    assert "solar energy" in synonyms("solar power")
    assert "solar energy" in synonyms("  Solar   Power ")
    assert in_wordnet("climate change") and not in_wordnet("rail strike")
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
    nltkdata.prepare(root)  # what the Makefile's NLTK data rule runs; idempotent
    assert "automobile" in synonyms("car")


def test_the_other_words_of_a_list_outweigh_a_sense_that_only_tagged_texts_favour(prepared):
    political = context_stems(["government", "parliament"])
    chosen = [sense.id for sense in choose_senses(senses("minister"), political)]
    assert "minister.n.02" in chosen and "curate.n.01" not in chosen
    # Without a word about government, the clergyman (10 of 13 tagged uses) stays.
    assert [sense.id for sense in choose_senses(senses("minister"))] == ["curate.n.01"]
    # One faint overlap does not outweigh 73 tagged uses: a doctor near nurses is a physician.
    medical = context_stems(["hospital", "nurses"])
    assert [sense.id for sense in choose_senses(senses("doctor"), medical)] == ["doctor.n.01"]


def test_without_context_a_sense_must_clearly_dominate_unless_its_rivals_are_near(prepared):
    assert choose_senses(senses("trade")) == ()  # commerce or craft: as often each
    # News on events and news in a paper are siblings: both are meant.
    assert {sense.id for sense in choose_senses(senses("news"))} == {"news.n.01", "news.n.02"}


def test_a_lemma_mostly_used_in_unrelated_senses_is_no_synonym(prepared):
    assert "shot" not in synonyms("shooting")  # missiles, strokes and attempts
    crime = synonyms("crime")
    assert "offense" not in crime and {"law-breaking", "criminal offense"} <= set(crime)
    assert "cost" in synonyms("prices")  # an outlay is one link from a price


def test_a_lemma_that_means_only_senses_of_the_term_is_a_synonym_in_each(prepared):
    # "drouth" has no tagged use, but both its senses are senses of "drought".
    assert [sense.synonyms for sense in senses("drought")] == [("drouth",), ("drouth",)]
    assert synonyms("drought") == ["drouth"]


def test_a_lemmas_uses_in_other_senses_of_the_term_are_not_unrelated(prepared):
    # "mistake" as a wrong statement is a sense of "error" too: only its verb and its
    # misapprehension are other meanings, less than half of its uses.
    assert "mistake" in synonyms("error")


def test_a_word_of_a_phrase_takes_the_sense_its_other_words_speak_of(prepared):
    assert phrase_senses(senses("chip"), ["export"])[0].id == "chip.n.07"
    assert phrase_senses(senses("chip"), ["computer"])[0].id == "chip.n.07"
    assert phrase_senses(senses("chip"), ["export"], min_overlap=5) == ()
    assert phrase_senses(senses("chip"), ["shortage"]) == ()  # it says nothing of chips


def test_base_forms_agree_with_nltks_morphy(wordnet_root: Path) -> None:
    reader = wordnet.wordnet_reader(wordnet_root)
    words = ["cars", "geese", "went", "oxen", "running", "better", "fastest", "churches"]
    words += ["women", "flies", "wolves", "boxes", "was", "climate_changes", "zzzz", "best"]
    for word in words:
        for pos in "nvasr":
            assert wordnet.base_forms(word, pos, wordnet_root) == tuple(reader._morphy(word, pos))


def test_stems_worked_out_once_are_snowballs(wordnet_root: Path) -> None:
    words = ["cars", "running", "Governments", "ministries", "cars", "", "naïveté"]
    assert _english_stems(words) == stems(words, "en")
    assert _english_stems(words) == stems(words, "en")  # from the cache
    assert context_stems(["The cars", "running late"]) == frozenset(
        stems(["cars", "running", "late"], "en")
    )
