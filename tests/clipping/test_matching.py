"""The keyword index: what a list matches, with the spans to highlight."""

from __future__ import annotations

import gc

import pytest

from clipping.matching import (
    MAX_SPANS_PER_LIST,
    MAX_SPANS_PER_TERM,
    CompiledTerm,
    KeywordIndex,
    ListSpec,
    MatchedSpan,
    NaiveMatcher,
    compile_list,
    compile_text,
)
from clipping.matching import lines as compiled_lines
from clipping.matching import text as prepared_text
from clipping.matching.lines import line_cache, unknown_lines
from clipping.matching.resolution import keyed_lines
from clipping.matching.synonyms import list_synonyms
from clipping.matching.text import stem_all
from clipping.terms import TermSyntaxError, parse_terms


def spec(list_id: int, terms: str, *, language: str = "en", **options: bool) -> ListSpec:
    return ListSpec(list_id, language, parse_terms(terms), **options)


def match(lists: list[ListSpec], text: str, host: str | None = None) -> dict:
    """Match with the index, and check the naive reference agrees."""
    found = KeywordIndex.build(lists).match(text, host=host)
    assert found == NaiveMatcher(lists).match(text, host=host)
    return found


def words(text: str, found: dict, list_id: int) -> list[str]:
    return [text[span.start : span.end] for span in found[list_id]]


def test_a_word_matches_its_other_forms_by_stem() -> None:
    text = "Farm subsidies rose; one subsidy was cut."
    found = match([spec(1, "subsidy", use_synonyms=False)], text)
    assert words(text, found, 1) == ["subsidies", "subsidy"]
    assert found[1][0] == MatchedSpan(5, 14, "subsidy")


def test_a_list_without_any_of_its_terms_does_not_match() -> None:
    assert match([spec(1, "subsidy\nelection")], "Nothing to see here.") == {}


def test_synonyms_match_only_when_the_list_wants_them() -> None:
    text = "A new automobile was unveiled."
    lists = [spec(1, "car", use_synonyms=True), spec(2, "car", use_synonyms=False)]
    found = match(lists, text)
    assert list(found) == [1]
    assert found[1] == (MatchedSpan(6, 16, "car"),)


def test_synonyms_of_a_multi_word_lemma_match() -> None:
    text = "Scientists warn about global climate change."
    found = match([spec(1, "climate change", use_synonyms=True)], text)
    assert words(text, found, 1) == ["global climate change", "climate change"]


def test_synonyms_made_of_stop_words_are_left_out() -> None:
    # WordNet gives "IN" for Indiana and "As" for arsenic: they would match every page.
    found = match([spec(1, "indiana\narsenic", use_synonyms=True)], "It is in as good a state.")
    assert found == {}


def test_a_quoted_phrase_matches_only_its_exact_words() -> None:
    lists = [spec(1, '"stock market"', use_synonyms=True)]
    assert match(lists, "The Stock  Market fell.") == {1: (MatchedSpan(4, 17, '"stock market"'),)}
    assert match(lists, "Stock markets fell.") == {}
    assert match(lists, "The market for stock fell.") == {}


def test_an_unquoted_phrase_matches_its_words_in_order_by_stem() -> None:
    lists = [spec(1, "stock market", use_synonyms=False)]
    assert words("Stock markets fell.", match(lists, "Stock markets fell."), 1) == ["Stock markets"]
    assert match(lists, "The market for stock fell.") == {}


def test_an_exclusion_rejects_the_text_even_when_terms_match() -> None:
    lists = [spec(1, "election\n-football", use_synonyms=False)]
    assert list(match(lists, "Elections were held.")) == [1]
    assert match(lists, "Elections and footballs.") == {}


def test_a_quoted_exclusion_is_exact() -> None:
    lists = [spec(1, 'bank\n-"river bank"', use_synonyms=False)]
    assert match(lists, "We walked along the river bank.") == {}
    assert list(match(lists, "Both river banks and a bank.")) == [1]


def test_all_terms_requires_every_term_but_not_the_exclusions() -> None:
    lists = [spec(1, "election\nbudget\n-football", use_synonyms=False, match_all=True)]
    assert match(lists, "The election is near.") == {}
    text = "The election budget is set."
    assert words(text, match(lists, text), 1) == ["election", "budget"]
    assert match(lists, "The election budget and football.") == {}


