"""The operator dashboard shows how long each queue is and how far mail lags the crawl."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from clipping.models import Match
from ops import queries
from tests.factories import make_list, make_match

pytestmark = pytest.mark.django_db


def test_the_dashboard_shows_queue_lengths_and_fetch_to_mail_latency(staff_client, alice):
    energy = make_list(alice, "Energy", "subsidy")
    now = timezone.now()
    for seconds in (10, 20, 40):
        match = make_match(energy, seen_at=now - timedelta(seconds=seconds + 5))
        Match.objects.filter(id=match.id).update(
            created_at=now - timedelta(seconds=5), delivered_at=now - timedelta(seconds=3)
        )

    page = staff_client.get(reverse("ops:dashboard"))

    assert page.status_code == 200
    html = page.content.decode()
    for queue in queries.QUEUES:
        assert f'data-queue="{queue}"' in html
    fresh = page.context["freshness"]
    assert (fresh.matches, fresh.ingest_median, fresh.ingest_p90) == (3, 20.0, 40.0)
    assert fresh.mail_median == 2.0
    progress = staff_client.get(reverse("ops:progress")).json()
    assert set(progress["queues"]) == set(queries.QUEUES)


def test_queue_lengths_count_the_messages_waiting():
    from clipping import tasks
    from config.celery_app import app

    before = queries.queue_lengths()["publish"]
    tasks.publish_due.delay()
    tasks.publish_due.delay()
    try:
        assert queries.queue_lengths()["publish"] == before + 2
    finally:
        with app.connection_for_write() as connection:
            connection.default_channel.queue_purge("publish")
