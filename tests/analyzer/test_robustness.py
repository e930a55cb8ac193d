"""Bad input: generated HTML, binary data, and pages too deep or too large."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer import (
    AnalyzerError,
    NotHTMLError,
    PageTooDeepError,
    PageTooLargeError,
    analyze,
    extract_clips,
    find_terms,
)
from analyzer import settings as analyzer_settings
from analyzer.model import PageAnalysis
from tests.analyzer.html_strategies import TERM, Document, documents

SLOW_OK = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def visible_texts(analysis: PageAnalysis) -> list[str]:
    return [
        analysis.text,
        analysis.main_text,
        *(area.text for area in analysis.informational_areas),
        *(area.title for area in analysis.informational_areas),
        *(area.text for area in analysis.hub_areas),
        *(area.text for area in analysis.navigational_areas),
        *(link.text for link in analysis.links),
        *(link.context for link in analysis.links),
    ]


def analyze_or_refuse(html: str) -> PageAnalysis | AnalyzerError:
    try:
        return analyze(html, "https://generated.example/page")
    except AnalyzerError as refusal:
        return refusal


@pytest.mark.slow
@SLOW_OK
@given(documents())
def test_generated_html_is_analysed_deterministically_and_the_term_found_only_if_visible(
    document: Document,
) -> None:
    first = analyze_or_refuse(document.html)
    second = analyze_or_refuse(document.html)
    if isinstance(first, AnalyzerError):
        # Unclosed tags repeated thousands of times nest deeper than MAX_DEPTH.
        assert isinstance(first, PageTooDeepError)
        assert isinstance(second, PageTooDeepError)
        assert str(first) == str(second)
        return
    assert isinstance(second, PageAnalysis)
    assert first.to_dict() == second.to_dict()
    if document.visible:
        assert find_terms(first.text, [TERM], first.language)
    if document.hidden:
        assert not any(TERM in text for text in visible_texts(first))
        assert extract_clips(first, [TERM]) == []


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_generated_html_as_bytes_in_any_declared_charset_never_raises_untyped_errors(
    document: Document,
) -> None:
    data = document.html.encode("utf-8", errors="surrogatepass")
    for declared in (None, "utf-8", "windows-1252", "x-unknown"):
        with contextlib.suppress(AnalyzerError):  # a typed refusal is allowed, nothing else
            analyze(data, declared_encoding=declared)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=4096))
def test_random_bytes_are_analysed_or_refused_as_not_html(data: bytes) -> None:
    with contextlib.suppress(NotHTMLError):
        analyze(data)


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00",
        bytes(range(256)) * 8,
    ],
    ids=["pdf", "png", "gzip", "control bytes"],
)
def test_binary_input_is_refused_as_not_html(data: bytes) -> None:
    with pytest.raises(NotHTMLError):
        analyze(data)


def test_a_50000_deep_nest_is_refused_clearly() -> None:
    html = "<html><body>" + "<div>" * 50_000 + "deep" + "</div>" * 50_000 + "</body></html>"
    with pytest.raises(PageTooDeepError, match="MAX_DEPTH"):
        analyze(html)


def test_a_nest_within_max_depth_keeps_all_its_text() -> None:
    depth = analyzer_settings.MAX_DEPTH - 10
    html = "<body>" + "<div>" * depth + "deep" + "</div>" * depth + "<p>after</p></body>"
    assert analyze(html).text == "deep\nafter"


def test_a_100_mb_text_node_is_refused_clearly() -> None:
    html = "<html><body><p>" + "word " * 20_000_000 + "</p></body></html>"
    with pytest.raises(PageTooLargeError, match="MAX_BYTES"):
        analyze(html)
    with pytest.raises(PageTooLargeError, match="MAX_BYTES"):
        analyze(html.encode())


def test_a_text_node_just_under_the_size_cap_is_analysed_whole() -> None:
    words = (analyzer_settings.MAX_BYTES - 100) // 5
    html = "<html><body><p>" + "word " * words + "</p></body></html>"
    analysis = analyze(html.encode())
    assert len(analysis.main_text) == words * 5 - 1


def test_the_caps_are_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analyzer_settings, "MAX_BYTES", 1000)
    with pytest.raises(PageTooLargeError, match="1,000"):
        analyze("<p>" + "x" * 1000 + "</p>")
    monkeypatch.setattr(analyzer_settings, "MAX_NODES", 50)
    with pytest.raises(AnalyzerError, match="MAX_NODES"):
        analyze("<li>x</li>" * 60)


def test_ten_thousand_attributes_on_one_tag_are_fine() -> None:
    crowd = "".join(f' data-a{index}="v{index}"' for index in range(10_000))
    analysis = analyze(f'<body><div{crowd} class="lead"><p>{TERM} here</p></div></body>')
    assert analysis.text == f"{TERM} here"
