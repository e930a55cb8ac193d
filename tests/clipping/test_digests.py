"""Digests: one mail per user and period, at the user's hour in the user's time zone, grouped by list."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from clipping import publisher
from clipping.digests import last_slot, plan_digests
from clipping.models import Digest, Match
from clipping.publisher import Outcome
from tests.factories import make_list, make_match

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("mode", "hour", "weekday", "zone", "now", "expected"),
    [
        # Athens is UTC+2 in winter: 08:00 there is 06:00 UTC.
        (
            "daily",
            8,
            0,
            "Europe/Athens",
            datetime(2025, 3, 3, 7, 0, tzinfo=UTC),
            datetime(2025, 3, 3, 6, 0, tzinfo=UTC),
        ),
        (
            "daily",
            8,
            0,
            "Europe/Athens",
            datetime(2025, 3, 3, 5, 59, tzinfo=UTC),
            datetime(2025, 3, 2, 6, 0, tzinfo=UTC),
        ),
        (
            "daily",
            0,
            0,
            "America/New_York",
            datetime(2025, 1, 10, 4, 0, tzinfo=UTC),
            datetime(2025, 1, 9, 5, 0, tzinfo=UTC),
        ),
        # Berlin moves to summer time on 30 March 2025: 08:00 is 07:00 UTC before, 06:00 UTC after.
        (
            "daily",
            8,
            0,
            "Europe/Berlin",
            datetime(2025, 3, 30, 6, 30, tzinfo=UTC),
            datetime(2025, 3, 30, 6, 0, tzinfo=UTC),
        ),
        (
            "daily",
            8,
            0,
            "Europe/Berlin",
            datetime(2025, 3, 30, 5, 30, tzinfo=UTC),
            datetime(2025, 3, 29, 7, 0, tzinfo=UTC),
        ),
        # Weekly on Wednesday (2) at 18:00 UTC; 5 March 2025 is a Wednesday.
        (
            "weekly",
            18,
            2,
            "UTC",
            datetime(2025, 3, 5, 18, 0, tzinfo=UTC),
            datetime(2025, 3, 5, 18, 0, tzinfo=UTC),
        ),
        (
            "weekly",
            18,
            2,
            "UTC",
            datetime(2025, 3, 5, 17, 59, tzinfo=UTC),
            datetime(2025, 2, 26, 18, 0, tzinfo=UTC),
        ),
        (
            "weekly",
            18,
            2,
            "UTC",
            datetime(2025, 3, 10, 9, 0, tzinfo=UTC),
            datetime(2025, 3, 5, 18, 0, tzinfo=UTC),
        ),
    ],
)
def test_the_last_digest_time_follows_the_users_clock(mode, hour, weekday, zone, now, expected):
    assert last_slot(mode, hour, weekday, zone, now) == expected


def daily_reader(user, hour=8, zone="Europe/Athens"):
    user.delivery_mode = "daily"
    user.digest_hour = hour
    user.time_zone = zone
    user.save()
    return user


def test_a_daily_reader_gets_one_mail_at_their_hour_with_everything_grouped_by_list(
    alice, smtp_server
):
    daily_reader(alice)  # 08:00 in Athens = 06:00 UTC
    energy, transport = (
        make_list(alice, "Energy", "subsidy"),
        make_list(alice, "Transport", "strike"),
    )
    with time_machine.travel(datetime(2025, 3, 2, 12, 0, tzinfo=UTC), tick=False):
        make_match(energy, title="Solar story")
        make_match(
            transport,
            title="Rail story",
            summary="The rail strike began on Tuesday.",
            term="strike",
        )
        make_match(energy, title="Wind story")
    with time_machine.travel(datetime(2025, 3, 3, 5, 58, tzinfo=UTC), tick=False):
        assert plan_digests() == []  # 07:58 in Athens: not yet
    with time_machine.travel(datetime(2025, 3, 3, 6, 3, tzinfo=UTC), tick=False):
        (digest_id,) = plan_digests()
        assert plan_digests() == [digest_id]  # a second planner agrees on the same digest
        assert publisher.deliver_digest(digest_id) == Outcome.SENT
        assert plan_digests() == []
        make_match(energy, title="Too late for today")
        assert plan_digests() == []

    assert len(smtp_server.messages) == 1
    message = smtp_server.messages[0]
    assert message["Subject"] == "[Webclip] Daily digest: 3 new clips"
    assert str(message["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click"
    text = message.get_body(preferencelist=("plain",)).get_content()
    html = message.get_body(preferencelist=("html",)).get_content()
    assert (  # lists by name, each newest first (found last: Wind story)
        text.index("== Energy ==")
        < text.index("Wind story")
        < text.index("Solar story")
        < text.index("== Transport ==")
        < text.index("Rail story")
    )
    assert "Rail story" in html and "*strike*" in text
    digest = Digest.objects.get()
    assert (digest.kind, digest.period, digest.status) == (
        "daily",
        datetime(2025, 3, 3, 6, 0, tzinfo=UTC),
        "sent",
    )
    assert Match.objects.filter(mail_status="sent").count() == 3
    assert Match.objects.get(clip__title="Too late for today").mail_status == "pending"


def test_a_weekly_reader_gets_the_week_in_one_mail(alice, smtp_server):
    alice.delivery_mode = "weekly"
    alice.digest_weekday = 4  # Friday
    alice.digest_hour = 17
    alice.save()
    energy = make_list(alice, "Energy", "subsidy")
    for day in (3, 4, 6):  # Monday, Tuesday, Thursday
        with time_machine.travel(datetime(2025, 3, day, 9, 0, tzinfo=UTC), tick=False):
            make_match(energy, title=f"Story of the {day}th")
    with time_machine.travel(datetime(2025, 3, 6, 20, 0, tzinfo=UTC), tick=False):
        assert plan_digests() == []
    with time_machine.travel(datetime(2025, 3, 7, 17, 4, tzinfo=UTC), tick=False):
        for digest_id in plan_digests():
            publisher.deliver_digest(digest_id)

    assert [str(m["Subject"]) for m in smtp_server.messages] == [
        "[Webclip] Weekly digest: 3 new clips"
    ]


def test_a_match_arriving_while_the_digest_goes_out_waits_for_the_next_one(alice, smtp_server):
    daily_reader(alice, hour=8, zone="UTC")
    energy = make_list(alice, "Energy", "subsidy")
    with time_machine.travel(datetime(2025, 3, 2, 12, 0, tzinfo=UTC), tick=False):
        make_match(energy, title="Early")
        late = make_match(energy, title="Committed late")
    with time_machine.travel(datetime(2025, 3, 3, 8, 1, tzinfo=UTC), tick=False):
        (digest_id,) = plan_digests()
        # The late match's transaction commits after the worker has read the digest.
        Match.objects.filter(id=late.id).update(digest=None)
        Digest.objects.filter(id=digest_id).update(
            claimed_at=datetime(2025, 3, 3, 8, 1, tzinfo=UTC)
        )
        plan_digests()
        late.refresh_from_db()
        assert late.digest is None  # not attached to a digest a worker already holds
        Digest.objects.filter(id=digest_id).update(claimed_at=None)
        publisher.deliver_digest(digest_id)
    with time_machine.travel(datetime(2025, 3, 4, 8, 1, tzinfo=UTC), tick=False):
        for digest_id in plan_digests():
            publisher.deliver_digest(digest_id)

    assert [str(m["Subject"]) for m in smtp_server.messages] == [
        "[Webclip] Daily digest: 1 new clip",
        "[Webclip] Daily digest: 1 new clip",
    ]
    assert not Match.objects.undelivered().exists()


def test_a_paused_reader_gets_no_digest_and_a_muted_list_is_left_out(alice, bob, smtp_server):
    daily_reader(alice, zone="UTC")
    daily_reader(bob, zone="UTC")
    alice.mail_paused = True
    alice.save()
    make_match(make_list(alice, "Energy", "subsidy"), title="Alice's")
    make_match(make_list(bob, "Muted", "subsidy", mail_enabled=False), title="Muted story")
    make_match(make_list(bob, "Loud", "subsidy"), title="Loud story")
    Match.objects.update(created_at=datetime(2025, 3, 2, 12, 0, tzinfo=UTC))

    with time_machine.travel(datetime(2025, 3, 3, 8, 1, tzinfo=UTC), tick=False):
        outcomes = sorted(publisher.deliver_digest(d) for d in plan_digests())

    assert outcomes == ["sent", "skipped"]
    (message,) = smtp_server.messages
    text = message.get_body(preferencelist=("plain",)).get_content()
    assert message["To"] == "bob@example.com" and "Loud story" in text and "Muted story" not in text
    assert Match.objects.get(clip__title="Alice's").mail_status == "skipped"
    assert Match.objects.get(clip__title="Muted story").mail_status == "skipped"


def test_a_reader_who_switches_from_digest_to_instant_still_gets_waiting_matches(
    alice, smtp_server
):
    daily_reader(alice, zone="UTC")
    match = make_match(make_list(alice, "Energy", "subsidy"))
    alice.delivery_mode = "instant"
    alice.save()

    with time_machine.travel(match.created_at + timedelta(minutes=5)):
        assert publisher.stalled_matches() == [match.id]
        assert publisher.deliver_match(match.id) == Outcome.SENT
    assert len(smtp_server.messages) == 1
