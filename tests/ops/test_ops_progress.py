"""The dashboard's progress endpoint: the running crawls' counters as JSON, for the page to poll."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from clipping.models import Match
from crawler.models import RUN_COUNTERS, CrawlRun
from tests.factories import make_list, make_match, make_run, make_site
from tests.ops.ops_data import make_staff

pytestmark = pytest.mark.django_db

PROGRESS = "/ops/progress.json"


def test_the_numbers_are_those_of_the_running_crawl(client):
    client.force_login(make_staff())
    site = make_site()
    make_run(site, hours_ago=3, fetched=99, new=9)
    run = make_run(
        site,
        hours_ago=0.2,
        finished=False,
        fetched=57,
        new=21,
        changed=4,
        unchanged=30,
        errors=2,
        robots_skipped=5,
        rendered=1,
        relevant=19,
    )
    CrawlRun.objects.filter(id=run.id).update(page_budget=120)
    run.refresh_from_db()

    response = client.get(PROGRESS)

    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert "no-cache" in response["Cache-Control"]
    [shown] = response.json()["runs"]
    assert shown["id"] == run.pk and shown["site"] == site.pk and shown["site_name"] == site.name
    assert {name: shown[name] for name in RUN_COUNTERS} == {
        name: getattr(run, name) for name in RUN_COUNTERS
    }
    assert shown["page_budget"] == 120
    assert shown["harvest_rate"] == round(19 / 57, 4)
    assert shown["started_at"] == run.started_at.isoformat()
    assert shown["status"] == "running" and shown["stale"] is False


def test_counters_written_by_the_crawler_show_at_the_next_poll(client):
    client.force_login(make_staff())
    run = make_run(make_site(), hours_ago=0.1, finished=False)
    assert client.get(PROGRESS).json()["runs"][0]["fetched"] == 0

    CrawlRun.objects.filter(id=run.id).update(fetched=12, new=7, heartbeat_at=timezone.now())

    shown = client.get(PROGRESS).json()["runs"][0]
    assert (shown["fetched"], shown["new"]) == (12, 7)


def test_finished_runs_are_not_listed(client):
    client.force_login(make_staff())
    make_run(make_site(), hours_ago=1, fetched=10)

    assert client.get(PROGRESS).json()["runs"] == []


def test_a_run_without_heartbeat_for_longer_than_the_timeout_is_stale(client, settings):
    settings.CRAWLER_HEARTBEAT_TIMEOUT = 300
    client.force_login(make_staff())
    run = make_run(make_site(), hours_ago=1, finished=False)
    with time_machine.travel(run.heartbeat_at + timedelta(seconds=299)):
        assert client.get(PROGRESS).json()["runs"][0]["stale"] is False
    with time_machine.travel(run.heartbeat_at + timedelta(seconds=301)):
        assert client.get(PROGRESS).json()["runs"][0]["stale"] is True


def test_it_reports_the_mail_queue(client, alice):
    client.force_login(make_staff())
    energy = make_list(alice, "Energy", "subsidies")
    for n in range(3):
        make_match(energy, url=f"https://news.example.com/{n}", title=f"Story {n}")
    Match.objects.filter(id=Match.objects.first().id).update(mail_status="failed")

    mail = client.get(PROGRESS).json()["mail"]

    assert mail == {"undelivered": 2, "sending": 0, "failed_matches": 1, "failed_digests": 0}
