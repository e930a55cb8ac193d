"""The headline is part of what is matched, and is the summary when it is the only place."""

from __future__ import annotations

import pytest

from clipping.backfill import backfill_list
from clipping.models import Match
from tests.clipping.pages import SOLAR, article
from tests.factories import ingest_html, make_list, store_version

pytestmark = pytest.mark.django_db

STRIKE = [
    "Commuter trains stood still on Tuesday as drivers walked out in a dispute over pay and "
    "rosters across the whole network.",
    "The union said the strike would last 48 hours unless the operator returned to talks. "
    "Buses were added on the busiest routes, but queues formed early at every stop.",
    "Business groups warned that a longer stoppage would hurt shops in the city centre and "
    "cost the region's economy millions.",
]
RATES = [
    "The central bank kept its main interest rate unchanged on Thursday, saying inflation had "
    "eased for the third month in a row.",
    "Prices rose 2.4 per cent in the year to October, down from 3.1 per cent in the summer. "
    "The governor said the bank was not yet ready to cut.",
    "Markets had expected the decision. Mortgage lenders said fixed rates were likely to fall "
    "slightly before the end of the year.",
]
HEADLINE = "Rail strike halts commuter trains across the region"


def test_words_only_in_the_headline_match_and_the_headline_is_the_summary(site, alice):
    rail = make_list(alice, "Rail", "rail strike")

    result = ingest_html(site, "https://news.example.com/news/rail", article(HEADLINE, STRIKE))

    assert result.matches == 1
    match = Match.objects.get(keyword_list=rail)
    assert match.summary == HEADLINE
    start, end, term = match.spans[0]
    assert match.summary[start:end] == "Rail strike" and term == "rail strike"
    assert match.clip.title == HEADLINE


def test_a_quoted_phrase_in_the_headline_matches_though_the_body_has_another_form(site, alice):
    rates = make_list(alice, "Rates", '"interest rates"')

    ingest_html(
        site,
        "https://news.example.com/news/rates",
        article("Central bank holds interest rates as inflation eases", RATES),
    )

    match = Match.objects.get(keyword_list=rates)
    start, end, _ = match.spans[0]
    assert match.summary[start:end] == "interest rates"


def test_a_term_in_the_body_keeps_its_summary_in_the_body(site, alice):
    energy = make_list(alice, "Energy", "subsidy")

    ingest_html(site, "https://news.example.com/news/solar", article("Solar subsidies", SOLAR))

    match = Match.objects.get(keyword_list=energy)
    assert match.summary.startswith("The city council approved")
    assert "Solar subsidies" not in match.summary


def test_an_unchanged_headline_on_a_changed_page_does_not_notify_again(site, alice):
    make_list(alice, "Rail", "rail strike")
    url = "https://news.example.com/news/rail"
    ingest_html(site, url, article(HEADLINE, STRIKE))
    make_list(alice, "Rail again", "rail strike")

    again = ingest_html(site, url, article(HEADLINE, [*STRIKE, SOLAR[3]]))

    assert again.matches == 0


def test_a_new_list_finds_a_headline_only_match_among_pages_already_crawled(site, alice):
    store_version(site, "https://news.example.com/news/rail", article(HEADLINE, STRIKE))
    rail = make_list(alice, "Rail", "rail strike")

    backfill_list(rail.id)

    assert Match.objects.get(keyword_list=rail).summary == HEADLINE
