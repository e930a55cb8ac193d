"""Snowball stemming for every supported language, Greek included."""

from __future__ import annotations

import threading

from hypothesis import given
from hypothesis import strategies as st
from nltk.stem.snowball import SnowballStemmer

from analyzer.text import SUPPORTED_LANGUAGES, stem, stems


def test_english_words_share_their_stem():
    assert stem("running") == "run"
    assert stem("Cars") == stem("car") == "car"
    assert stems(["Generously", "subsidies", "subsidy"]) == ["generous", "subsidi", "subsidi"]


def test_greek_singular_and_plural_share_a_stem():
    assert stem("εφημερίδες", "el") == stem("εφημερίδα", "el") == "εφημεριδ"
    assert stem("ΕΦΗΜΕΡΙΔΕΣ", "el") == "εφημεριδ"
    assert stems(["κυβέρνηση", "κυβερνήσεις", "δρόμος", "δρόμοι"], "el") == [
        "κυβερνησ",
        "κυβερνησ",
        "δρομ",
        "δρομ",
    ]


def test_language_may_be_a_tag_or_a_snowball_name():
    assert stem("Autobahnen", "de-AT") == stem("Autobahnen", "german") == "autobahn"


def test_an_unknown_language_gives_the_word_lower_cased():
    assert stem("Running", "xx") == "running"
    assert stems(["Running", "Cars"], "") == ["running", "cars"]


def test_every_nltk_snowball_language_and_greek_is_supported():
    nltk_languages = set(SnowballStemmer.languages) - {"porter"}
    assert nltk_languages | {"greek"} <= set(SUPPORTED_LANGUAGES.values())


def test_every_supported_language_stems_its_own_plural():
    plurals = {"en": ("houses", "house"), "fr": ("maisons", "maison"), "es": ("casas", "casa")}
    plurals |= {"de": ("Häuser", "Haus"), "ru": ("газеты", "газета"), "el": ("σπίτια", "σπίτι")}
    for language, (plural, singular) in plurals.items():
        assert stem(plural, language) == stem(singular, language), language
    for language in SUPPORTED_LANGUAGES:
        assert isinstance(stem("test", language), str)


def test_it_agrees_with_nltk_on_plain_english_words():
    nltk = SnowballStemmer("english")
    words = ["connection", "relational", "happily", "national", "running", "flies", "denied"]
    assert stems(words) == [nltk.stem(word) for word in words]


def test_lone_surrogates_do_not_break_the_stemmer():
    assert stem("ab\ud800cs") == "ab\ufffdc"
    assert stems(["ab\ud800cs", "cars"]) == ["ab\ufffdc", "car"]


def test_threads_stem_side_by_side():
    words = [
        f"{root}{suffix}"
        for root in ("connect", "nation", "subsid")
        for suffix in ("ing", "s", "ed")
    ]
    expected = stems(words)
    results: list[list[str]] = []

    def work() -> None:
        for _ in range(200):
            results.append(stems(words))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 800
    assert all(result == expected for result in results)


@given(st.lists(st.text(max_size=12), max_size=20), st.sampled_from(["en", "el", "de", "xx"]))
def test_stems_equals_stem_word_by_word(tokens, language):
    assert stems(tokens, language) == [stem(token, language) for token in tokens]
