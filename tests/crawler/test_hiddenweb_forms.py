"""Form analysis: elements, finite domains, defaults, submission data and DOM labels."""

from __future__ import annotations

import pytest

from crawler.sitesearch.analysis import (
    CHECKBOX,
    RADIO,
    SELECT,
    TEXT,
    TEXTAREA,
    FormParseError,
    analyze_forms,
)

PAGE = "http://news.example/section/"


def only_form(html: str, url: str = PAGE):
    forms = analyze_forms(html, url)
    assert len(forms) == 1
    return forms[0]


def test_it_reads_method_action_and_encoding():
    form = only_form(
        '<form action="../find?x=1" method="POST" enctype="multipart/form-data">'
        '<input name="q"></form>'
    )
    assert form.method == "POST"
    assert form.action == "http://news.example/find?x=1"
    assert form.enctype == "multipart/form-data"


def test_a_form_without_action_or_method_gets_the_page_and_get():
    form = only_form('<form><input name="q"></form>', PAGE + "#top")
    assert form.method == "GET"
    assert form.action == PAGE


def test_a_base_element_moves_relative_actions():
    forms = analyze_forms(
        '<html><head><base href="http://cdn.example/x/"></head>'
        '<body><form action="s"><input name="q"></form></body></html>',
        PAGE,
    )
    assert forms[0].action == "http://cdn.example/x/s"


def test_a_javascript_action_falls_back_to_the_page():
    form = only_form('<form action="javascript:void(0)"><input name="q"></form>')
    assert form.action == PAGE


def test_text_boxes_are_infinite_and_finite_domains_are_read_from_the_page():
    form = only_form(
        """<form>
        <input name="q" type="search">
        <select name="section"><option value="all">All</option>
          <option value="pol" selected>Politics</option><option disabled>Gone</option></select>
        <input type="radio" name="sort" value="new"> Newest
        <input type="radio" name="sort" value="old" checked> Oldest
        <input type="checkbox" name="archive" value="yes" id="arch"><label for="arch">Archive</label>
        <textarea name="note">hello</textarea>
        </form>"""
    )
    kinds = {e.name: e.kind for e in form.elements}
    assert kinds == {
        "q": TEXT,
        "section": SELECT,
        "sort": RADIO,
        "archive": CHECKBOX,
        "note": TEXTAREA,
    }
    section = form.element("section")
    assert [(o.value, o.text) for o in section.options] == [("all", "All"), ("pol", "Politics")]
    assert section.default == ("pol",)
    sort = form.element("sort")
    assert [(o.value, o.text) for o in sort.options] == [("new", "Newest"), ("old", "Oldest")]
    assert sort.default == ("old",)
    assert form.element("archive").default == ()
    assert form.element("archive").options[0].text == "Archive"
    assert form.element("note").default == ("hello",)
    assert [e.finite for e in form.elements] == [False, True, True, True, False]
    assert "textarea" in form.sensitive_types


def test_a_single_select_defaults_to_its_first_option():
    form = only_form(
        '<form><select name="s"><option>One</option><option>Two</option></select></form>'
    )
    assert form.element("s").default == ("One",)
    assert form.element("s").options[0].value == "One"  # no value attribute: the text


def test_hidden_fields_are_fixed_and_buttons_are_not_elements():
    form = only_form(
        '<form><input type="hidden" name="csrf" value="t0k">'
        '<input name="q"><button name="go" value="1">Find it</button>'
        '<input type="submit" value="Search"></form>'
    )
    assert [e.name for e in form.elements] == ["q"]
    assert form.hidden == (("csrf", "t0k"),)
    assert form.submit == ("go", "1")
    assert form.buttons == ("Find it", "Search")


def test_disabled_controls_and_disabled_fieldsets_are_left_out():
    form = only_form(
        '<form><input name="a" disabled><fieldset disabled><input name="b"></fieldset>'
        '<input name="c"></form>'
    )
    assert [e.name for e in form.elements] == ["c"]


def test_fill_keeps_document_order_and_defaults():
    form = only_form(
        '<form><input type="hidden" name="lang" value="en"><input name="q">'
        '<select name="s"><option value="all">All</option></select>'
        '<button name="go" value="1">Go</button></form>'
    )
    assert form.fill({"q": "climate"}) == [
        ("lang", "en"),
        ("q", "climate"),
        ("s", "all"),
        ("go", "1"),
    ]
    assert form.default_values() == [("lang", "en"), ("q", ""), ("s", "all"), ("go", "1")]


@pytest.mark.parametrize(
    ("markup", "label", "source"),
    [
        ('<label for="x">Keywords</label><input id="x" name="q">', "Keywords", "label"),
        ('<label>Find <input name="q"></label>', "Find", "label"),
        ('<input name="q" aria-label="Search the site">', "Search the site", "aria"),
        (
            '<span id="l1">Company</span><span id="l2">type</span><input name="q" aria-labelledby="l1 l2">',
            "Company type",
            "aria",
        ),
        ('<input name="q" placeholder="Search articles">', "Search articles", "placeholder"),
        ('<input name="q" title="Query">', "Query", "title"),
        ('<input name="q">', "", ""),
    ],
)
def test_dom_labels_come_from_the_usual_places(markup, label, source):
    element = only_form(f"<form>{markup}</form>").element("q")
    assert (element.label, element.label_source) == (label, source)


def test_a_label_does_not_take_the_text_of_a_select_inside_it():
    form = only_form(
        '<form><label>Section <select name="s"><option>World</option></select></label></form>'
    )
    assert form.element("s").label == "Section"


def test_a_radio_group_is_named_by_its_fieldset_legend():
    form = only_form(
        "<form><fieldset><legend>Order by</legend>"
        '<label><input type="radio" name="o" value="d"> Date</label>'
        '<label><input type="radio" name="o" value="r"> Relevance</label></fieldset></form>'
    )
    element = form.element("o")
    assert (element.label, element.label_source) == ("Order by", "legend")
    assert [o.text for o in element.options] == ["Date", "Relevance"]


def test_unlabelled_elements_take_visual_labels_and_labelled_ones_keep_theirs():
    form = only_form('<form><input name="w"><input name="q" placeholder="Search"></form>')
    assert [e.name for e in form.unlabelled()] == ["w"]
    labelled = form.with_labels({"w": "Words", "q": "Ignored"})
    assert labelled.element("w").label == "Words"
    assert labelled.element("w").label_source == "visual"
    assert labelled.element("q").label == "Search"


def test_a_page_without_forms_has_none_and_an_empty_page_is_a_typed_error():
    assert analyze_forms("<html><body><p>No forms</p></body></html>", PAGE) == []
    with pytest.raises(FormParseError, match="empty"):
        analyze_forms("   ", PAGE)


def test_broken_markup_still_yields_its_forms():
    forms = analyze_forms('<div><form action="/s"><input name="q"><p>unclosed<form>', PAGE)
    assert forms[0].action == "http://news.example/s"
    assert forms[0].elements[0].name == "q"
