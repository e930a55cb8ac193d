"""Sentence splitting: abbreviations, decimals, quotes, ellipses, Greek, offsets."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from analyzer.text import sentence_spans, split_sentences


def test_it_does_not_split_after_titles_and_initials():
    text = "Mr. Smith met Dr. Jones at St. Mary's. J. R. R. Tolkien was not there."
    assert split_sentences(text) == [
        "Mr. Smith met Dr. Jones at St. Mary's.",
        "J. R. R. Tolkien was not there.",
    ]


def test_it_keeps_dotted_abbreviations_inside_the_sentence():
    text = "The U.S. economy grew, e.g. in retail. At 5 p.m. today it closed. Then it rained."
    assert split_sentences(text) == [
        "The U.S. economy grew, e.g. in retail.",
        "At 5 p.m. today it closed.",
        "Then it rained.",
    ]


def test_a_dash_or_comma_after_a_period_continues_the_sentence():
    text = "BUFFALO, N.Y. — Hours before the game, Inc., Ltd. and Co. met. Then they left."
    assert split_sentences(text) == [
        "BUFFALO, N.Y. — Hours before the game, Inc., Ltd. and Co. met.",
        "Then they left.",
    ]


def test_it_splits_after_an_abbreviation_that_ends_the_sentence():
    text = "They sell apples, pears, etc. The shop opens at 9 a.m. Prices are low."
    assert split_sentences(text) == [
        "They sell apples, pears, etc.",
        "The shop opens at 9 a.m.",
        "Prices are low.",
    ]


def test_it_keeps_decimals_prices_and_domains_whole():
    text = "Shares rose 3.5% to $1,204.75 on example.com today. Then they fell 0.2 points."
    assert split_sentences(text) == [
        "Shares rose 3.5% to $1,204.75 on example.com today.",
        "Then they fell 0.2 points.",
    ]


def test_it_keeps_closing_quotes_with_their_sentence():
    text = '"He left." She said nothing. He asked, "Why?" She shrugged.'
    assert split_sentences(text) == [
        '"He left."',
        "She said nothing.",
        'He asked, "Why?"',
        "She shrugged.",
    ]


def test_it_does_not_split_when_the_quote_goes_on_in_lower_case():
    assert split_sentences('"Why?" she asked. “We won.” The crowd cheered.') == [
        '"Why?" she asked.',
        "“We won.”",
        "The crowd cheered.",
    ]


def test_it_splits_before_an_opening_quote():
    assert split_sentences('He paused. "Go home," she said.') == [
        "He paused.",
        '"Go home," she said.',
    ]


def test_ellipses_end_a_sentence_only_before_a_capital():
    text = "Wait... What happened? It was late... and dark. Well… Fine!"
    assert split_sentences(text) == [
        "Wait...",
        "What happened?",
        "It was late... and dark.",
        "Well…",
        "Fine!",
    ]


def test_numbered_abbreviations_need_a_number_after_them():
    text = "See No. 5 and Fig. 3 on Jan. 12 for details. The answer was no. Then he left."
    assert split_sentences(text) == [
        "See No. 5 and Fig. 3 on Jan. 12 for details.",
        "The answer was no.",
        "Then he left.",
    ]


def test_a_list_number_opening_a_sentence_stays_with_it():
    assert split_sentences("1. Introduction to solar power. It grew in 2019. Prices fell.") == [
        "1. Introduction to solar power.",
        "It grew in 2019.",
        "Prices fell.",
    ]


def test_german_ordinals_do_not_end_a_sentence():
    text = "Am 3. Oktober feiern wir. Dann ist Ruhe."
    assert split_sentences(text, "de") == ["Am 3. Oktober feiern wir.", "Dann ist Ruhe."]
    assert split_sentences(text, "en") == ["Am 3.", "Oktober feiern wir.", "Dann ist Ruhe."]


def test_greek_semicolon_is_a_question_mark_only_in_greek():
    text = "Τι κάνεις; Καλά είμαι, π.χ. σήμερα. Εσύ;"
    assert split_sentences(text, "el") == ["Τι κάνεις;", "Καλά είμαι, π.χ. σήμερα.", "Εσύ;"]
    assert split_sentences("Left; Right. Up", "en") == ["Left; Right.", "Up"]


def test_the_greek_question_mark_character_ends_a_sentence_in_any_language():
    assert split_sentences("Πού είσαι\u037e Εδώ.", "en") == ["Πού είσαι\u037e", "Εδώ."]


def test_blank_lines_separate_sentences_without_punctuation():
    text = "Solar subsidies cut\n\nThe government cut them on Monday.\nNobody knew why."
    assert split_sentences(text) == [
        "Solar subsidies cut",
        "The government cut them on Monday.",
        "Nobody knew why.",
    ]


def test_spans_are_offsets_into_the_text_without_surrounding_space():
    text = "  First one.   Second one!\n\n  Third  "
    spans = sentence_spans(text)
    assert spans == [(2, 12), (15, 26), (30, 35)]
    assert [text[start:end] for start, end in spans] == ["First one.", "Second one!", "Third"]


def test_empty_and_blank_text_has_no_sentences():
    assert sentence_spans("") == []
    assert sentence_spans(" \n\t ") == []


def test_an_unknown_language_splits_like_english():
    text = "Mr. Smith left. He came back."
    assert split_sentences(text, "xx") == split_sentences(text, "en")


@given(st.text(alphabet=st.sampled_from("ab A.?!;…'\"” \n\u037e1"), max_size=200))
def test_spans_cover_every_visible_character_in_order(text):
    spans = sentence_spans(text, "el")
    assert all(0 <= start < end <= len(text) for start, end in spans)
    assert all(prev[1] <= nxt[0] for prev, nxt in zip(spans, spans[1:], strict=False))
    assert all(not text[s].isspace() and not text[e - 1].isspace() for s, e in spans)
    covered = "".join(text[start:end] for start, end in spans)
    assert "".join(covered.split()) == "".join(text.split())
    assert sentence_spans(text, "el") == spans
