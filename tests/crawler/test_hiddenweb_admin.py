"""Hidden-web admin: admins edit the LVS table and read what happened to each form."""

from __future__ import annotations

import pytest
from django.urls import reverse

from crawler.models import Site
from crawler.models.hiddenweb import FormQuery, LabelValue, LabelValueSet
from crawler.models.sitesearch import SiteSearch
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    client.force_login(make_user("admin@example.com", is_staff=True, is_superuser=True))
    return client


def lvs_post(values: list[tuple[str, str]]) -> dict[str, str]:
    data = {
        "label": "Region",
        "aliases": "Area\nProvince",
        "source": "admin",
        "language": "en",
        "values-TOTAL_FORMS": str(len(values)),
        "values-INITIAL_FORMS": "0",
        "values-MIN_NUM_FORMS": "0",
        "values-MAX_NUM_FORMS": "1000",
    }
    for index, (value, weight) in enumerate(values):
        data[f"values-{index}-value"] = value
        data[f"values-{index}-weight"] = weight
    return data


def test_an_admin_adds_an_lvs_row_with_weighted_values(staff_client):
    response = staff_client.post(
        reverse("admin:crawler_labelvalueset_add"), lvs_post([("North", "1"), ("South", "0.4")])
    )
    assert response.status_code == 302
    row = LabelValueSet.objects.get(label="Region")
    assert row.alias_list() == ["Area", "Province"]
    assert dict(row.values.values_list("value", "weight")) == {"North": 1.0, "South": 0.4}


def test_a_weight_above_one_is_refused_and_nothing_is_saved(staff_client):
    response = staff_client.post(
        reverse("admin:crawler_labelvalueset_add"), lvs_post([("North", "1.5")])
    )
    assert response.status_code == 200
    assert "less than or equal to 1" in response.content.decode()
    assert not LabelValueSet.objects.exists() and not LabelValue.objects.exists()


def test_forms_show_their_status_and_submission_efficiency(staff_client):
    site = Site.objects.create(name="News", root_url="https://news.example/")
    form = SiteSearch.objects.create(
        site=site,
        fingerprint="f" * 64,
        page_url="https://news.example/",
        action="https://news.example/search",
        method="GET",
        status=SiteSearch.Status.SEARCH,
        url_template="https://news.example/search?q={query}",
        query_arg="q",
        submissions=4,
        with_results=3,
    )
    FormQuery.objects.create(
        form=form, key_hash="a" * 64, assignment=[["q", "election"]], keyword="election"
    )
    SiteSearch.objects.create(
        site=site,
        fingerprint="e" * 64,
        page_url="https://news.example/",
        action="https://news.example/login",
        method="POST",
        status=SiteSearch.Status.REFUSED,
        reason="login",
    )
    listing = staff_client.get(reverse("admin:crawler_sitesearch_changelist")).content.decode()
    assert "75%" in listing
    assert "login" in listing
    detail = staff_client.get(reverse("admin:crawler_sitesearch_change", args=[form.pk]))
    assert detail.status_code == 200
    assert "election" in detail.content.decode()
    assert staff_client.get(reverse("admin:crawler_sitesearch_add")).status_code == 403


def test_people_who_are_not_staff_cannot_see_the_table(client):
    client.force_login(make_user("bob@example.com"))
    response = client.get(reverse("admin:crawler_labelvalueset_changelist"))
    assert response.status_code == 302  # sent to the admin login


def test_the_table_lists_rows_of_every_source_and_filters_by_source(staff_client):
    from crawler.hiddenweb.store import learn_domains, sync_keywords
    from crawler.sitesearch.analysis import analyze_forms

    LabelValueSet.objects.create(label="Region", source=LabelValueSet.Source.ADMIN)
    sync_keywords({"election": 1.0, "vaccine": 1.0})
    (form,) = analyze_forms(
        '<form action="/s"><label for="o">Sort order</label>'
        '<select id="o" name="o"><option>Newest</option><option>Oldest</option></select></form>',
        "http://news.example/",
    )
    learn_domains(form)
    url = reverse("admin:crawler_labelvalueset_changelist")
    listing = staff_client.get(url).content.decode()
    for text in ("Region", "Admin", "Users&#x27; keywords", "Sort order", "Learned from crawled"):
        assert text in listing
    users_only = staff_client.get(url, {"source__exact": "users"}).content.decode()
    assert "Users&#x27; keywords" in users_only and "Sort order" not in users_only
    row = LabelValueSet.objects.get(source=LabelValueSet.Source.USERS)
    detail = staff_client.get(reverse("admin:crawler_labelvalueset_change", args=[row.pk]))
    assert "vaccine" in detail.content.decode()


def test_admins_read_the_searches_and_renders_of_a_run_and_cannot_change_them(staff_client):
    from crawler.models import CrawlRun
    from crawler.models.hiddenweb import RunRender, RunSearch

    site = Site.objects.create(name="Times", root_url="https://times.example/")
    run = CrawlRun.objects.create(site=site)
    search = RunSearch.objects.create(
        site=site, run=run, query='"rail strike"', keyword="rail strike", variant="quoted",
        had_results=True, pages=3, results=11, new_articles=7, stopped="no new results",
    )  # fmt: skip
    render = RunRender.objects.create(
        site=site, run=run, url="https://times.example/live/", reason="load more", expanded=3
    )
    listing = staff_client.get(reverse("admin:crawler_runsearch_changelist"))
    assert listing.status_code == 200
    assert b"&quot;rail strike&quot;" in listing.content and b"no new results" in listing.content
    renders = staff_client.get(reverse("admin:crawler_runrender_changelist"))
    assert b"load more" in renders.content
    change = reverse("admin:crawler_runsearch_change", args=[search.id])
    staff_client.post(change, {"query": "edited"})
    assert RunSearch.objects.get(id=search.id).query == '"rail strike"'
    assert staff_client.get(reverse("admin:crawler_runrender_add")).status_code == 403
    assert RunRender.objects.get(id=render.id).reason == "load more"
