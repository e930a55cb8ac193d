"""Encodings: BOM > HTTP header > <meta> > detection, and bad input never raises."""

from __future__ import annotations

import codecs

import pytest

from analyzer import analyze
from analyzer.encoding import decode, sniff

GREEK = "Καλημέρα κόσμε, οι επιδοτήσεις για την ηλιακή ενέργεια εγκρίθηκαν σήμερα."
RUSSIAN = (
    "Городской совет в понедельник одобрил новый план субсидий для солнечных панелей, "
    "после нескольких месяцев споров о стоимости программы и о том, кто за неё заплатит."
)


def page(text: str, head: str = "") -> str:
    return f"<html><head>{head}</head><body><p>{text}</p></body></html>"


CASES = [
    # (name, bytes, declared encoding, expected codec, expected source)
    (
        "a BOM beats the header and the meta",
        codecs.BOM_UTF8 + page(GREEK, '<meta charset="iso-8859-7">').encode("utf-8"),
        "text/html; charset=windows-1251",
        "utf-8",
        "bom",
    ),
    (
        "a UTF-16 BOM",
        codecs.BOM_UTF16_LE + page(GREEK).encode("utf-16-le"),
        None,
        "utf-16-le",
        "bom",
    ),
    (
        "the header beats the meta",
        page(RUSSIAN, '<meta charset="utf-8">').encode("cp1251"),
        "text/html; charset=windows-1251",
        "cp1251",
        "header",
    ),
    (
        "a meta charset when the header says nothing",
        page(GREEK, '<meta charset="iso-8859-7">').encode("iso-8859-7"),
        None,
        "iso8859-7",
        "meta",
    ),
    (
        "a meta http-equiv",
        page(
            RUSSIAN, '<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">'
        ).encode("koi8-r"),
        None,
        "koi8-r",
        "meta",
    ),
    (
        "an unknown header charset falls through to the meta",
        page(GREEK, '<meta charset="utf-8">').encode("utf-8"),
        "text/html; charset=x-no-such-charset",
        "utf-8",
        "meta",
    ),
    (
        "an unknown meta charset falls through to detection",
        page(GREEK, '<meta charset="klingon">').encode("utf-8"),
        None,
        "utf-8",
        "detected",
    ),
    (
        "an XML declaration without meta",
        ('<?xml version="1.0" encoding="iso-8859-7"?>' + page(GREEK)).encode("iso-8859-7"),
        None,
        "iso8859-7",
        "meta",
    ),
    (
        "a meta that names UTF-16 means UTF-8",
        page(GREEK, '<meta charset="utf-16">').encode("utf-8"),
        None,
        "utf-8",
        "meta",
    ),
    (
        "no charset at all, UTF-8 bytes",
        page(GREEK).encode("utf-8"),
        None,
        "utf-8",
        "detected",
    ),
    (
        "BOM-less UTF-16 little endian",
        page(GREEK).encode("utf-16-le"),
        None,
        "utf-16-le",
        "detected",
    ),
    (
        "BOM-less UTF-16 big endian",
        page(GREEK).encode("utf-16-be"),
        None,
        "utf-16-be",
        "detected",
    ),
    (
        "no charset, a legacy Cyrillic page",
        page(RUSSIAN).encode("cp1251"),
        None,
        "cp1251",
        "detected",
    ),
]


@pytest.mark.parametrize(
    ("data", "declared", "codec", "source"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_the_charset_comes_from_the_strongest_source(
    data: bytes, declared: str | None, codec: str, source: str
) -> None:
    assert sniff(data, declared) == (codec, source)


@pytest.mark.parametrize(("data", "declared"), [case[1:3] for case in CASES])
def test_the_decoded_page_reads_as_written(data: bytes, declared: str | None) -> None:
    text, _ = decode(data, declared)
    assert GREEK in text or RUSSIAN in text


def test_latin1_labels_decode_as_windows_1252_as_browsers_do() -> None:
    data = page("\u201cquoted\u201d caf\u00e9").encode("cp1252")
    text, codec = decode(data, "text/html; charset=ISO-8859-1")
    assert codec == "cp1252"
    assert "\u201cquoted\u201d caf\u00e9" in text


def test_a_few_legacy_bytes_without_a_charset_are_windows_1252() -> None:
    text, codec = decode(page("caf\u00e9").encode("cp1252"))
    assert (codec, "caf\u00e9" in text) == ("cp1252", True)


def test_invalid_utf8_decodes_with_replacement_characters() -> None:
    data = page(GREEK).encode("utf-8").replace("κόσμε".encode(), b"\xce\xff\xfe")
    analysis = analyze(data, declared_encoding="utf-8")
    assert analysis.encoding == "utf-8"
    assert "\ufffd" in analysis.text
    assert "Καλημέρα" in analysis.text


def test_a_wrong_header_charset_still_decodes_without_raising() -> None:
    data = page("caf\u00e9 cr\u00e8me").encode("latin-1")
    analysis = analyze(data, declared_encoding="text/html; charset=utf-8")
    assert analysis.encoding == "utf-8"
    assert "caf\ufffd cr\ufffdme" in analysis.text


def test_utf8_with_a_damaged_byte_is_still_utf8_when_undeclared() -> None:
    data = page(GREEK + " \xe9").encode("utf-8").replace(b"\xc3\xa9", b"\xe9")
    text, codec = decode(data)
    assert codec == "utf-8"
    assert GREEK in text


def test_lone_surrogates_and_nul_in_text_input_become_replacement_characters() -> None:
    analysis = analyze("<p>solar\ud800panels\x00here</p>")
    assert analysis.text == "solar\ufffdpanels\ufffdhere"


@pytest.mark.parametrize(
    "markup",
    ["a&#1;b", "a&#x1b;b", "a\x02b", "a&#x7f;b", "a\x9bb", "a&#x81;b"],
)
def test_controls_raw_or_as_references_never_leave_the_analyzer(markup):
    html = f"<html><head><title>{markup}</title></head><body><h1>{markup}</h1></body></html>"

    for page in (html, html.encode()):
        analysis = analyze(page, "http://news.example/")
        assert analysis.title == "ab"
        assert not any(
            0x7F <= ord(c) <= 0x9F or ord(c) < 0x20 for c in analysis.text if c not in "\t\n\r"
        )


@pytest.mark.parametrize(
    "markup", ["&#xFFFE;", "&#xffff;", "\ufdd0", "&#x1FFFF;", "&#xD800;", "&#1114112;"]
)
def test_noncharacters_and_impossible_references_become_the_replacement_character(markup):
    analysis = analyze(f"<title>a{markup}b</title><p>x</p>", "http://news.example/")

    assert analysis.title == "a\ufffdb"


def test_a_page_declaring_utf7_is_not_decoded_as_utf7():
    body = b"<html><body><p>+ADw-script+AD4-alert(1)+ADw-/script+AD4-</p></body></html>"

    text, codec = decode(body, "text/html; charset=UTF-7")

    assert codec != "utf_7" and "+ADw-script+AD4-" in text
    assert "<script" not in analyze(body, "http://news.example/", declared_encoding="UTF-7").text