def test_site_lines_limit_a_list_to_a_host_and_its_subdomains() -> None:
    lists = [spec(1, "election\nsite:example.com", use_synonyms=False)]
    text = "Election night."
    assert list(match(lists, text, host="example.com")) == [1]
    assert list(match(lists, text, host="NEWS.Example.com:8080")) == [1]
    assert match(lists, text, host="notexample.com") == {}
    assert match(lists, text, host=None) == {}


def test_an_excluded_site_rejects_that_host_only() -> None:
    lists = [spec(1, "election\n-site:sports.example.com", use_synonyms=False)]
    assert match(lists, "Election night.", host="live.sports.example.com") == {}
    assert list(match(lists, "Election night.", host="news.example.com")) == [1]


def test_a_greek_list_matches_greek_inflections() -> None:
    text = "Η κυβέρνηση ανακοίνωσε εκλογές. Οι εκλογών οι κυβερνήσεις."
    found = match([spec(1, "κυβερνήσεις\nεκλογή", language="el")], text)
    assert words(text, found, 1) == ["κυβέρνηση", "εκλογές", "εκλογών", "κυβερνήσεις"]


def test_lists_in_different_languages_share_one_index() -> None:
    lists = [spec(1, "government", use_synonyms=False), spec(2, "κυβέρνηση", language="el")]
    found = match(lists, "The government and η κυβέρνησης.")
    assert set(found) == {1, 2}


def test_a_term_repeated_in_a_text_gives_its_first_spans_only() -> None:
    text = " ".join(["election"] * (MAX_SPANS_PER_TERM + 5))
    found = match([spec(1, "election", use_synonyms=False)], text)
    assert len(found[1]) == MAX_SPANS_PER_TERM
    assert found[1][0] == MatchedSpan(0, 8, "election")


def test_spans_of_several_terms_come_in_text_order() -> None:
    text = "Budget cuts before the election, then a budget vote."
    found = match([spec(1, "election\nbudget", use_synonyms=False)], text)
    assert [span.start for span in found[1]] == sorted(span.start for span in found[1])
    assert words(text, found, 1) == ["Budget", "election", "budget"]


def test_one_scan_serves_many_lists() -> None:
    lists = [spec(n, "election" if n % 2 else "budget", use_synonyms=False) for n in range(1, 41)]
    found = match(lists, "Budget day.")
    assert sorted(found) == list(range(2, 41, 2))


def test_adding_and_removing_lists_equals_building_from_scratch() -> None:
    texts = ["Elections and budgets.", "A river bank, a car.", "Stock markets fell."]
    first = [spec(1, "election"), spec(2, "bank\n-river"), spec(3, '"stock market"')]
    later = [spec(2, "car"), spec(4, "stock market\nbudget", match_all=True)]
    index = KeywordIndex.build(first)
    index.remove(3)
    for item in later:
        index.add(item)  # list 2 is replaced, not duplicated
    rebuilt = KeywordIndex.build([first[0], *later])
    assert index.list_ids() == rebuilt.list_ids() == {1, 2, 4}
    for text in texts:
        assert index.match(text) == rebuilt.match(text)
    assert index.remove(3) is False


def test_removing_every_list_leaves_an_empty_index() -> None:
    index = KeywordIndex.build([spec(1, "stock market\ncar"), spec(2, '"stock market"')])
    index.remove(1)
    index.remove(2)
    assert len(index) == 0 and index.match("stock market car") == {}
    spaces = index._spaces.values()
    assert all(not (space.concepts or space.follows or space.prefixes) for space in spaces)


def test_a_list_holding_a_term_twice_is_posted_once_for_it() -> None:
    lists = [
        spec(1, "car\ncar\nbank\n-river"),
        spec(2, "bank\nsite:example.com"),
        spec(3, '"stock market"\nvote', match_all=True),
    ]
    index = KeywordIndex.build(lists)
    car = index._lists[1].concepts[0]
    assert index._lists[1].concepts[1] == car  # one concept at both positions
    assert index._simple[car] == []  # list 1 is judged: it has an exclusion
    assert index._judged[car] == [1]  # posted once
    found = index.match("A car by the river, a car at the bank.")
    assert found == NaiveMatcher(lists).match("A car by the river, a car at the bank.") == {}
    assert list(index.match("A car, a bank.")) == [1]


def test_lists_of_several_terms_keep_their_spans_in_new_text_as_the_naive_loop_does() -> None:
    lists = [
        spec(1, "car\nbank\nvote"),
        spec(2, "car\n-river"),
        spec(3, "bank\nvote", match_all=True),
    ]
    text = " ".join(["A car at the bank before the vote."] * 12)
    new_text = [(len(text) - 40, len(text))]
    found = KeywordIndex.build(lists).match(text, host="news.example.com", new_text=new_text)
    assert found == NaiveMatcher(lists).match(text, host="news.example.com", new_text=new_text)
    assert len(found[1]) > MAX_SPANS_PER_LIST  # the cap, plus spans in the new text


