"""Synonyms by sense: the senses a term most likely means, phrases by parts, and switches."""

from __future__ import annotations

import pytest

from analyzer.text.senses import choose_senses, context_stems, senses, synonyms
from analyzer.text.wordnet import word_forms
from clipping.matching import KeywordIndex, ListSpec, NaiveMatcher, compile_text
from clipping.matching import resolution as resolving
from clipping.matching import synonyms as matching_synonyms
from clipping.matching.synonyms import (
    NO_THESAURUS,
    SWITCHED_OFF,
    changed_choices,
    list_synonyms,
)
from clipping.matching.why import describe, explain
from clipping.terms import parse_terms


def spec(terms: str, *, language: str = "en", choices=None, **options: bool) -> ListSpec:
    return ListSpec(1, language, parse_terms(terms), choices=choices or {}, **options)


def found(terms: str, text: str, **options) -> list[str]:
    """Return the words a list matches in a text (index and naive loop agreeing)."""
    lists = [spec(terms, **options)]
    matches = KeywordIndex.build(lists).match(text)
    assert matches == NaiveMatcher(lists).match(text)
    return [text[span.start : span.end] for span in matches.get(1, ())]


def shown(terms: str, **options) -> dict[str, list[str]]:
    """Return {term: synonyms switched on} as the list page shows them."""
    described = list_synonyms(parse_terms(terms), "en", True, options.get("choices"))
    return {
        term.raw: [s.name for g in term.groups if g.on for s in g.synonyms if s.on]
        for term in described
    }


@pytest.mark.parametrize(
    ("term", "meant", "not_meant"),
    [
        ("car", {"automobile", "auto", "motorcar"}, {"machine", "gondola", "railcar", "cable car"}),
        ("wind", {"air current"}, {"fart", "lead", "lift", "jazz", "hint"}),
        ("government", {"authorities"}, {"political science"}),
        ("strike", {"work stoppage"}, {"hit", "impress", "collide with"}),
        ("prices", {"cost"}, {"toll", "terms"}),
        ("measles", {"rubeola"}, set()),
    ],
)
def test_a_term_gets_the_synonyms_of_the_senses_it_most_likely_means(term, meant, not_meant):
    found_synonyms = set(synonyms(term))
    assert meant <= found_synonyms
    assert not found_synonyms & not_meant


def test_the_other_terms_of_a_list_choose_the_sense_of_a_rare_word() -> None:
    assert synonyms("chip") == []  # one tagged use per sense says nothing
    context = context_stems(["semiconductor", "export controls"])
    [sense] = choose_senses(senses("chip"), context)
    assert sense.id == "chip.n.07" and "microchip" in sense.synonyms


def test_a_synonym_is_matched_by_its_own_forms_not_by_a_stem_another_word_shares() -> None:
    # "authorities" and "authors" share the Snowball stem "author".
    text = "The authors wrote a book. The authorities said no."
    assert found("government", text) == ["authorities"]


def test_car_no_longer_matches_machines_gondolas_or_elevators() -> None:
    text = "A machine, a gondola, an elevator car? No: an automobile and two autos."
    assert found("car", text) == ["car", "automobile", "autos"]


def test_exclusions_names_and_quoted_phrases_get_no_synonyms() -> None:
    assert shown('news\n-sports\n"stock market"\nBank of England\nNATO') == {
        "news": ["tidings"],
        "-sports": [],
        '"stock market"': [],
        "Bank of England": [],
        "NATO": [],
    }
    # "-sports" excludes only its own forms, not play, fun or feature.
    assert found("news\n-sports", "Fun news: a play about a new feature.") == ["news"]


def test_a_multi_word_term_never_gets_one_of_its_own_words_as_a_synonym() -> None:
    assert shown("electric cars") == {"electric cars": ["electric automobile"]}
    assert found("electric cars", "The electric grid. An electric automobile.") == [
        "electric automobile"
    ]


