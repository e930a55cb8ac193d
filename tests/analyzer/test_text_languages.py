"""Stop words offline for every supported language; language from <html lang> or text."""

from __future__ import annotations

from analyzer.text import SUPPORTED_LANGUAGES, detect_language, language_code, stopwords

ENGLISH = "The minister said that the rail strike will end on Monday and that trains will run."
GERMAN = "Der Minister sagte, dass der Streik am Montag endet und die Züge wieder fahren."
FRENCH = "Le ministre a dit que la grève se terminera lundi et que les trains rouleront."
SPANISH = "El ministro dijo que la huelga terminará el lunes y que los trenes volverán."
GREEK = "Ο υπουργός είπε ότι η απεργία θα τελειώσει τη Δευτέρα και τα τρένα θα κινηθούν."
RUSSIAN = "Министр сказал, что забастовка закончится в понедельник и поезда пойдут."


def test_stop_words_are_there_offline_for_several_languages():
    assert {"the", "and", "of"} <= stopwords("en")
    assert {"und", "der", "nicht"} <= stopwords("de")
    assert {"le", "et", "les"} <= stopwords("fr")
    assert {"el", "y", "que"} <= stopwords("es")
    assert {"και", "το", "της"} <= stopwords("el")
    assert {"и", "в", "не"} <= stopwords("ru")
    assert "strike" not in stopwords("en")


def test_every_supported_language_has_stop_words():
    assert len(SUPPORTED_LANGUAGES) >= 30
    for code in SUPPORTED_LANGUAGES:
        words = stopwords(code)
        assert len(words) >= 25, code
        assert all(word == word.lower() for word in words), code


def test_an_unknown_language_has_no_stop_words():
    assert stopwords("xx") == frozenset()
    assert stopwords("english") == stopwords("en-GB") == stopwords("en")


def test_language_codes_come_from_tags_names_and_aliases():
    assert language_code("en-US") == "en"
    assert language_code("EL_gr") == "el"
    assert language_code("nb-NO") == "no"
    assert language_code("greek") == "el"
    assert language_code("ko") is None
    assert language_code("") is None
    assert language_code(None) is None


def test_html_lang_decides_when_it_is_supported():
    assert detect_language(GERMAN, "en-US") == "en"
    assert detect_language(ENGLISH, "el") == "el"


def test_an_unsupported_html_lang_falls_back_to_the_text():
    assert detect_language(GREEK, "ko") == "el"
    assert detect_language(GERMAN, "x-klingon") == "de"


def test_greek_letters_mean_greek():
    assert detect_language(GREEK) == "el"
    assert detect_language("ΑΠΕΡΓΙΑ ΣΤΑ ΤΡΕΝΑ") == "el"


def test_latin_text_is_told_apart_by_its_stop_words():
    assert detect_language(ENGLISH) == "en"
    assert detect_language(GERMAN) == "de"
    assert detect_language(FRENCH) == "fr"
    assert detect_language(SPANISH) == "es"


def test_cyrillic_text_is_russian():
    assert detect_language(RUSSIAN) == "ru"


def test_text_that_says_nothing_is_english():
    assert detect_language("") == "en"
    assert detect_language("12345 !!! 3.5") == "en"
    assert detect_language("Xyzzy") == "en"


def test_a_script_no_supported_language_uses_gives_the_default():
    assert detect_language("주말 밤 9시 MBC와 SBS는 막장극의 대결로 붙는 경우가 흔하다") == "en"
