"""A site's search: which form is the keyword search, its URL template, and its one row kind."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.admin.sites import site as admin_site
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.test import RequestFactory

from crawler.admin.xcrawl import SiteSearchInline
from crawler.models import Site
from crawler.models.sitesearch import SiteSearch
from crawler.sitesearch.analysis import analyze_forms
from crawler.sitesearch.detect import find_search_template, find_search_templates
from crawler.sitesearch.template import search_url
from tests.crawler.search_pages import HOME, PAGE
from tests.factories import make_user

SEARCH_HOME = """<!doctype html><html lang='en'><head><title>Shop</title></head><body>
<header><form action="/find" method="get" role="search">
<label for="q">Search</label><input type="search" id="q" name="q">
<input type="hidden" name="lang" value="en">
<select name="sort"><option value="relevance">Relevance</option>
<option value="price" selected>Price</option></select>
<button type="submit">Go</button></form></header>
<main><h1>Welcome</h1><p>Our shop sells cameras and printers.</p></main></body></html>"""


# --- Detection ------------------------------------------------------------------------------


def test_a_get_search_form_with_one_text_box_becomes_a_url_template():
    template = find_search_template(SEARCH_HOME, "http://shop.test/")
    assert template == "http://shop.test/find?q={query}&lang=en&sort=price"
    assert (
        search_url(template, "canon eos") == "http://shop.test/find?q=canon+eos&lang=en&sort=price"
    )


@pytest.mark.parametrize(
    "form",
    [
        '<form method="post" action="/find"><input name="q"></form>',
        '<form action="/find"><input name="a"><input name="b"></form>',
        '<form action="/login"><input name="user"><input type="password" name="pw"></form>',
        '<form action="javascript:void(0)"><input name="q"></form>',
        '<form action="/find"><select name="x"><option>1</option></select></form>',
    ],
)
def test_forms_that_are_not_a_get_keyword_search_give_no_template(form):
    assert find_search_template(f"<html><body>{form}</body></html>", "http://shop.test/") is None


def test_find_search_template_finds_the_home_page_search():
    template = find_search_template(SEARCH_HOME, "http://shop.test/")
    assert template is not None and "{query}" in template
    assert urlsplit(template).path == "/find"
    assert parse_qs(urlsplit(search_url(template, "zoom")).query)["q"] == ["zoom"]


def test_a_lone_box_labelled_like_a_search_box_is_the_keyword_search():
    html = '<form action="/list"><label for="k">Keywords:</label><input id="k" name="k2"></form>'
    assert find_search_template(html, PAGE) == "http://news.example/list?k2={query}"
    plain = '<form action="/list"><label for="k">Postcode</label><input id="k" name="k2"></form>'
    assert find_search_template(plain, PAGE) is None


def test_an_empty_page_has_no_search():
    assert find_search_template("", PAGE) is None


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


def test_xcrawls_site_search_uses_this_analysis():
    # The login form must not become xCrawl's template.
    assert find_search_template(HOME, PAGE) == (
        "http://news.example/search?lang=en&q={query}&section=all&sort=rel"
    )


# --- Rows -----------------------------------------------------------------------------------


@pytest.fixture
def site(db):
    return Site.objects.create(name="News", root_url="http://news.example/")


def admin_template(site: Site, url_template: str) -> SiteSearch:
    search = SiteSearch(site=site, source=SiteSearch.Source.ADMIN, url_template=url_template)
    search.full_clean()
    search.save()
    return search


def test_an_admins_template_is_a_get_search_row_described_by_its_template(site):
    search = admin_template(site, "http://news.example/find?q={query}&lang=en")
    assert (search.method, search.status, search.query_arg) == ("GET", "search", "q")
    assert search.action == "http://news.example/find"
    assert search.fields == [["q", "{query}"], ["lang", "en"]]
    assert str(search) == "http://news.example/find?q={query}&lang=en"


@pytest.mark.parametrize(
    ("template", "message"),
    [("http://news.example/find?q=", "slot"), ("ftp://news.example/find?q={query}", "http")],
)
def test_an_admins_template_needs_a_slot_and_an_http_url(site, template, message):
    with pytest.raises(ValidationError, match=message):
        admin_template(site, template)


def test_a_site_has_one_admins_template_at_most(site):
    admin_template(site, "http://news.example/find?q={query}")
    with pytest.raises(ValidationError), transaction.atomic():
        admin_template(site, "http://news.example/other?q={query}")
    with pytest.raises(IntegrityError), transaction.atomic():
        SiteSearch.objects.create(
            site=site, source=SiteSearch.Source.ADMIN, url_template="http://x.example/?q={query}"
        )


def test_xcrawl_takes_an_admins_template_before_any_found_one(site):
    (form,) = analyze_forms(SEARCH_HOME, "http://news.example/")
    found = SiteSearch.objects.find_template(site, SEARCH_HOME, "http://news.example/")
    assert found == "http://news.example/find?q={query}&lang=en&sort=price"
    templates = SiteSearch.objects.filter(site=site).url_templates()
    assert list(templates.values_list("url_template", flat=True)) == [found]
    admin_template(site, "http://news.example/search?q={query}")
    assert templates.values_list("url_template", flat=True).first() == (
        "http://news.example/search?q={query}"
    )
    row = SiteSearch.objects.get(site=site, fingerprint=form.fingerprint)
    assert (row.source, row.page_url, row.query_arg) == ("found", "http://news.example/", "q")


def test_a_form_hidden_web_judged_keeps_its_verdict_when_xcrawl_finds_it(site):
    (form,) = analyze_forms(SEARCH_HOME, "http://news.example/")
    SiteSearch.objects.record_form(
        site, form, status=SiteSearch.Status.UNMATCHED, reason="no LVS label matches"
    )
    assert SiteSearch.objects.find_template(site, SEARCH_HOME, "http://news.example/") is not None
    row = SiteSearch.objects.get(site=site)
    assert (row.status, row.reason) == ("unmatched", "no LVS label matches")
    assert not SiteSearch.objects.filter(site=site).url_templates().exists()


def test_the_site_form_inline_saves_an_admins_template(site):
    request = RequestFactory().post("/")
    request.user = make_user("admin@example.com", is_staff=True, is_superuser=True)
    inline = SiteSearchInline(Site, admin_site)
    formset_class = inline.get_formset(request, site)
    data = {
        "searches-TOTAL_FORMS": "1",
        "searches-INITIAL_FORMS": "0",
        "searches-MIN_NUM_FORMS": "0",
        "searches-MAX_NUM_FORMS": "1",
        "searches-0-url_template": "http://news.example/find?q={query}",
    }
    formset = formset_class(data, instance=site, prefix="searches")
    assert formset.is_valid(), formset.errors
    formset.save()
    search = SiteSearch.objects.get(site=site)
    assert (search.source, search.query_arg) == ("admin", "q")
    bad = formset_class(
        {**data, "searches-0-url_template": "http://news.example/find?q=x"},
        instance=Site.objects.create(name="Other", root_url="http://other.example/"),
        prefix="searches",
    )
    assert not bad.is_valid()
