"""What the hidden-web crawler types into search boxes: users' keywords as written, never stems."""

from __future__ import annotations

import pytest

from crawler.strategies.xcrawl.querygen import (
    INFLECTED,
    QUOTED,
    SYNONYM,
    TYPED,
    KeywordForms,
    SearchStyle,
    topic_tokens,
)
from crawler.topic import Topic


def test_a_phrase_is_typed_quoted_and_a_word_as_written():
    forms = KeywordForms()
    assert (forms.first("rail strike").text, forms.first("rail strike").form) == (
        '"rail strike"',
        QUOTED,
    )
    assert (forms.first("Zelmora").text, forms.first("Zelmora").form) == ("Zelmora", TYPED)
    assert forms.first("wildfire").text == "wildfire"  # never the stem "wildfir"


def test_a_quoted_phrase_that_finds_nothing_is_tried_unquoted_and_teaches_the_style():
    forms = KeywordForms()
    plain = forms.after_quoted("rail strike", had_results=False)
    assert (plain.text, plain.form) == ("rail strike", TYPED)
    forms.learn_quotes(quoted_found=False, unquoted_found=True)
    assert forms.style.quotes is False
    assert forms.first("solar subsidies").text == "solar subsidies"  # no more quotes here


def test_a_quoted_phrase_with_results_means_quotes_work():
    forms = KeywordForms()
    assert forms.after_quoted("rail strike", had_results=True) is None
    assert forms.style.quotes is True


@pytest.mark.slow
def test_extras_are_inflections_of_the_same_stem_and_synonyms():
    forms = KeywordForms()
    extras = forms.extras("solar subsidies")
    assert [(e.text, e.form) for e in extras if e.form == INFLECTED] == [
        ("solar subsidy", INFLECTED)
    ]
    strike = [e.text for e in forms.extras("strike") if e.form == INFLECTED]
    assert "strikes" in strike and "struck" not in strike  # "struck" stems elsewhere
    assert "automobile" in [e.text for e in forms.extras("car") if e.form == SYNONYM]
    phrase = [e.text for e in forms.extras("wind farm") if e.form == INFLECTED]
    assert phrase == ["wind farms"]  # the noun's number only, never "wind farmed"


def test_a_site_that_stems_gets_no_inflections():
    forms = KeywordForms(style=SearchStyle(stems=None))
    forms.learn_stems({"/a", "/b"}, {"/a", "/b"})
    assert forms.style.stems is True
    assert [e for e in forms.extras("wildfire") if e.form == INFLECTED] == []
    other = KeywordForms()
    other.learn_stems({"/a"}, {"/a", "/c"})
    assert other.style.stems is False


def test_xcrawl_tokens_take_the_users_written_words_and_phrases_not_stems():
    topic = Topic(
        terms={"wildfir": 1.0, "zelmora": 1.0},
        phrases=(("rail", "strike"),),
        queries={"wildfire": 1.0, "Zelmora": 1.0, "rail strike": 1.0},
    )
    texts = [token.text for token in topic_tokens(topic, [])]
    assert "wildfire" in texts and "wildfir" not in texts
    assert "zelmora" in texts and "rail strike" in texts