@pytest.mark.parametrize(
    ("terms", "text", "expected"),
    [
        ("measles outbreak", "A rubeola outbreak was declared.", ["rubeola outbreak"]),
        ("rail strike", "The rail work stoppage ended.", ["rail work stoppage"]),
        ("rail strike", "Rail work stoppages spread.", ["Rail work stoppages"]),
        ("chip exports\nsemiconductor", "Microchip exports fell.", ["Microchip exports"]),
        ("chip export", "Microchip exports fell.", ["Microchip exports"]),
        ("drought", "The drouth ended.", ["drouth"]),
        ("housing prices", "Housing costs rose again.", ["Housing costs"]),
        ("quantum computing", "Quantum computation advances.", ["Quantum computation"]),
    ],
)
def test_a_phrase_matches_by_parts_each_word_by_a_form_or_a_synonym(terms, text, expected):
    assert found(terms, text) == expected


def test_a_word_of_a_phrase_takes_its_sense_from_the_phrase_not_alone() -> None:
    assert shown("chip export")["chip export"][:2] == ["microchip", "micro chip"]
    assert shown("chip")["chip"] == []  # alone, no sense of "chip" is clearly meant
    assert found("chip export", "Potato crisp exports rose.") == []


def test_a_phrase_by_parts_keeps_the_order_and_adjacency_of_its_words() -> None:
    assert found("rail strike", "A work stoppage on the rail network.") == []
    assert found("measles outbreak", "Outbreak of rubeola.") == []


def test_a_quoted_phrase_stays_exact() -> None:
    assert found('"rail strike"', "The rail work stoppage. A rail strike.") == ["rail strike"]


def test_a_phrase_wordnet_holds_takes_its_own_synonyms_not_its_words() -> None:
    assert shown("stock market")["stock market"] == ["stock exchange", "securities market"]


def test_a_switched_off_synonym_or_sense_no_longer_matches() -> None:
    text = "An automobile and a motorcar."
    assert found("car", text) == ["automobile", "motorcar"]
    described = list_synonyms(parse_terms("car"), "en", True)
    group = next(g for g in described[0].groups if g.sense.id == "car.n.01")
    keys = {g.key for g in described[0].groups if g.on} | {
        s.key for g in described[0].groups for s in g.synonyms if s.name != "automobile"
    }
    choices = changed_choices(described, keys)
    assert choices == {"car": {"car|car.n.01|automobile": False}}
    assert found("car", text, choices=choices) == ["motorcar"]
    sense_off = changed_choices(described, set())
    assert sense_off["car"][group.key] is False
    assert found("car", text, choices=sense_off) == []


def test_a_sense_off_by_default_can_be_switched_on() -> None:
    described = list_synonyms(parse_terms("car"), "en", True)
    railcar = next(g for g in described[0].groups if g.sense.id == "car.n.02")
    assert not railcar.default
    on = {g.key for g in described[0].groups if g.on} | {railcar.key}
    on |= {s.key for g in described[0].groups for s in g.synonyms}
    choices = changed_choices(described, on)
    assert choices == {"car": {railcar.key: True}}
    assert found("car", "Two railcars derailed.", choices=choices) == ["railcars"]


def test_lists_without_a_thesaurus_match_word_forms_only() -> None:
    [term] = list_synonyms(parse_terms("αυτοκίνητο"), "el", True)
    assert term.groups == () and term.note == NO_THESAURUS
    [term] = list_synonyms(parse_terms("car"), "en", False)
    assert term.groups == () and term.note == SWITCHED_OFF


def test_synonyms_made_of_stop_words_are_left_out() -> None:
    assert "in" not in [name.lower() for name in synonyms("indiana")]


def test_the_line_cache_holds_a_line_once_per_resolution_of_its_synonyms() -> None:
    alone = compile_text(1, "chip", "en", True).positives[0]
    in_context = compile_text(2, "chip\nsemiconductor", "en", True).positives[0]
    assert alone.keys == (("en", "chip"),)
    assert ("", "microchip") in in_context.keys
    assert compile_text(3, "chip", "en", True).positives[0] is alone


