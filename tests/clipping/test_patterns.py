"""re: lines: a regular expression checked when a list is saved, matched with a time limit."""

from __future__ import annotations

import pytest
from django.urls import reverse

from clipping import publisher
from clipping.matching import KeywordIndex, ListSpec, NaiveMatcher, patterns
from clipping.models import KeywordList, Match
from clipping.publisher import Outcome
from clipping.terms import TermSyntaxError, parse_terms
from tests.api.clients import ApiClient, token_for
from tests.clipping.pages import article
from tests.factories import ingest_html, make_list, make_site

COLOUR = "re:colou?rs?\\b"
PAINT = [
    "The council repainted the old bridge in bright colours over the summer, after a long "
    "debate about the cost of the work and the traffic it would hold up for weeks.",
    "Residents chose the colour in a vote held at the town hall, where more than four hundred "
    "people queued on a rainy evening to have their say on the design.",
    "Painters worked at night to keep the road open during the day, and the scaffolding came "
    "down a week earlier than planned, to the relief of the shops nearby.",
]


def specs(*texts: str) -> list[ListSpec]:
    return [ListSpec(at, "en", parse_terms(text)) for at, text in enumerate(texts, 1)]


def test_a_pattern_line_is_parsed_as_written_and_a_bad_one_is_refused_with_its_line():
    [term] = parse_terms("re: (?-i)Colou?r")
    assert term.is_pattern and term.pattern == "(?-i)Colou?r" and not term.words
    with pytest.raises(TermSyntaxError, match=r"Line 2: the regular expression is not valid"):
        parse_terms("solar\nre:(unclosed")
    with pytest.raises(TermSyntaxError, match="matches empty text"):
        parse_terms("re:x*")
    with pytest.raises(TermSyntaxError, match="write a regular expression after re:"):
        parse_terms("re:")


def test_the_index_and_the_naive_matcher_find_a_pattern_and_honour_an_excluding_one():
    lists = specs(f"{COLOUR}\nsolar", "bridge\n-re:\\bvot(e|ing)\\b", "re:(?-i)Colour")
    text = " ".join(PAINT[:2])
    found = KeywordIndex.build(lists).match(text)
    assert found == NaiveMatcher(lists).match(text)
    assert set(found) == {1}  # list 2 is excluded by "vote"; list 3 wants a capital C
    assert [text[start:end] for start, end, _ in found[1]] == ["colours", "colour"]
    assert KeywordIndex.build(lists).match("The bridge, in Colour.").keys() == {1, 2, 3}


def test_a_catastrophic_pattern_is_cut_off_and_the_other_lists_still_match(monkeypatch):
    monkeypatch.setattr(patterns, "PATTERN_TIMEOUT", 0.01)
    lists = specs("re:(a|aa)+b", "solar")
    # Without the time limit, this expression backtracks through about 1.6^80 ways.
    text = "solar " + "a" * 80 + "!"
    assert KeywordIndex.build(lists).match(text).keys() == {2}
    assert NaiveMatcher(lists).match(text).keys() == {2}


def test_the_patterns_share_a_budget_per_text_so_many_slow_ones_cannot_hold_a_worker(
    monkeypatch,
):
    monkeypatch.setattr(patterns, "PATTERN_TIMEOUT", 0.02)
    monkeypatch.setattr(patterns, "PATTERNS_BUDGET", 0.02)
    lists = specs("re:(a|aa)+b", "re:(a|aa)+c", "re:solar", "solar")
    text = "solar " + "a" * 80 + "!"
    # The first pattern spends the text's whole budget: the ones after it are left for it.
    assert KeywordIndex.build(lists).match(text).keys() == {4}
    assert NaiveMatcher(lists).match(text).keys() == {3, 4}  # the reference has no budget


@pytest.mark.django_db
def test_a_list_form_refuses_a_bad_pattern_with_a_clear_error(client, alice):
    client.force_login(alice)
    data = {"name": "Paint", "terms": "solar\nre:colou(r", "language": "en", "active": "on"}
    response = client.post(reverse("list_create"), data)
    errors = " ".join(response.context["form"].errors["terms"])
    assert "Line 2: the regular expression is not valid: missing )" in errors
    assert not KeywordList.objects.exists()


@pytest.mark.django_db
def test_the_api_refuses_a_bad_pattern_and_takes_a_good_one(client, alice):
    api = ApiClient(client, token_for(alice))
    refused = api.send("POST", "/api/lists", {"name": "Paint", "terms": ["re:[z-a]"]})
    assert refused.status_code == 422
    assert "regular expression is not valid" in str(refused.json()["errors"]["terms"])
    taken = api.send("POST", "/api/lists", {"name": "Paint", "terms": [COLOUR]})
    assert taken.status_code == 201, taken.content
    terms = api.get(f"/api/lists/{taken.json()['id']}/terms").json()
    assert terms[0]["text"] == COLOUR and "regular expression" in terms[0]["note"]


@pytest.mark.django_db
def test_the_list_page_says_a_pattern_line_is_a_regular_expression(client, alice):
    paint = make_list(alice, "Paint", f"{COLOUR}\nbridge", use_synonyms=False)
    client.force_login(alice)
    body = client.get(paint.get_absolute_url()).content.decode()
    assert f'<code>{COLOUR}</code> <small class="term-note">— a regular expression' in body


@pytest.mark.django_db
def test_a_pattern_match_reaches_its_owner_with_why_it_matched(alice, smtp_server):
    paint = make_list(alice, "Paint", COLOUR)
    ingest_html(make_site(), "https://news.example.com/bridge", article("Bridge repainted", PAINT))

    match = Match.objects.get(keyword_list=paint)
    [reason] = match.reasons
    assert (reason["term"], reason["form"], reason["matched"]) == (COLOUR, "pattern", "colours")
    assert reason["sentence"] == PAINT[0]
    assert publisher.deliver_match(match.id) == Outcome.SENT
    [mail] = smtp_server.to("alice@example.com")
    text = mail.get_body(preferencelist=("plain",)).get_content()
    assert f"Why: {COLOUR} as “colours” (regular expression)" in text
