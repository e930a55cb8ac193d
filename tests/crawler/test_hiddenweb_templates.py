"""URL templates: a GET search form as a URL with {query}; POST forms as filled bodies."""

from __future__ import annotations

from crawler.hiddenweb.assignments import Assignment
from crawler.hiddenweb.lvs import LabelValues
from crawler.hiddenweb.urltemplate import find_search_templates, request_for_assignment
from crawler.sitesearch.analysis import analyze_forms
from crawler.strategies.xcrawl.search import find_search_template

PAGE = "http://news.example/home"

HOME = """<html><body>
<form action="/account/login" method="post"><input name="u"><input name="p" type="password"></form>
<form action="/search?old=1" method="get" role="search">
  <input type="hidden" name="lang" value="en">
  <label for="q">Search</label><input id="q" name="q">
  <select name="section"><option value="all" selected>All</option><option value="w">World</option></select>
  <select name="sort"><option value="rel">Relevance</option><option value="new">Newest</option></select>
  <button>Search</button>
</form>
<form action="/search/advanced" method="post"><input name="w" placeholder="All of these words">
  <select name="sec"><option value="any">Any</option></select><input type="submit" value="Find"></form>
</body></html>"""


def test_a_get_search_form_becomes_a_url_template_with_defaults():
    templates = find_search_templates(HOME, PAGE)
    first = templates[0]
    assert first.method == "GET"
    assert first.query_arg == "q"
    # GET replaces the action's own query string, as browsers do.
    assert first.url == "http://news.example/search?lang=en&q={query}&section=all&sort=rel"
    assert first.url_for("climate change & co") == (
        "http://news.example/search?lang=en&q=climate+change+%26+co&section=all&sort=rel"
    )


def test_a_post_search_form_keeps_its_body():
    templates = find_search_templates(HOME, PAGE)
    post = templates[1]
    assert (post.method, post.url, post.query_arg) == (
        "POST",
        "http://news.example/search/advanced",
        "w",
    )
    request = post.request_for("vaccine")
    assert request.method == "POST"
    assert request.data == (("w", "vaccine"), ("sec", "any"))


def test_login_forms_never_become_templates():
    templates = find_search_templates(HOME, PAGE)
    assert [t.action for t in templates] == [
        "http://news.example/search?old=1",
        "http://news.example/search/advanced",
    ]


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
    (template,) = find_search_templates(html, PAGE, rows=rows)
    assert template.url == "http://news.example/find?t={query}&n=Ada"


def test_xcrawls_site_search_uses_this_analysis():
    # crawler.strategies.xcrawl.search asks this module first; the login form must not become its template.
    assert find_search_template(HOME, PAGE) == (
        "http://news.example/search?lang=en&q={query}&section=all&sort=rel"
    )