def test_matching_leaves_the_garbage_collector_as_it_found_it() -> None:
    index = KeywordIndex.build([spec(1, "car")])
    assert gc.isenabled()
    assert index.match("A car.") == {1: (MatchedSpan(2, 5, "car"),)}
    assert gc.isenabled()
    gc.disable()
    try:
        index.match("A car.")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_compiling_stored_text_equals_compiling_parsed_terms() -> None:
    text = 'Car\n"Stock Market"\n-sports\nsite:example.com\n-site:x.example.com\n'
    from_text = compile_text(7, text, "en", True, True)
    assert from_text == compile_list(spec(7, text, use_synonyms=True, match_all=True))
    assert from_text.sites == ("example.com",) and from_text.excluded_sites == ("x.example.com",)
    [sports] = from_text.exclusions
    assert sports.raw == "-sports" and sports.keys[0] == ("en", "sport")
    assert compile_text(7, "-sports\ncar", "en", False).exclusions == (
        CompiledTerm("-sports", (("en", "sport"),)),
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Add at least one term."),
        ("-sports", "Add at least one term to look for"),
        ('car\n"open', "Line 2: the quote is not closed."),
        ("\n".join(["car"] * 101), "A list holds at most 100 terms"),
    ],
)
def test_compiling_stored_text_refuses_what_the_form_refuses(text: str, message: str) -> None:
    with pytest.raises(TermSyntaxError, match=message):
        compile_text(1, text, "en")


@pytest.mark.parametrize("use_synonyms", [True, False])
def test_a_list_of_lines_compiled_before_is_refused_or_compiled_as_the_first_time(
    use_synonyms: bool,
) -> None:
    first = compile_text(1, "-sports\ncar\ntrain", "en", use_synonyms)
    # Every line is known now: lists made of them are compiled without parsing their text.
    again = compile_text(2, "car\n-sports\n\ntrain", "en", use_synonyms)
    assert (again.positives, again.exclusions) == (first.positives, first.exclusions)
    with pytest.raises(TermSyntaxError, match="Add at least one term to look for"):
        compile_text(3, "-sports", "en", use_synonyms)
    with pytest.raises(TermSyntaxError, match="A list holds at most 100 terms"):
        compile_text(4, "\n".join(["car"] * 101), "en", use_synonyms)


def test_an_unsupported_language_matches_words_as_written() -> None:
    found = match([spec(1, "kitabu", language="sw")], "Kitabu kipya. Vitabu.")
    assert words("Kitabu kipya. Vitabu.", found, 1) == ["Kitabu"]


def test_every_synonym_the_list_page_shows_matches_on_its_own() -> None:
    terms = parse_terms("car\nclimate change")
    lists = [ListSpec(1, "en", terms, use_synonyms=True)]
    shown = [
        synonym.name
        for term in list_synonyms(terms, "en", True)
        for group in term.groups
        if group.on
        for synonym in group.synonyms
    ]
    assert {"automobile", "motorcar", "global climate change"} <= set(shown)
    for name in shown:
        assert list(match(lists, f"News about {name} today.")) == [1], name


def test_a_term_found_by_its_word_and_its_synonyms_gives_spans_in_text_order() -> None:
    text = "An automobile, a car, then cars and a motorcar."
    found = match([spec(1, "car", use_synonyms=True)], text)
    assert words(text, found, 1) == ["automobile", "car", "cars", "motorcar"]


def test_spans_starting_at_the_same_word_come_shorter_first() -> None:
    text = "Stock market news."
    found = match([spec(1, "stock market\nstock", use_synonyms=False)], text)
    assert found[1] == (MatchedSpan(0, 5, "stock"), MatchedSpan(0, 12, "stock market"))


def test_a_longer_phrase_is_found_beside_its_shorter_prefix() -> None:
    lists = [spec(1, "new york city", use_synonyms=False), spec(2, "new york", use_synonyms=False)]
    text = "New York is not New York City."
    found = match(lists, text)
    assert words(text, found, 1) == ["New York City"]
    assert words(text, found, 2) == ["New York", "New York"]


