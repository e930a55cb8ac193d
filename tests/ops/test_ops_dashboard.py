"""The operator dashboard: who may see it, what its charts say, and a query count that stays flat."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from clipping.models import Delivery, Digest, Match
from ops.queries import RUNS_PER_CHART
from ops.views import SITES_PER_PAGE
from tests.factories import make_list, make_match, make_run, make_site, make_user
from tests.ops.ops_data import make_run_clips, make_staff

pytestmark = pytest.mark.django_db

OPS = "/ops/"


def chart_data(response) -> list[dict]:
    html = response.content.decode()
    start = html.index('<script id="ops-chart-data" type="application/json">')
    body = html[html.index(">", start) + 1 : html.index("</script>", start)]
    return json.loads(body)


def test_staff_see_the_dashboard_with_a_chart_per_crawled_site(client):
    client.force_login(make_staff())
    news = make_site("Daily Example", "https://news.example.com/")
    make_site("Never Crawled", "https://quiet.example.com/")
    make_run(news, hours_ago=2, fetched=40, new=12, changed=3, errors=1, relevant=10)

    response = client.get(OPS)

    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('<canvas class="ops-chart"') == 1
    assert f'data-site="{news.pk}"' in html and "Not crawled yet." in html
    assert "vendor/chartjs/chart.umd.min.js" in html and "js/ops.js" in html
    assert response["Cache-Control"].startswith("max-age=0")


def test_anonymous_visitors_are_sent_to_log_in(client):
    for url in (OPS, reverse("ops:progress")):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("account_login") + "?next=")
    assert client.post(reverse("ops:retry_all")).status_code == 302


def test_people_who_are_not_staff_get_404_everywhere(client, alice):
    client.force_login(alice)
    for url in (OPS, reverse("ops:progress")):
        assert client.get(url).status_code == 404
    for url in (
        reverse("ops:retry_match", args=[1]),
        reverse("ops:retry_digest", args=[1]),
        reverse("ops:retry_all"),
        reverse("ops:sweep"),
    ):
        assert client.post(url).status_code == 404


def test_only_staff_find_the_link_in_the_menu_and_in_admin(client, alice):
    client.force_login(alice)
    assert 'href="/ops/"' not in client.get(reverse("dashboard")).content.decode()
    admin = make_user("root@example.com", is_staff=True, is_superuser=True)
    client.force_login(admin)
    assert 'href="/ops/"' in client.get(reverse("dashboard")).content.decode()
    admin_index = client.get(reverse("admin:index")).content.decode()
    assert 'href="/ops/"' in admin_index and "Operator dashboard" in admin_index


def test_each_chart_has_the_newest_runs_oldest_first_with_their_clips_and_harvest_rate(client):
    client.force_login(make_staff())
    news = make_site()
    runs = [
        make_run(
            news, hours_ago=100 - i, fetched=10 + i, new=i, changed=1, errors=i % 3, relevant=5
        )
        for i in range(RUNS_PER_CHART + 5)
    ]
    make_run_clips(runs[-1], 3)
    make_run_clips(runs[-2], 1)
    make_run_clips(runs[0], 2)  # too old to be drawn

    [site] = chart_data(client.get(OPS))

    drawn = site["runs"]
    assert site["site"] == news.pk and len(drawn) == RUNS_PER_CHART
    assert [p["id"] for p in drawn] == [r.pk for r in runs[-RUNS_PER_CHART:]]
    assert [p["clips"] for p in drawn[-3:]] == [0, 1, 3]
    last = runs[-1]
    assert drawn[-1]["fetched"] == last.fetched and drawn[-1]["new"] == last.new
    assert drawn[-1]["errors"] == last.errors and drawn[-1]["changed"] == 1
    assert drawn[-1]["harvest_rate"] == round(5 / last.fetched, 4)


def test_a_run_that_fetched_nothing_has_no_harvest_rate(client):
    client.force_login(make_staff())
    make_run(make_site(), hours_ago=1, fetched=0)

    [site] = chart_data(client.get(OPS))

    assert site["runs"][0]["harvest_rate"] is None


def test_sites_are_paged(client):
    client.force_login(make_staff())
    for i in range(SITES_PER_PAGE + 2):
        make_site(f"Site {i:02d}", f"https://s{i}.example.com/")

    first = chart_data(client.get(OPS))
    second = chart_data(client.get(OPS, {"page": 2}))

    assert len(first) == SITES_PER_PAGE and len(second) == 2
    assert second[-1]["name"] == f"Site {SITES_PER_PAGE + 1:02d}"


def fill(sites: int, runs_per_site: int, failures: int) -> None:
    """Add sites with runs and clips, a running crawl, and failed mail."""
    owner = make_staff(f"owner{sites}@example.com")
    keyword_list = make_list(owner, f"List {sites}", "subsidies")
    for s in range(sites):
        site = make_site(f"Load {sites}-{s}", f"https://load{sites}-{s}.example.com/")
        for r in range(runs_per_site):
            run = make_run(site, hours_ago=r + 1, fetched=r, new=1)
            make_run_clips(run, 1)
        make_run(site, hours_ago=0.1, finished=False, fetched=3)
    for f in range(failures):
        match = make_match(keyword_list, title=f"Failed {sites}-{f}", url=f"https://x/{sites}/{f}")
        Match.objects.filter(id=match.id).update(mail_status=Match.MailStatus.FAILED)
        Delivery.objects.create(
            user=owner,
            kind="instant",
            match=match,
            address=owner.email,
            status="failed",
            error="554",
        )
        digest = Digest.objects.create(
            user=owner, kind="daily", period=timezone.now() - timedelta(days=f + 1), status="failed"
        )
        Delivery.objects.create(
            user=owner, kind="digest", digest=digest, address=owner.email, status="failed"
        )


def test_the_query_count_does_not_grow_with_sites_runs_or_failures(
    client, django_assert_max_num_queries
):
    client.force_login(make_staff())
    fill(sites=1, runs_per_site=1, failures=1)
    with CaptureQueriesContext(connection) as small:
        assert client.get(OPS).status_code == 200

    fill(sites=SITES_PER_PAGE, runs_per_site=RUNS_PER_CHART + 3, failures=6)
    with django_assert_max_num_queries(len(small)):
        response = client.get(OPS)

    assert len(chart_data(response)) == SITES_PER_PAGE
    assert response.content.decode().count('data-testid="retry-match"') == 7
    assert response.content.decode().count("<tr data-run=") == SITES_PER_PAGE + 1
