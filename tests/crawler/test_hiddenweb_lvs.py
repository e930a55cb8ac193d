"""The LVS table: normalised fuzzy label matching, and the rows kept in the database."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from crawler.hiddenweb.lvs import (
    ADMIN,
    LEARNED,
    USERS,
    LabelValues,
    keyword_row,
    match_label,
    with_keywords,
)
from crawler.hiddenweb.store import (
    LEARNED_MAX,
    LEARNED_WEIGHT,
    learn_domains,
    load_table,
    sync_keywords,
)
from crawler.models.hiddenweb import LabelValue, LabelValueSet
from crawler.sitesearch.analysis import analyze_forms

COMPANY = LabelValues("Company Type", (("Corporation", 1.0), ("Charity", 0.6)), source=ADMIN)
STATE = LabelValues("State", (("Arizona", 1.0), ("California", 0.9)), aliases=("Province",))
ROWS = [COMPANY, STATE, keyword_row({"election": 2.0, "climate": 1.0})]


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Type of Company", "Company Type"),  # word reordering, stop word dropped
        ("company types", "Company Type"),  # stemming
        ("Compnay Type", "Company Type"),  # a typing error
        ("<b>Enter&nbsp;State:</b>", "State"),  # tags, entities and form filler go
        ("State of residence", None),  # an extra content word is more than a typo
        ("Province", "State"),  # an alias shares the row's values
        ("Keywords", "search"),
        ("Search for:", "search"),
        ("Telephone", None),
    ],
)
def test_labels_match_despite_typos_and_reordering(label, expected):
    match = match_label(label, ROWS, 0.8)
    assert (match.row.label if match else None) == expected


def test_a_lower_threshold_accepts_looser_labels():
    assert match_label("Statename", ROWS, 0.8) is None
    assert match_label("Statename", ROWS, 0.7).row.label == "State"


def test_ties_go_to_the_more_trusted_source():
    learned = LabelValues("Section", (("World", 0.5),), source=LEARNED)
    admin = LabelValues("Section", (("Politics", 1.0),), source=ADMIN)
    assert match_label("Section", [learned, admin], 0.8).row.source == ADMIN


def test_keyword_row_scales_weights_so_the_heaviest_is_one():
    row = keyword_row({"election": 4.0, "climate change": 1.0, "  ": 3.0})
    assert row.source == USERS
    assert row.values == (("election", 1.0), ("climate change", 0.25))


def test_weights_outside_zero_to_one_are_refused():
    with pytest.raises(ValueError, match="not in"):
        LabelValues("Bad", (("x", 1.5),))


@pytest.mark.django_db
def test_the_database_refuses_a_weight_above_one():
    row = LabelValueSet.objects.create(label="Region")
    with pytest.raises(IntegrityError), transaction.atomic():
        LabelValue.objects.create(row=row, value="North", weight=1.2)


@pytest.mark.django_db
def test_sync_keywords_makes_the_users_row_follow_the_keyword_lists():
    sync_keywords({"election": 2.0, "climate": 1.0})
    sync_keywords({"election": 1.0, "vaccine": 3.0})
    row = LabelValueSet.objects.get(source=USERS)
    assert dict(row.values.values_list("value", "weight")) == pytest.approx(
        {"vaccine": 1.0, "election": 1 / 3}
    )
    assert "keyword" in row.alias_list()
    (table_row,) = load_table()
    assert table_row.source == USERS and table_row.row_id == row.id


@pytest.mark.django_db
def test_finite_domains_of_crawled_forms_are_learnt_and_reinforced():
    html = (
        '<form action="/s"><input name="q"><label for="s">Section</label>'
        '<select id="s" name="s"><option>World</option><option>Politics</option></select></form>'
    )
    (first,) = analyze_forms(html, "http://a.example/")
    assert learn_domains(first) == 2
    (other,) = analyze_forms(html.replace("Politics", "Science"), "http://b.example/")
    assert learn_domains(other) == 1
    row = LabelValueSet.objects.get(label="Section", source=LEARNED)
    weights = dict(row.values.values_list("value", "weight"))
    assert weights == pytest.approx(
        {"World": LEARNED_WEIGHT + 0.1, "Politics": LEARNED_WEIGHT, "Science": LEARNED_WEIGHT}
    )
    for _ in range(10):
        learn_domains(first)
    assert row.values.get(value="World").weight == pytest.approx(LEARNED_MAX)
    # A text box labelled "Section" on another form now has values to take.
    match = match_label("Section", load_table(), 0.8)
    assert {v for v, _ in match.row.values} == {"World", "Politics", "Science"}


def test_a_run_puts_its_own_keywords_in_the_users_row_and_keeps_its_aliases():
    stored = LabelValues("search", (("marathon", 1.0),), ("find it",), USERS, row_id=7)
    region = LabelValues("Region", (("North", 1.0),))
    table = with_keywords([stored, region], {"vaccine": 2.0, "glacier": 1.0})
    assert table[0] == region
    own = table[1]
    assert own.source == USERS and own.row_id == 7 and own.aliases == ("find it",)
    assert dict(own.values) == {"vaccine": 1.0, "glacier": 0.5}
    # Without a stored row, the users' row is built with the usual aliases.
    (fresh,) = with_keywords([], {"vaccine": 1.0})
    assert fresh.source == USERS and "keywords" in fresh.aliases
