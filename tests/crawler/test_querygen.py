"""xCrawl's query generation: TF-IDF tokens, search weights, harmonic mean, middle-out queries."""

from __future__ import annotations

import math

import pytest

from crawler.strategies.xcrawl.querygen import (
    QueryPlanner,
    Token,
    get_tokens,
    harmonic_mean,
    keyword_tokens,
    middle_out,
    query_combinations,
    search_weights,
    topic_tokens,
    topic_with_tokens,
)
from crawler.topic import Topic


def test_get_tokens_weighs_by_smoothed_tf_idf_worked_out_by_hand():
    # doc 1: camera camera lenses; doc 2: the camera and a printer (stop words dropped).
    # idf(camera) = ln(3/3) + 1 = 1; idf(len) = idf(printer) = ln(3/2) + 1.
    # camera: 2/3 * 1 + 1/2 * 1 = 7/6; printer: 1/2 * idf; len: 1/3 * idf.
    idf = math.log(1.5) + 1
    tokens = get_tokens(["camera camera lenses", "the camera and a printer"])
    assert [(t.text, t.stem) for t in tokens] == [
        ("camera", "camera"),
        ("printer", "printer"),
        ("lenses", "lens"),
    ]
    assert [t.tfidf for t in tokens] == pytest.approx([1.0, idf / 2 / (7 / 6), idf / 3 / (7 / 6)])


def test_get_tokens_drops_numbers_single_letters_and_merges_spellings_of_one_stem():
    tokens = get_tokens(["Zoom zooms zooming 2024 x zoom"])
    assert [(t.text, t.stem, t.tfidf) for t in tokens] == [("zoom", "zoom", 1.0)]


def test_keywords_alone_weigh_one_each():
    tokens = keyword_tokens(["Camera", "cameras", "sensor"])
    assert [(t.text, t.tfidf) for t in tokens] == [("camera", 1.0), ("sensor", 1.0)]


def test_a_topic_keeps_its_terms_first_and_takes_spellings_from_the_samples():
    topic = Topic(terms={"len": 1.0, "sensor": 1.0})
    tokens = topic_tokens(topic, ["A lens with a large sensor and a fast lens mount."])
    assert [t.text for t in tokens[:2]] == ["lens", "sensor"]
    assert all(t.tfidf == 1.0 for t in tokens[:2])
    assert {t.text for t in tokens[2:]} == {"mount", "fast"}  # "large" is a stop word
    merged = topic_with_tokens(topic, tokens)
    assert merged.terms["len"] == 1.0 and 0 < merged.terms["mount"] <= 1.0


def test_search_weight_is_the_hit_count_over_the_largest_as_in_the_papers_table():
    weights = search_weights({"resolution": 275_000, "review": 956_000, "hot": 0})
    assert weights["review"] == 1.0
    assert weights["resolution"] == pytest.approx(0.288, abs=5e-4)
    assert weights["hot"] == 0.0


def test_harmonic_mean_reproduces_the_papers_table():
    assert harmonic_mean(0.288, 0.894) == pytest.approx(0.435, abs=1e-3)  # "resolution"
    assert harmonic_mean(1.0, 0.090) == pytest.approx(0.165, abs=1e-3)  # "review"
    assert harmonic_mean(0.0, 0.9) == 0.0


def test_middle_out_starts_at_the_centre_and_alternates_outwards():
    assert middle_out(list("abcde")) == list("cbdae")
    assert middle_out(list("abcd")) == list("cbda")
    assert middle_out([]) == []


def test_combinations_are_longest_first_and_add_tokens_from_the_centre_outwards():
    combos = list(query_combinations(["c", "b", "d", "a"], 3))
    assert combos[:4] == [("c", "b", "d"), ("c", "b", "a"), ("c", "d", "a"), ("b", "d", "a")]
    assert combos[4:10] == [("c", "b"), ("c", "d"), ("b", "d"), ("c", "a"), ("b", "a"), ("d", "a")]
    assert combos[10:] == [("c",), ("b",), ("d",), ("a",)]
    assert len(combos) == 4 + 6 + 4


def tokens(*names: str) -> list[Token]:
    return [Token(text=name, stem=name, tfidf=1.0 - i * 0.1) for i, name in enumerate(names)]


def test_the_planner_measures_every_token_before_the_first_query():
    planner = QueryPlanner(tokens("zoom", "sensor", "lens"), max_length=2)
    measured = [planner.next_query() for _ in range(3)]
    assert [(q.text, q.measure) for q in measured] == [
        ("zoom", True),
        ("sensor", True),
        ("lens", True),
    ]
    assert planner.next_query() is None  # waiting for the hit counts
    for query, hits in zip(measured, [100, 10, 0], strict=True):
        planner.record_hits(query.text, hits)
    # Combined: zoom hmean(1.0, 1.0) = 1, sensor hmean(0.9, 0.1) = 0.18, lens 0 -> middle: sensor.
    assert [t.text for t in planner.ranked()] == ["zoom", "sensor", "lens"]
    assert planner.next_query().text == "sensor zoom"


def test_the_planner_stops_after_max_iterations_queries_without_a_new_authority():
    planner = QueryPlanner(tokens(*"abcdef"), max_length=2, max_iterations=2, measure=False)
    first = planner.next_query()
    planner.record_outcome(first, 0)
    second = planner.next_query()
    planner.record_outcome(second, 3)  # a success resets the count
    third = planner.next_query()
    planner.record_outcome(third, 0)
    assert not planner.done
    fourth = planner.next_query()
    planner.record_outcome(fourth, 0)
    assert planner.done and planner.next_query() is None
    assert len({first.text, second.text, third.text, fourth.text}) == 4


def test_the_planner_ends_when_the_combinations_run_out_or_the_query_cap_is_reached():
    planner = QueryPlanner(tokens("a", "b"), max_length=2, measure=False)
    assert [planner.next_query().text for _ in range(3)] == ["b a", "b", "a"]
    assert planner.next_query() is None and planner.done
    capped = QueryPlanner(tokens(*"abcdef"), max_queries=2, measure=False)
    assert capped.next_query() and capped.next_query() and capped.next_query() is None


def test_the_planner_refuses_nonsense_limits():
    with pytest.raises(ValueError):
        QueryPlanner(tokens("a"), max_length=0)