def test_word_forms_inflect_nouns_at_the_end_and_verbs_at_the_start() -> None:
    assert word_forms("work stoppage", "n") == ("work stoppage", "work stoppages")
    assert word_forms("mouse", "n") == ("mouse", "mice")
    assert word_forms("walk out", "v") == ("walk out", "walks out", "walked out", "walking out")
    assert "struck" in word_forms("strike", "v")


@pytest.mark.parametrize(
    ("terms", "text", "form", "via"),
    [
        (
            "rail strike",
            "Unions called a rail work stoppage on Monday.",
            "synonym",
            "work stoppage",
        ),
        ("rail strike", "Unions called rail strikes on Monday.", "inflection", None),
        ("rail strike", "Unions called a rail strike on Monday.", "exact", None),
    ],
)
def test_why_says_which_form_and_sense_matched_in_which_sentence(terms, text, form, via):
    compiled = compile_text(1, terms, "en", True)
    spans = [[s.start, s.end, s.term] for s in KeywordIndex.build([compiled]).match(text)[1]]
    [reason] = explain(text + " Another sentence.", spans, compiled.positives, "en")
    assert reason["form"] == form and reason["sentence"] == text
    if via:
        [item] = reason["via"]
        assert item["synonym"] == via and item["sense"] == "strike.n.01"
        assert "refusal to work" in item["gloss"]
        assert describe(reason).startswith("rail strike as “rail work stoppage” (synonym: ")


def test_a_political_list_matches_government_ministers_not_pastors() -> None:
    terms = "government\nminister\nparliament"
    assert shown(terms)["minister"] == ["government minister", "diplomatic minister"]
    assert found(terms, "The pastor and the rector prayed.") == []
    assert "diplomatic minister" in found(terms, "A diplomatic minister arrived.")


TERMS_IN_LISTS = [
    "car\ncars\nrailway\ncar park",
    "chip\nsemiconductor\nchips",
    "rail strike\nunion\nstrikes",
    "minister\ngovernment\nelection\nprices",
    '"car park"\n-cars\nNASA budget\nclimate change',
    "doctor\nhospital\nnurse\ntrade deal",
]


@pytest.mark.parametrize("terms", TERMS_IN_LISTS)
def test_synonyms_without_switches_are_the_groups_switched_on(terms) -> None:
    """_effective's path for terms without switches gives what flattening the groups of
    _groups gives (the list page's path)."""
    parsed = parse_terms(terms)
    words = [term.words for term in parsed if not term.exclude]
    stemmed = [matching_synonyms._stems_of(item) for item in words]
    for term in parsed:
        if term.exclude or term.phrase:
            continue
        context = matching_synonyms._context(words, term.words, stemmed)
        groups = matching_synonyms._groups(term, context, {})
        flattened = tuple(
            (group.position, synonym.name, group.sense.pos, group.sense.id)
            for group in groups
            for synonym in group.synonyms
            if synonym.on
        )
        assert matching_synonyms._chosen_synonyms(term.words, context) == flattened


@pytest.mark.parametrize("terms", TERMS_IN_LISTS)
def test_lines_keyed_alone_are_keyed_as_in_their_list(terms) -> None:
    """A line whose synonyms no other line changes is keyed once, alone; every list holding
    it gets what resolving the whole list gives."""
    for use_synonyms in (True, False):
        resolved = resolving._keyed_in_context(terms, "en", use_synonyms, None)
        assert resolving.keyed_lines(terms, "en", use_synonyms) == resolved
        assert resolving.keyed_lines(terms, "en", use_synonyms) == resolved  # from the cache
        for key, term, effective in resolved:
            alone = resolving._alone[use_synonyms].get(term.raw)
            assert alone is None or alone == (key, term, effective)


def test_a_line_keyed_alone_still_takes_its_sense_from_a_list_that_changes_it() -> None:
    [(alone, _, _)] = resolving.keyed_lines("chip", "en", True)
    in_context = resolving.keyed_lines("chip\nsemiconductor", "en", True)
    assert in_context[0][0] != alone
    assert in_context == resolving._keyed_in_context("chip\nsemiconductor", "en", True, None)
    switched = resolving.keyed_lines("car", "en", True, {"car": {"car|car.n.01": False}})
    assert switched[0][2] == ()
