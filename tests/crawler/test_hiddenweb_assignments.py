"""Value assignments: the HiWE submission rule, the three rankings, Smax, and label normalisation."""

from __future__ import annotations

import itertools

import pytest

from crawler.hiddenweb.assignments import (
    AVERAGE,
    FUZZY,
    PROBABILISTIC,
    best_assignments,
    plan_form,
    rank,
)
from crawler.hiddenweb.lvs import ADMIN, LabelValues, keyword_row, normalize_label
from crawler.sitesearch.analysis import analyze_forms

PAGE = "http://news.example/"
KEYWORDS = keyword_row({"election": 1.0, "climate": 0.5, "vaccine": 0.25})


def form_of(html: str):
    (form,) = analyze_forms(html, PAGE)
    return form


def test_labels_are_normalised_as_in_hiwe():
    assert normalize_label("<b>Type&nbsp;of Companies:</b>") == "type compani"
    assert normalize_label("Enter your State") == "state"
    assert normalize_label("Where?") == "where"  # only filler left: keep it


@pytest.mark.parametrize(
    ("ranking", "weights", "expected"),
    [
        (FUZZY, [0.9, 0.4, 0.7], 0.4),
        (AVERAGE, [0.9, 0.4, 0.8], 0.7),
        (PROBABILISTIC, [0.5, 0.5], 0.75),
        (FUZZY, [], 1.0),
    ],
)
def test_the_three_rankings(ranking, weights, expected):
    assert rank(weights, ranking) == pytest.approx(expected)


def test_an_unknown_ranking_is_a_clear_error():
    with pytest.raises(ValueError, match="Unknown ranking"):
        rank([0.5], "median")


def test_a_single_keyword_box_is_a_valid_search_form():
    plan = plan_form(
        form_of('<form action="/search"><input name="q"></form>'),
        [KEYWORDS],
        threshold=0.8,
        alpha=1,
    )
    assert plan.submittable
    assert plan.keyword_element.name == "q"
    found = best_assignments(plan, FUZZY, 10)
    assert [a.keyword for a in found] == ["election", "climate", "vaccine"]
    assert [a.rank for a in found] == [1.0, 0.5, 0.25]


def test_a_form_with_fewer_than_alpha_elements_is_not_submitted():
    plan = plan_form(
        form_of('<form action="/search"><input name="q"></form>'),
        [KEYWORDS],
        threshold=0.8,
        alpha=2,
    )
    assert not plan.submittable
    assert "fewer than 2" in plan.reason


def test_a_box_no_lvs_label_matches_stays_empty_unless_it_is_required():
    html = (
        '<form action="/search"><label for="k">Keywords</label><input id="k" name="k">'
        '<label for="a">Author</label><input id="a" name="a"></form>'
    )
    plan = plan_form(form_of(html), [KEYWORDS], threshold=0.8, alpha=1)
    assert plan.submittable
    assert best_assignments(plan, FUZZY, 1)[0].values == (("k", "election"), ("a", ""))
    authors = LabelValues("Author", (("Ada Lovelace", 0.9),), source=ADMIN)
    plan = plan_form(form_of(html), [KEYWORDS, authors], threshold=0.8, alpha=1)
    assert plan.submittable
    assert best_assignments(plan, FUZZY, 1)[0].values == (("k", "election"), ("a", "Ada Lovelace"))
    required = html.replace('name="a">', 'name="a" required>')
    plan = plan_form(form_of(required), [KEYWORDS], threshold=0.8, alpha=1)
    assert not plan.submittable
    assert "Author" in plan.reason


def test_a_form_whose_boxes_all_match_nothing_is_not_filled():
    html = (
        '<form action="/find"><label for="a">Author</label><input id="a" name="a">'
        '<label for="y">Year</label><input id="y" name="y"></form>'
    )
    plan = plan_form(form_of(html), [KEYWORDS], threshold=0.8, alpha=1)
    assert not plan.submittable
    assert "Author" in plan.reason


def test_finite_elements_keep_their_default_unless_an_admin_row_names_values():
    html = (
        '<form action="/search"><input name="q" type="search">'
        '<label for="s">Section</label><select id="s" name="s"><option value="all">All</option>'
        '<option value="w">World</option><option value="p">Politics</option></select>'
        '<label for="o">Sort</label><select id="o" name="o"><option>Relevance</option><option>Newest</option></select></form>'
    )
    plain = plan_form(form_of(html), [KEYWORDS], threshold=0.8, alpha=1)
    assert {a.values[1:] for a in best_assignments(plain, FUZZY, 50)} == {
        (("s", "all"), ("o", "Relevance"))
    }
    sections = LabelValues("Section", (("Politics", 0.6),), source=ADMIN)
    plan = plan_form(form_of(html), [KEYWORDS, sections], threshold=0.8, alpha=1)
    found = best_assignments(plan, FUZZY, 50)
    assert len(found) == 6  # three keywords, each with the default section and with Politics
    assert found[0].values == (("q", "election"), ("s", "all"), ("o", "Relevance"))
    assert found[1].values == (("q", "election"), ("s", "p"), ("o", "Relevance"))
    assert found[1].rank == pytest.approx(0.6)


