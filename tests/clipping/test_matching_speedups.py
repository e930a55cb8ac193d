"""The index's C loops (clipping/matching/_speedups.c): same results as Python, clean errors."""

from __future__ import annotations

import gc
import sys
from itertools import chain

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clipping.matching import (
    CompiledTerm,
    KeywordIndex,
    ListSpec,
    MatchedSpan,
    NaiveMatcher,
    native,
)
from clipping.matching import _speedups as speedups  # make test builds it: a failure if not
from clipping.matching.index import _scan_space
from clipping.matching.spans import MAX_SPANS_PER_LIST, Entry, capped, host_allowed
from clipping.terms import parse_terms


def test_the_c_loops_are_built_and_used_by_default() -> None:
    # make test builds them (pip install -e); a machine without a C compiler falls back.
    assert native.speedups is speedups
    assert KeywordIndex.accelerated is True
    assert KeywordIndex.build([]).accelerated is True


def test_a_build_older_than_the_code_is_not_used(monkeypatch, caplog) -> None:
    monkeypatch.setattr(native, "API", native.API + 1)  # the code moved on, the build did not
    assert native.load() is None
    assert "out of date" in caplog.text


def test_adding_lists_posts_each_concept_once_as_python_does(monkeypatch) -> None:
    lists = [
        ListSpec(1, "en", parse_terms("car\ncar\nbank\n-river")),
        ListSpec(2, "en", parse_terms("bank\nsite:example.com")),
        ListSpec(3, "en", parse_terms('"stock market"\nvote'), match_all=True),
    ]
    fast = KeywordIndex.build(lists)
    monkeypatch.setattr(KeywordIndex, "accelerated", False)
    slow = KeywordIndex.build(lists)
    assert fast._lists == slow._lists
    assert fast._simple == slow._simple and fast._judged == slow._judged
    assert fast._lists[1].concepts[0] == fast._lists[1].concepts[1]  # "car" twice
    assert fast._simple[fast._lists[1].concepts[0]] == []  # list 1 is judged: exclusion
    assert fast._judged[fast._lists[1].concepts[0]] == [1]  # posted once


terms = st.sampled_from(["car", "cars", "stock market", "bank", "vote"])
spans = st.builds(
    lambda start, width, term: MatchedSpan(start, start + width, term),
    st.integers(0, 60),
    st.integers(1, 12),
    terms,
)
groups = st.lists(st.lists(spans, max_size=14).map(lambda found: tuple(sorted(found))), max_size=20)
ranges = st.lists(st.tuples(st.integers(0, 70), st.integers(0, 70)).map(sorted), max_size=3)


@settings(max_examples=300, deadline=None)
@given(groups=groups, limit=st.integers(0, 12), new_text=ranges)
def test_merge_keeps_what_the_python_merge_keeps(groups, limit, new_text) -> None:
    expected = tuple(capped(sorted(chain.from_iterable(groups)), new_text, limit))
    assert speedups.merge(groups, limit, new_text) == expected


@settings(max_examples=300, deadline=None)
@given(
    places=st.lists(st.tuples(st.integers(0, 29), st.integers(1, 3)), max_size=30),
    limit=st.integers(0, 12),
    new_text=ranges,
)
def test_spans_are_built_and_capped_as_in_python(places, limit, new_text) -> None:
    starts = list(range(0, 300, 10))
    ends = [start + 5 for start in starts]
    where = sorted({(first, min(first + size, 30)) for first, size in places})
    built = speedups.spans(where, starts, ends, "car", MatchedSpan, limit, new_text)
    every = [MatchedSpan(starts[first], ends[stop - 1], "car") for first, stop in where]
    assert built == tuple(capped(every, new_text, limit))
    assert all(type(span) is MatchedSpan for span in built)


