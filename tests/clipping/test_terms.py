"""The keyword language: parsing terms (their synonyms: test_matching_senses.py)."""

from __future__ import annotations

import re

import pytest

from clipping.terms import (
    MAX_TERM_LENGTH,
    MAX_TERMS,
    Term,
    TermSyntaxError,
    host_within,
    normalize_host,
    parse_terms,
)


def test_it_parses_words_phrases_exclusions_and_sites() -> None:
    text = 'Car\n\n  "Stock Market"  \n-sports\n-"red card"\nsite:News.Example.COM\n'
    assert parse_terms(text) == [
        Term(raw="Car", words=("car",)),
        Term(raw='"Stock Market"', words=("stock", "market"), phrase=True),
        Term(raw="-sports", words=("sports",), exclude=True),
        Term(raw='-"red card"', words=("red", "card"), phrase=True, exclude=True),
        Term(raw="site:News.Example.COM", words=(), site="news.example.com"),
    ]


def test_it_accepts_typographic_quotes_and_greek_words() -> None:
    [term] = parse_terms("\u201cΚεντρική Τράπεζα\u201d")
    assert term.phrase and term.words == ("κεντρική", "τράπεζα")


def test_it_stores_international_hosts_in_idna_form() -> None:
    [_, site] = parse_terms("book\nsite:bücher.de")
    assert site.site == "xn--bcher-kva.de"
    assert normalize_host("WWW.Bücher.de:8080") == "www.xn--bcher-kva.de"
    assert host_within("www.xn--bcher-kva.de", site.site)
    assert not host_within("notbücher.de".encode("idna").decode(), site.site)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Add at least one term."),
        ("  \n\t\n", "Add at least one term."),
        ("car\n-", 'Line 2: put the word to exclude right after the "-"'),
        ('car\ntruck\n"stock market', "Line 3: the quote is not closed."),
        ('"stock" market', "Line 1: put the whole phrase in one pair of quotes"),
        ('stock "market"', "Line 1: quotes go around the whole term"),
        ("car\nsite:", "Line 2: write only a host after site:"),
        ("car\nsite:https://example.com/", "Line 2: write only a host after site:"),
        ("car\nsite:exa_mple.com", "Line 2: 'exa_mple.com' is not a valid host name."),
        ("car\nsite:-example.com", "Line 2: '-example.com' is not a valid host name."),
        ("car\n!!!", "Line 2: a term needs at least one letter or digit."),
        ("car\n" + "x" * (MAX_TERM_LENGTH + 1), f"Line 2: a term holds at most {MAX_TERM_LENGTH}"),
        (
            "\n".join(["car"] * (MAX_TERMS + 1)),
            f"A list holds at most {MAX_TERMS} terms; this one has 101.",
        ),
        ("-sports\nsite:example.com", "Add at least one term to look for"),
    ],
)
def test_it_rejects_bad_lists_with_a_message_naming_the_line(text: str, message: str) -> None:
    with pytest.raises(TermSyntaxError, match="^" + re.escape(message)):
        parse_terms(text)


def test_it_accepts_the_largest_list_allowed() -> None:
    terms = parse_terms("\n".join(["x" * MAX_TERM_LENGTH] * MAX_TERMS))
    assert len(terms) == MAX_TERMS


def test_syntax_errors_are_value_errors_so_callers_can_catch_either() -> None:
    assert issubclass(TermSyntaxError, ValueError)