@pytest.mark.parametrize("ranking", [FUZZY, AVERAGE, PROBABILISTIC])
def test_the_best_assignments_are_the_top_of_the_whole_product(ranking):
    keywords = keyword_row({f"term{i}": 1.0 - i / 20 for i in range(12)})
    sections = LabelValues(
        "Section",
        tuple((name, w) for name, w in [("World", 0.9), ("Politics", 0.3), ("Science", 0.6)]),
        source=ADMIN,
    )
    html = (
        '<form action="/search"><input name="q" type="search"><label for="s">Section</label>'
        '<select id="s" name="s"><option>All</option><option>World</option><option>Politics</option>'
        "<option>Science</option></select></form>"
    )
    plan = plan_form(form_of(html), [keywords, sections], threshold=0.8, alpha=1)
    limit = 7
    found = best_assignments(plan, ranking, limit)
    assert len(found) == limit
    every = []
    for pick in itertools.product(*(s.choices for s in plan.sets)):
        every.append(rank([c.weight for c in pick if c.evidence], ranking))
    best = sorted(every, reverse=True)[:limit]
    assert [a.rank for a in found] == pytest.approx(best)


def test_smax_caps_the_number_of_assignments():
    many = keyword_row({f"word{i}": 1.0 for i in range(500)})
    plan = plan_form(
        form_of('<form action="/search"><input name="q"></form>'), [many], threshold=0.8, alpha=1
    )
    assert len(best_assignments(plan, FUZZY, 50)) == 50
    assert best_assignments(plan, FUZZY, 0) == []


def test_a_search_box_with_an_unmatched_label_still_takes_the_keywords():
    plan = plan_form(
        form_of('<form action="/search"><input name="xyz" placeholder="Type here"></form>'),
        [KEYWORDS],
        threshold=0.8,
        alpha=1,
    )
    assert plan.submittable and plan.keyword_element.name == "xyz"


def test_without_keywords_a_search_form_is_not_submitted():
    plan = plan_form(
        form_of('<form action="/search"><input name="q"></form>'),
        [keyword_row({})],
        threshold=0.8,
        alpha=1,
    )
    assert not plan.submittable
    assert "no values" in plan.reason


def test_a_search_box_takes_the_users_keywords_even_when_an_admin_row_shares_its_label():
    admin = LabelValues("Search", (("breaking news", 1.0),), source=ADMIN)
    plan = plan_form(
        form_of(
            '<form action="/search"><label for="q">Search</label><input id="q" name="q"></form>'
        ),
        [admin, KEYWORDS],
        threshold=0.8,
        alpha=1,
    )
    assert plan.submittable and plan.keyword_element.name == "q"
    values = [a.keyword for a in best_assignments(plan, FUZZY, 10)]
    # The users' keywords come first by weight; the admin's value is searched as well.
    assert values == ["election", "breaking news", "climate", "vaccine"]


def test_a_lone_box_whose_label_names_another_row_better_takes_that_rows_values():
    zips = LabelValues("Zip code", (("10115", 1.0), ("80331", 0.8)), source=ADMIN)
    plan = plan_form(
        form_of(
            '<form action="/find-a-store"><label for="z">Zip code</label>'
            '<input id="z" name="z"><button>Find</button></form>'
        ),
        [zips, KEYWORDS],
        threshold=0.8,
        alpha=1,
    )
    assert plan.submittable and plan.keyword_element is None
    assert [a.values for a in best_assignments(plan, FUZZY, 10)] == [
        (("z", "10115"),),
        (("z", "80331"),),
    ]


def test_answers_move_a_values_weight_up_with_results_and_down_without():
    from crawler.hiddenweb.assignments import feedback_weight

    assert feedback_weight(0.6, 0, 0) == 0.6  # never sent: as the LVS row says
    assert feedback_weight(0.6, 3, 3) > 0.6  # results every time: rises
    assert feedback_weight(1.0, 3, 3) == 1.0  # within [0, 1]
    assert feedback_weight(0.6, 0, 3) < 0.3  # the "no results" page every time: falls
    assert feedback_weight(0.6, 0, 3) < feedback_weight(0.6, 0, 1)