@settings(max_examples=200, deadline=None)
@given(
    sequence=st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=30),
    keys=st.lists(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=4), max_size=6),
    limit=st.integers(-1, 3),
)
def test_scan_finds_the_places_python_finds(sequence, keys, limit) -> None:
    index = KeywordIndex.build(
        [ListSpec(number, "", parse_terms(f'"{" ".join(key)}"')) for number, key in enumerate(keys)]
    )
    space = index._spaces.get("")
    if space is None:
        return
    found_c: dict = {}
    found_python: dict = {}
    several_c: list = []
    several_python: list = []
    fields = (space.concepts, space.follows, space.prefixes, " ")
    speedups.scan(sequence, *fields, found_c, several_c, limit)
    _scan_space(sequence, *fields, found_python, several_python, limit)
    assert {concept: sorted(where) for concept, where in found_c.items()} == {
        concept: sorted(where) for concept, where in found_python.items()
    }
    assert sorted(several_c) == sorted(several_python)


def test_bad_arguments_raise_errors_instead_of_crashing() -> None:
    span = MatchedSpan(0, 3, "car")
    with pytest.raises(TypeError):
        speedups.merge([[span]], 10, ())  # a group that is no tuple
    with pytest.raises(TypeError):
        speedups.merge([(("a", "b", "c"),)], 10, ())  # a span without offsets
    with pytest.raises(TypeError):
        speedups.merge([(span,)], 10, [(1,)])  # a new-text range without its end
    with pytest.raises(ValueError):
        speedups.merge([(span,)], -1, ())
    with pytest.raises(IndexError):
        speedups.spans([(5, 99)], [0, 4], [3, 7], "car", MatchedSpan, 10, ())
    with pytest.raises(TypeError):
        speedups.spans([(0, 1)], [0], [3], "car", int, 10, ())  # spans must be tuples
    with pytest.raises(TypeError):
        speedups.scan(["stock", "market"], {}, {"stock": ["market"]}, {}, " ", {}, [], -1)
    found = {7: [(0, 1)]}
    with pytest.raises(IndexError):  # a concept without postings
        speedups.collect(found, [[1]], [[]], {}, context(found), 10, ())
    with pytest.raises(TypeError):  # a context that is not SpanBuilder.context
        speedups.collect(found, [[1]] * 8, [[]] * 8, {}, (found, []), 10, ())
    with pytest.raises(IndexError):  # a found concept without its compiled term
        speedups.collect(found, [[1]] * 8, [[]] * 8, {}, context(found), 10, ())
    with pytest.raises(TypeError):
        speedups.judge({1}, {1: (1, False)}, {}, None, host_allowed, {}, context({}), 10, (), {})
    with pytest.raises(IndexError):  # a concept without postings
        speedups.add_postings(("car",), {}, [], [], 1, lambda term: 3)
    with pytest.raises(ZeroDivisionError):
        speedups.add_postings(("car",), {}, [], [], 1, lambda term: 1 / 0)
    with pytest.raises(ZeroDivisionError):  # an error in the host check reaches the caller
        entry = Entry(1, False, (0,), ("example.com",), ())
        found = {0: [(0, 1)]}
        speedups.judge(
            {1}, {1: entry}, found, "a.b", lambda *_: 1 / 0, {}, context(found), 10, (), {}
        )


def context(found: dict, terms: list | None = None) -> tuple:
    """SpanBuilder.context for a text of ten tokens "w0 w1 ... w9" (3 characters each)."""
    return (found, terms or [], list(range(0, 30, 3)), list(range(2, 30, 3)), MatchedSpan, 10)


def test_judging_skips_lists_removed_meanwhile_and_keeps_the_rest() -> None:
    entries = {1: Entry(1, False, (0,), (), ()), 2: Entry(1, False, (5,), (), ())}
    found = {0: [(0, 1), (4, 6)]}
    terms = [CompiledTerm("car", (("en", "car"),))]
    matches: dict = {}
    spans_of: dict = {}
    speedups.judge(
        [1, 2, 3],
        entries,
        found,
        None,
        host_allowed,
        spans_of,
        context(found, terms),
        10,
        (),
        matches,
    )
    assert matches == {1: (MatchedSpan(0, 2, "car"), MatchedSpan(12, 17, "car"))}
    assert spans_of == {0: matches[1]}  # built once, kept for the page's other lists


