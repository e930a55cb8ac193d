"""The dashboard's mail queue: waiting, sending, sent in the last day and failed, counted right."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from clipping.models import Delivery, Digest, Match
from ops.queries import MailQueue
from tests.factories import make_list, make_match
from tests.ops.ops_data import make_staff

pytestmark = pytest.mark.django_db


def attempt(user, status: str, hours_ago: float) -> Delivery:
    return Delivery.objects.create(
        user=user,
        kind=Delivery.Kind.INSTANT,
        address=user.email,
        status=status,
        error="554 rejected" if status == Delivery.Status.FAILED else "",
        created_at=timezone.now() - timedelta(hours=hours_ago),
    )


def test_the_queue_counts_each_state_and_only_the_last_day_of_attempts(client, alice):
    energy = make_list(alice, "Energy", "subsidies")
    matches = [
        make_match(energy, url=f"https://news.example.com/{n}", title=f"Story {n}")
        for n in range(5)
    ]
    Match.objects.filter(id__in=[m.id for m in matches[:2]]).update(mail_status="sent")
    Match.objects.filter(id=matches[2].id).update(mail_status="failed")
    for status, hours_ago in [
        ("sent", 1),
        ("sent", 23),
        ("sent", 30),  # older than a day: not counted
        ("failed", 2),
        ("failed", 50),
        ("sending", 0),
    ]:
        attempt(alice, status, hours_ago)
    period = timezone.now().replace(minute=0, second=0, microsecond=0)
    Digest.objects.create(user=alice, kind="daily", period=period, status="pending")
    Digest.objects.create(
        user=alice, kind="daily", period=period - timedelta(days=1), status="failed"
    )
    Digest.objects.create(
        user=alice, kind="daily", period=period - timedelta(days=2), status="sent"
    )
    client.force_login(make_staff())

    response = client.get("/ops/")

    assert response.context["queue"] == MailQueue(
        undelivered=2,
        sending=1,
        sent_recently=2,
        failed_attempts_recently=1,
        failed_matches=1,
        pending_digests=1,
        failed_digests=1,
    )
    html = response.content.decode()
    shown = dict(re.findall(r'data-mail="(\w+)">(\d+)<', html))
    assert shown == {
        "undelivered": "2",
        "sending": "1",
        "failed_matches": "1",
        "failed_digests": "1",
    }
    assert "<strong>2</strong><small>mails in the last 24 h</small>" in html
    assert 'data-testid="retry-match"' in html and 'data-testid="retry-digest"' in html
