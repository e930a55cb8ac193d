"""Tokens: lower-cased, any script, digits kept, offsets into the text."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from analyzer.text import token_spans, tokenize


def test_it_lower_cases_words_and_keeps_digits():
    assert tokenize("Solar Power: 3.5 GW in 2024, up_from Q1!") == [
        "solar",
        "power",
        "3",
        "5",
        "gw",
        "in",
        "2024",
        "up",
        "from",
        "q1",
    ]


def test_it_reads_greek_and_cyrillic():
    assert tokenize("Η ΕΦΗΜΕΡΙΔΑ «Καθημερινή» и Газета") == [
        "η",
        "εφημεριδα",
        "καθημερινή",
        "и",
        "газета",
    ]


def test_apostrophes_and_hyphens_separate_tokens():
    assert tokenize("l'économie d’Obama's e-mail") == [
        "l",
        "économie",
        "d",
        "obama",
        "s",
        "e",
        "mail",
    ]


def test_decomposed_accents_stay_inside_the_word():
    text = unicodedata.normalize("NFD", "εφημερίδα café")
    assert tokenize(text) == [unicodedata.normalize("NFD", "εφημερίδα"), "cafe\u0301"]


def test_spans_point_at_the_original_characters():
    text = "Rail STRIKE, Αθήνα."
    assert token_spans(text) == [("rail", 0, 4), ("strike", 5, 11), ("αθήνα", 13, 18)]


def test_text_without_letters_has_no_tokens():
    assert tokenize(" ,.;!?-_ \x00 \ud800 ") == []


@given(st.text(max_size=300))
def test_spans_and_tokens_agree(text):
    spans = token_spans(text)
    assert [token for token, _, _ in spans] == tokenize(text)
    for token, start, end in spans:
        assert text[start:end].lower() == token
    assert all(a[2] <= b[1] for a, b in zip(spans, spans[1:], strict=False))
