"""Visual adjacency labels: geometry rules, and a real Chromium layout of table forms."""

from __future__ import annotations

import asyncio

import pytest

from crawler.hiddenweb.browser import BrowserError, FormBrowser
from crawler.sitesearch.analysis import analyze_forms
from crawler.sitesearch.labels import Box, TextPiece, Widget, adjacent_labels


def widget(name: str, left: float, top: float, width: float = 100, height: float = 20) -> Widget:
    return Widget(name, Box(left, top, width, height))


def text(
    value: str,
    left: float,
    top: float,
    width: float = 50,
    height: float = 20,
    *,
    styled: bool = False,
) -> TextPiece:
    return TextPiece(value, Box(left, top, width, height), styled)


def test_the_nearest_text_to_the_left_labels_a_widget():
    labels = adjacent_labels(
        [widget("w", 200, 100)],
        [text("Far away", 10, 100), text("Words", 120, 100), text("Below", 200, 140)],
    )
    assert labels == {"w": "Words"}


def test_text_above_labels_a_widget_when_nothing_is_left_of_it():
    labels = adjacent_labels([widget("w", 200, 100)], [text("Section", 210, 70, height=20)])
    assert labels == {"w": "Section"}


def test_a_closer_text_above_beats_a_farther_text_to_the_left():
    labels = adjacent_labels(
        [widget("w", 300, 100)], [text("Far left", 0, 100), text("Just above", 300, 75)]
    )
    assert labels == {"w": "Just above"}


def test_on_a_tie_in_distance_bold_or_italic_text_labels_the_widget():
    pieces = [text("in", 148, 100), text("Title words", 200, 78, styled=True)]
    assert adjacent_labels([widget("w", 200, 100)], pieces) == {"w": "Title words"}
    plain = [text("in", 148, 100), text("Title words", 200, 78)]
    assert adjacent_labels([widget("w", 200, 100)], plain) == {"w": "in"}  # left, as before


def test_styling_does_not_beat_a_clearly_nearer_text():
    pieces = [text("Words", 148, 100), text("Far heading", 200, 40, styled=True)]
    assert adjacent_labels([widget("w", 200, 100)], pieces) == {"w": "Words"}


def test_text_of_more_than_six_words_is_not_a_label():
    labels = adjacent_labels(
        [widget("w", 300, 100)],
        [
            text("Please enter the words you are looking for", 100, 100, width=190),
            text("Words", 10, 100),
        ],
    )
    assert labels == {"w": "Words"}


def test_text_on_another_row_or_to_the_right_labels_nothing():
    labels = adjacent_labels(
        [widget("w", 200, 100)], [text("Other row", 10, 200), text("Right", 320, 100)]
    )
    assert labels == {}


TABLE_FORM = """<!doctype html><html><body>
<form action="/search/advanced" method="post"><table>
<tr><td>Words</td><td><input name="w"></td></tr>
<tr><td>Section</td><td><select name="sec"><option>Any</option><option>World</option></select></td></tr>
<tr><td colspan="2">Author</td></tr><tr><td colspan="2"><input name="by"></td></tr>
<tr><td></td><td><input type="submit" value="Find"></td></tr>
</table></form>
<form action="/s"><label for="q">Search</label><input id="q" name="q"></form>
</body></html>"""


@pytest.mark.browser
def test_chromium_lays_out_a_table_form_and_finds_its_labels():
    async def measure():
        async with FormBrowser() as browser:
            return await browser.form_labels(TABLE_FORM, "http://news.example/")

    layouts = asyncio.run(measure())
    assert layouts[0] == {"w": "Words", "sec": "Section", "by": "Author"}
    assert layouts[1] == {"q": "Search"}  # the label text sits left of its box too
    forms = analyze_forms(TABLE_FORM, "http://news.example/")
    # The DOM reads the same labels from the neighbouring cells, without a browser.
    assert [(e.label, e.label_source) for e in forms[0].elements] == [
        ("Words", "cell"),
        ("Section", "cell"),
        ("Author", "cell"),
    ]
    bare = forms[0].with_labels({})
    assert [e.label for e in bare.with_labels(layouts[0]).elements] == [
        "Words",
        "Section",
        "Author",
    ]


STYLED_FORM = """<!doctype html><html><body style="font: 16px/20px sans-serif; margin: 0">
<form action="/find"><table style="border-spacing: 0">
<tr><td style="padding: 0"></td><td style="padding: 0"><b>Title words</b></td></tr>
<tr><td style="padding: 0; text-align: right">in</td>
<td style="padding: 0"><input name="t" style="margin: 0; border: 0; height: 20px"></td></tr>
</table></form></body></html>"""


@pytest.mark.browser
def test_chromium_reads_bold_text_and_lets_it_break_a_tie():
    async def measure():
        async with FormBrowser() as browser:
            return await browser.form_labels(STYLED_FORM, "http://news.example/")

    assert asyncio.run(measure()) == [{"t": "Title words"}]


def test_form_work_uses_the_configured_chromium(settings):
    settings.CRAWLER_CHROMIUM_PATH = "/nonexistent/chromium"

    async def measure():
        return await FormBrowser().form_labels(TABLE_FORM, "http://news.example/")

    with pytest.raises(BrowserError, match="Chromium at /nonexistent/chromium did not start"):
        asyncio.run(measure())


# --- Table layouts read from the DOM ---------------------------------------------------------

ADVANCED_TABLE = """<h2>Advanced search</h2>
<form action="/archive/results" method="post"><table>
<tr><td>All of these words</td><td><input name="f1"></td></tr>
<tr><th>Section</th><td><select name="f3"><option value="all">Any</option></select></td></tr>
<tr><td>From year</td><td>To year</td></tr>
<tr><td><input name="y1"></td><td><input name="y2"></td></tr>
<tr><td></td><td><input type="submit" value="Go"></td></tr>
</table></form>"""


def test_a_widget_in_a_table_cell_is_labelled_by_the_cell_to_its_left_or_above():
    (form,) = analyze_forms(ADVANCED_TABLE, "http://news.example/archive/advanced")
    labels = {e.name: (e.label, e.label_source) for e in form.elements}
    assert labels == {
        "f1": ("All of these words", "cell"),
        "f3": ("Section", "cell"),
        "y1": ("From year", "cell"),
        "y2": ("To year", "cell"),
    }


def test_a_cell_with_another_widget_or_long_text_labels_nothing():
    html = """<form action="/s"><table>
<tr><td>This sentence is far too long to be the label of any widget</td><td><input name="a"></td></tr>
<tr><td><input name="b"></td><td><input name="c"></td></tr></table></form>"""
    (form,) = analyze_forms(html, "http://news.example/")
    assert {e.name: e.label for e in form.elements} == {"a": "", "b": "", "c": ""}


def test_a_dom_label_beats_the_neighbouring_cell():
    html = """<form action="/s"><table><tr><td>Cell text</td>
<td><label for="k">Keywords</label><input id="k" name="k"></td></tr></table></form>"""
    (form,) = analyze_forms(html, "http://news.example/")
    assert (form.elements[0].label, form.elements[0].label_source) == ("Keywords", "label")