def test_equal_terms_compile_to_one_shared_object() -> None:
    # The index recognises a term by identity; a quoted phrase compiles alike everywhere.
    with_synonyms = compile_text(1, '"stock market"\ncar', "en", True)
    without = compile_text(2, '"stock market"\ncar', "en", False)
    parsed = compile_list(spec(3, '"stock market"', language="el"))
    assert with_synonyms.positives[0] is without.positives[0] is parsed.positives[0]
    assert with_synonyms.positives[1] != without.positives[1]


def test_stems_are_stemmed_once_per_process_and_the_cache_stays_bounded(monkeypatch) -> None:
    monkeypatch.setattr(prepared_text, "_stems", {})  # this process's cache, from empty
    words = ["elections", "voters", "elections", "κυβερνήσεις"]
    assert stem_all(words, "en") == ["elect", "voter", "elect", "κυβερνήσεις"]
    assert stem_all(["κυβερνήσεις"], "el") == ["κυβερνησ"]
    prepared_text._stems["en"]["zzplanted"] = "known"  # a stem the stemmer would not give
    assert stem_all(["zzplanted", "voters"], "en") == ["known", "voter"]
    monkeypatch.setattr(prepared_text, "STEM_CACHE_SIZE", 2)
    # Unseen words overflow the cache: it starts again with this text's words.
    unseen = ["bicycles", "tramways", "shipwrights"]
    assert stem_all(unseen, "en") == ["bicycl", "tramway", "shipwright"]
    assert len(prepared_text._stems["en"]) <= 3


def test_a_term_repeated_in_a_text_keeps_its_spans_in_new_text() -> None:
    text = " ".join(["election"] * (3 * MAX_SPANS_PER_TERM)) + ". Budget election day."
    new_start = text.index("Budget")
    lists = [spec(1, "election\nbudget", use_synonyms=False)]
    new_text = [(new_start, len(text))]

    found = KeywordIndex.build(lists).match(text, new_text=new_text)

    assert found == NaiveMatcher(lists).match(text, new_text=new_text)
    elections = [span for span in found[1] if span.term == "election"]
    assert len(elections) == MAX_SPANS_PER_TERM + 1
    assert elections[-1] == MatchedSpan(new_start + 7, new_start + 15, "election")
    assert words(text, found, 1)[-2:] == ["Budget", "election"]
    # Without new text, only the list's first occurrences are kept, whatever the term.
    assert match(lists, text)[1] == found[1][:MAX_SPANS_PER_LIST]


def test_a_list_of_several_terms_keeps_its_first_spans_in_text_order() -> None:
    text = " ".join(["budget election vote"] * MAX_SPANS_PER_LIST)
    lists = [spec(1, "vote\nelection\nbudget", use_synonyms=False)]

    found = match(lists, text)

    assert found == NaiveMatcher(lists).match(text)
    assert len(found[1]) == MAX_SPANS_PER_LIST
    assert words(text, found, 1)[:4] == ["budget", "election", "vote", "budget"]
    assert list(found[1]) == sorted(found[1])


def test_new_text_keeps_at_most_as_many_extra_spans_as_the_cap() -> None:
    text = " ".join(["election"] * (3 * MAX_SPANS_PER_TERM))
    lists = [spec(1, "election", use_synonyms=False)]
    new_text = [(0, len(text))]

    found = KeywordIndex.build(lists).match(text, new_text=new_text)

    assert found == NaiveMatcher(lists).match(text, new_text=new_text)
    assert len(found[1]) == 2 * MAX_SPANS_PER_TERM


def test_unknown_lines_are_the_stripped_lines_this_process_has_not_compiled(monkeypatch) -> None:
    monkeypatch.setattr(compiled_lines, "_line_cache", {})  # this process's caches, from empty
    compile_text(1, "car", "en", True)
    texts = [(" car \ndoctor\n\n", "en", True), ("doctor", "english", True), ("car", "en", False)]
    unknown = unknown_lines([*texts, ('"x y"', "xx", True)])
    # A line with synonyms is keyed with what they resolved to in its list.
    [(car, _, _), (doctor, _, _)] = keyed_lines(" car \ndoctor", "en", True)
    assert car == keyed_lines("car", "en", True)[0][0] and car.startswith("car\x00")
    assert doctor.startswith("doctor\x00")
    assert unknown == {
        ("en", True): (line_cache("en", True), {doctor}),
        ("en", False): (line_cache("en", False), {"car"}),
        ("", True): (line_cache("", True), {'"x y"'}),  # a language nothing stems
    }
    assert unknown_lines([("car", "en", True)]) == {}
