"""Migration 0007: xCrawl's search templates and hidden-web's forms become one SiteSearch table."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("crawler", "0006_deepweb")]
AFTER = [("crawler", "0007_one_site_search")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


@pytest.fixture
def old_apps():
    try:
        yield migrate(BEFORE)
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def test_existing_rows_migrate_forward_into_one_site_search_table_and_back(old_apps):
    site_model = old_apps.get_model("crawler", "Site")
    news = site_model.objects.create(name="News", root_url="http://news.example/")
    shop = site_model.objects.create(name="Shop", root_url="http://shop.example/")
    old_apps.get_model("crawler", "SiteSearch").objects.create(
        site=news, url_template="http://news.example/find?q={query}&lang=en", source="admin"
    )
    old_apps.get_model("crawler", "SiteSearch").objects.create(
        site=shop, url_template="http://shop.example/s?k={query}", source="detected"
    )
    form = old_apps.get_model("crawler", "SearchForm").objects.create(
        site=news,
        fingerprint="f" * 64,
        page_url="http://news.example/",
        action="http://news.example/search",
        method="GET",
        status="search",
        template="http://news.example/search?q={query}",
        query_arg="q",
        submissions=4,
        with_results=3,
    )
    old_apps.get_model("crawler", "FormQuery").objects.create(
        form=form, key_hash="a" * 64, assignment=[["q", "election"]], keyword="election"
    )

    new_apps = migrate(AFTER)

    searches = new_apps.get_model("crawler", "SiteSearch").objects
    found = searches.get(id=form.id)
    assert (found.source, found.url_template, found.submissions) == (
        "found",
        "http://news.example/search?q={query}",
        4,
    )
    assert [q.keyword for q in found.queries.all()] == ["election"]
    admin = searches.get(site_id=news.id, source="admin")
    assert admin.url_template == "http://news.example/find?q={query}&lang=en"
    assert (admin.method, admin.status, admin.action, admin.query_arg) == (
        "GET",
        "search",
        "http://news.example/find",
        "q",
    )
    assert admin.fields == [["q", "{query}"], ["lang", "en"]]
    detected = searches.get(site_id=shop.id)
    assert (detected.source, detected.url_template, detected.query_arg) == (
        "found",
        "http://shop.example/s?k={query}",
        "k",
    )
    assert searches.count() == 3

    back_apps = migrate(BEFORE)

    templates = back_apps.get_model("crawler", "SiteSearch").objects
    assert dict(templates.values_list("site_id", "source")) == {
        news.id: "admin",
        shop.id: "detected",
    }
    assert templates.get(site_id=news.id).url_template == (
        "http://news.example/find?q={query}&lang=en"
    )
    forms = back_apps.get_model("crawler", "SearchForm").objects
    assert forms.get(id=form.id).queries.count() == 1
