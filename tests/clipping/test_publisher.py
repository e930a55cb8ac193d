"""Instant mail: one mail per match through a real SMTP server, once; who gets nothing; the hourly limit."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
import time_machine
from allauth.account.models import EmailAddress

from clipping import publisher
from clipping.digests import plan_digests
from clipping.models import Delivery, Digest, Match, Suppression
from clipping.publisher import Outcome
from tests.factories import make_list, make_match

pytestmark = pytest.mark.django_db


def body_parts(message) -> tuple[str, str]:
    text = message.get_body(preferencelist=("plain",)).get_content()
    html = message.get_body(preferencelist=("html",)).get_content()
    return text, html


def test_an_instant_match_is_mailed_once_with_everything_the_reader_needs(alice, smtp_server):
    energy = make_list(alice, "Energy", "subsidy")
    match = make_match(energy)

    assert publisher.deliver_match(match.id) == Outcome.SENT
    assert publisher.deliver_match(match.id) == Outcome.BUSY

    assert len(smtp_server.messages) == 1
    message = smtp_server.messages[0]
    assert message["To"] == "alice@example.com"
    assert message["Subject"] == "[Webclip] Energy: Council backs solar subsidies"
    text, html = body_parts(message)
    assert "*subsidies*" in text and re.search(r"<mark[^>]*>subsidies</mark>", html)
    assert (
        "https://news.example.com/news/solar" in text
        and 'href="https://news.example.com/news/solar"' in html
    )
    assert "Energy" in text and "Energy" in html
    assert "/lists/" in text and "/lists/" in html
    unsubscribe = str(message["List-Unsubscribe"]).strip()
    assert unsubscribe.startswith("<http") and "/unsubscribe/" in unsubscribe
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe.strip("<>") in text
    # CSS is inlined: no style sheet left, style attributes on the elements.
    assert "<style" not in html and 'style="' in html
    match.refresh_from_db()
    assert match.mail_status == Match.MailStatus.SENT and match.delivered_at is not None
    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.kind, delivery.address) == (
        "sent",
        "instant",
        "alice@example.com",
    )
    assert match.delivery == delivery and delivery.message_id == message["Message-ID"]


def unverified(user):
    EmailAddress.objects.filter(user=user).update(verified=False)


def paused(user):
    user.mail_paused = True
    user.save()


def blocked(user):
    user.mail_blocked_reason = "bounced"
    user.save()


def suppressed(user):
    Suppression.objects.create(address=user.email, reason="complained")


def inactive(user):
    user.is_active = False
    user.save()


@pytest.mark.parametrize("condition", [unverified, paused, blocked, suppressed, inactive])
def test_people_who_may_not_be_mailed_get_nothing(alice, smtp_server, condition):
    match = make_match(make_list(alice, "Energy", "subsidy"))
    condition(alice)

    assert publisher.deliver_match(match.id) == Outcome.SKIPPED

    assert smtp_server.messages == []
    match.refresh_from_db()
    assert match.mail_status == Match.MailStatus.SKIPPED and match.mail_note
    assert not Delivery.objects.exists()


@pytest.mark.parametrize("change", [{"mail_enabled": False}, {"active": False}])
def test_a_list_with_mail_off_or_paused_sends_nothing(alice, smtp_server, change):
    energy = make_list(alice, "Energy", "subsidy", **change)
    match = make_match(energy)

    assert publisher.deliver_match(match.id) == Outcome.SKIPPED
    assert smtp_server.messages == []


def test_digest_readers_get_no_instant_mail(alice, smtp_server):
    alice.delivery_mode = "daily"
    alice.save()
    match = make_match(make_list(alice, "Energy", "subsidy"))

    assert publisher.deliver_match(match.id) == Outcome.NOT_INSTANT

    match.refresh_from_db()
    assert match.mail_status == "pending" and match.claimed_at is None
    assert smtp_server.messages == []


def test_over_the_hourly_limit_the_rest_of_the_hour_comes_as_one_digest(
    alice, smtp_server, settings
):
    settings.CLIPPING_INSTANT_MAILS_PER_HOUR = 3
    energy = make_list(alice, "Energy", "subsidy")
    with time_machine.travel(datetime(2025, 3, 3, 14, 5, tzinfo=UTC), tick=True):
        matches = [make_match(energy, title=f"Story {n}") for n in range(5)]
        outcomes = [publisher.deliver_match(m.id) for m in matches]
        assert plan_digests() == []  # the hour is not over yet

    assert outcomes == ["sent", "sent", "sent", "deferred", "deferred"]
    assert len(smtp_server.messages) == 3
    last_text, last_html = body_parts(smtp_server.messages[2])
    assert "15:00" in last_text and "15:00" in last_html  # the last instant mail says what happens
    assert "the 3rd instant mail this hour" in last_text
    assert "15:00" not in body_parts(smtp_server.messages[0])[0]

    with time_machine.travel(datetime(2025, 3, 3, 15, 1, tzinfo=UTC), tick=True):
        (digest_id,) = plan_digests()
        assert publisher.deliver_digest(digest_id) == Outcome.SENT
        later = make_match(energy, title="Story after the hour")
        assert publisher.deliver_match(later.id) == Outcome.SENT  # one by one again

    digest = Digest.objects.get()
    assert (digest.kind, digest.period) == ("hourly", datetime(2025, 3, 3, 15, 0, tzinfo=UTC))
    hourly = smtp_server.messages[3]
    text, html = body_parts(hourly)
    assert "2 more clips from the last hour" in hourly["Subject"]
    assert "Story 3" in text and "Story 4" in text and "Story 0" not in text
    assert "3 instant mails in that hour" in text and "3 instant mails in that hour" in html
    assert smtp_server.messages[4]["Subject"] == "[Webclip] Energy: Story after the hour"
    assert Match.objects.filter(mail_status="sent").count() == 6


def test_the_hourly_limit_counts_the_hour_of_the_readers_time_zone(alice, smtp_server, settings):
    settings.CLIPPING_INSTANT_MAILS_PER_HOUR = 1
    alice.time_zone = "Asia/Kolkata"  # UTC+5:30: its hours start at half past in UTC
    alice.save()
    energy = make_list(alice, "Energy", "subsidy")
    with time_machine.travel(datetime(2025, 3, 3, 14, 20, tzinfo=UTC), tick=True):
        assert publisher.deliver_match(make_match(energy, title="One").id) == "sent"
    with time_machine.travel(datetime(2025, 3, 3, 14, 35, tzinfo=UTC), tick=True):
        assert publisher.deliver_match(make_match(energy, title="Two").id) == "sent"
        assert publisher.deliver_match(make_match(energy, title="Three").id) == "deferred"

    assert Match.objects.get(clip__title="Three").deferred_until == datetime(
        2025, 3, 3, 15, 30, tzinfo=UTC
    )


def test_a_refused_address_is_marked_failed_blocked_and_never_tried_again(alice, faulty_smtp):
    faulty_smtp.rcpt_replies["alice@example.com"] = "550 5.1.1 No such user"
    energy = make_list(alice, "Energy", "subsidy")
    first, second = make_match(energy, title="One"), make_match(energy, title="Two")

    assert publisher.deliver_match(first.id) == Outcome.FAILED
    assert publisher.deliver_match(second.id) == Outcome.SKIPPED

    first.refresh_from_db()
    alice.refresh_from_db()
    assert first.mail_status == "failed" and "550" in first.mail_note
    assert Suppression.objects.holds("alice@example.com")
    assert "550" in alice.mail_blocked_reason
    delivery = Delivery.objects.get()
    assert delivery.status == "failed" and delivery.permanent
    assert faulty_smtp.messages == []


def test_a_permanently_rejected_message_is_not_retried_but_the_address_stays_open(
    alice, faulty_smtp
):
    faulty_smtp.scripted_replies.append("554 5.7.1 Message rejected as spam")
    energy = make_list(alice, "Energy", "subsidy")
    first, second = make_match(energy, title="One"), make_match(energy, title="Two")

    assert publisher.deliver_match(first.id) == Outcome.FAILED
    assert publisher.deliver_match(first.id) == Outcome.BUSY
    assert publisher.deliver_match(second.id) == Outcome.SENT

    assert [m["Subject"] for m in faulty_smtp.messages] == ["[Webclip] Energy: Two"]
    assert not Suppression.objects.exists()
