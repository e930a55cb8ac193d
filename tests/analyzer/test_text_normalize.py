"""HiWE normalisation: no tags or entities, lower case, no stop words, stemmed."""

from __future__ import annotations

from analyzer.text import normalize, stem


def test_it_strips_tags_entities_and_punctuation_then_stems():
    assert normalize("<label for=x><b>Departure&nbsp;Cities:</b></label>") == "departur citi"


def test_entities_become_their_characters():
    assert normalize("Caf&eacute;s &amp; Bars") == "café bar"
    assert normalize("Price&#8212;range") == "price rang"


def test_stop_words_drop_out_and_spaces_collapse():
    assert normalize("  The   price OF the  cars,  in euro ") == "price car euro"


def test_a_label_made_only_of_stop_words_keeps_them():
    assert normalize("Where") == "where"
    assert normalize("<span>The</span>") == "the"


def test_greek_is_normalised_with_greek_stop_words_and_stems():
    assert normalize("Οι <i>εφημερίδες</i> της Αθήνας", "el") == (
        f"{stem('εφημερίδες', 'el')} {stem('Αθήνας', 'el')}"
    )


def test_text_without_words_normalises_to_nothing():
    assert normalize("<br/> &nbsp; --- ") == ""
    assert normalize("") == ""