def test_spans_are_built_once_per_page_and_shared_by_lists() -> None:
    found = {0: [(1, 2)], 1: [(0, 1), (3, 4)]}
    terms = [CompiledTerm("vote", ()), CompiledTerm("bank", ())]
    spans_of: dict = {}
    matches, judged = speedups.collect(
        found, [[1, 2], [2]], [[], [3]], spans_of, context(found, terms), 2, ()
    )
    assert judged == {3}
    assert matches[1] is spans_of[0] == (MatchedSpan(3, 5, "vote"),)
    assert matches[2] == (MatchedSpan(0, 2, "bank"), MatchedSpan(3, 5, "vote"))


def test_repeated_calls_hold_no_references() -> None:
    span, term = MatchedSpan(10**6, 10**6 + 3, "car"), "stock market"
    sequence = ["stock", "market", "stock"]
    concepts = {"stock market": [0], "stock": [1]}
    follows = {"stock": {"market": 1}}
    before = sys.getrefcount(span), sys.getrefcount(term), sys.getrefcount(concepts["stock"])
    for _ in range(1000):
        speedups.merge([(span,), (span, span)], 2, [(0, 10**7)])
        speedups.spans([(0, 2)], [0, 6], [5, 12], term, MatchedSpan, 1, ())
        speedups.scan(sequence, concepts, follows, {}, " ", {}, [], 1)
        found = {1: [(0, 1)], 0: [(0, 2)]}
        terms = [CompiledTerm(term, ()), CompiledTerm(term, ())]
        speedups.collect(found, [[5], [5]], [[], [6]], {0: (span,)}, context(found, terms), 3, ())
        entries = {6: Entry(2, True, (0, 1, 1), ("example.com",), ())}
        speedups.judge(
            {6}, entries, found, term, host_allowed, {0: (span,)}, context(found, terms), 3, (), {}
        )
        speedups.judge(
            {6}, entries, found, None, host_allowed, {}, context(found, terms), 3, (), {}
        )
        speedups.add_postings((term, span), {id(term): 0}, [term], [[], []], 7, lambda _: 1)
    del found, terms, entries  # the last round's, which hold the term
    after = sys.getrefcount(span), sys.getrefcount(term), sys.getrefcount(concepts["stock"])
    assert after == before


def test_matching_leaves_the_garbage_collector_as_it_found_it() -> None:
    index = KeywordIndex.build([ListSpec(1, "en", parse_terms("car"))])
    assert gc.isenabled()
    assert index.match("A car.") == NaiveMatcher([ListSpec(1, "en", parse_terms("car"))]).match(
        "A car."
    )
    assert gc.isenabled()
    gc.disable()
    try:
        index.match("A car.")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_c_and_python_loops_agree_on_merged_lists_with_new_text(monkeypatch) -> None:
    lists = [
        ListSpec(1, "en", parse_terms("car\nbank\nvote")),
        ListSpec(2, "en", parse_terms("car\n-river")),
        ListSpec(3, "en", parse_terms("bank\nvote"), match_all=True),
    ]
    text = " ".join(["A car at the bank before the vote."] * 12)
    new_text = [(len(text) - 40, len(text))]
    index = KeywordIndex.build(lists)
    fast = index.match(text, host="news.example.com", new_text=new_text)
    monkeypatch.setattr(KeywordIndex, "accelerated", False)
    slow = index.match(text, host="news.example.com", new_text=new_text)
    assert (
        fast == slow == NaiveMatcher(lists).match(text, host="news.example.com", new_text=new_text)
    )
    assert len(fast[1]) > MAX_SPANS_PER_LIST  # the cap, plus spans in the new text
