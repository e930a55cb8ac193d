"""Hidden-web requests and templates: a form filled with an assignment, LVS-planned templates.

How a page's keyword search becomes a URL template without the LVS table is
tests/crawler/test_sitesearch.py.
"""

from __future__ import annotations

from crawler.hiddenweb.assignments import (
    Assignment,
    plan_form,
    request_for_assignment,
    template_for,
)
from crawler.hiddenweb.lvs import LabelValues
from crawler.sitesearch.analysis import analyze_forms
from crawler.sitesearch.detect import find_search_templates
from tests.crawler.search_pages import HOME, PAGE


def test_request_for_assignment_fills_every_value_and_keeps_hidden_fields():
    form = analyze_forms(HOME, PAGE)[1]
    request = request_for_assignment(
        form, Assignment((("q", "tariff"), ("section", "w"), ("sort", "new")), 1.0, "tariff")
    )
    assert request.method == "GET"
    assert request.url == "http://news.example/search?lang=en&q=tariff&section=w&sort=new"


def test_templates_use_the_lvs_table_when_given():
    html = '<form action="/find"><label for="t">Title words</label><input id="t" name="t"><label for="n">Name</label><input id="n" name="n"></form>'
    assert find_search_templates(html, PAGE) == []  # two text boxes, neither a keyword box
    rows = [
        LabelValues("Name", (("Ada", 1.0),)),
        LabelValues("search", (("x", 1.0),), ("title words",), "users"),
    ]
    (form,) = analyze_forms(html, PAGE)
    template = template_for(plan_form(form, rows, threshold=0.8, alpha=1))
    assert template.url == "http://news.example/find?t={query}&n=Ada"
