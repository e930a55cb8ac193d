"""Retry buttons of the operator dashboard: failed mail goes back to the publisher exactly once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from clipping import publisher
from clipping.models import Delivery, Digest, Match
from clipping.publisher import Outcome
from tests.factories import make_list, make_match
from tests.ops.ops_data import make_staff

pytestmark = pytest.mark.django_db

REJECTED = "554 5.7.1 Message rejected by policy"


def failed_match(owner, smtp, **fields):
    """Return a match the publisher gave up on after the server refused it for good."""
    match = make_match(make_list(owner, f"List {Match.objects.count()}", "subsidies"), **fields)
    smtp.scripted_replies.append(REJECTED)
    assert publisher.deliver_match(match.id) == Outcome.FAILED
    match.refresh_from_db()
    assert match.mail_status == Match.MailStatus.FAILED
    return match


def failed_digest(owner, smtp):
    """Return a daily digest of two matches that the server refused for good."""
    User.objects.filter(id=owner.id).update(delivery_mode=User.Delivery.DAILY)
    energy = make_list(owner, "Energy", "subsidies")
    digest = Digest.objects.create(user=owner, kind=Digest.Kind.DAILY, period=timezone.now())
    for n in range(2):
        match = make_match(energy, url=f"https://news.example.com/{n}", title=f"Story {n}")
        Match.objects.filter(id=match.id).update(digest=digest)
    smtp.scripted_replies.append(REJECTED)
    assert publisher.deliver_digest(digest.id) == Outcome.FAILED
    return digest


def test_the_dashboard_lists_a_failed_mail_with_its_error(client, alice, faulty_smtp):
    match = failed_match(alice, faulty_smtp)
    client.force_login(make_staff())

    html = client.get("/ops/").content.decode()

    assert reverse("ops:retry_match", args=[match.pk]) in html
    assert "alice@example.com" in html and "Message rejected by policy" in html


def test_a_retry_is_enqueued_once_however_often_it_is_posted(
    client, alice, faulty_smtp, django_capture_on_commit_callbacks
):
    match = failed_match(alice, faulty_smtp)
    client.force_login(make_staff())
    url = reverse("ops:retry_match", args=[match.pk])

    with django_capture_on_commit_callbacks() as callbacks:
        first = client.post(url, follow=True)
        second = client.post(url, follow=True)

    assert len(callbacks) == 1
    assert "is queued again" in first.content.decode()
    assert "no longer failed" in second.content.decode()
    match.refresh_from_db()
    assert (match.mail_status, match.mail_note, match.claimed_at) == ("pending", "", None)


def test_a_retried_mail_reaches_the_server_exactly_once(
    client, alice, faulty_smtp, eager_celery, django_capture_on_commit_callbacks
):
    match = failed_match(alice, faulty_smtp)
    client.force_login(make_staff())
    url = reverse("ops:retry_match", args=[match.pk])

    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            assert client.post(url).status_code == 302

    assert [m["To"] for m in faulty_smtp.messages] == ["alice@example.com"]
    match.refresh_from_db()
    assert match.mail_status == Match.MailStatus.SENT
    assert list(Delivery.objects.order_by("id").values_list("status", flat=True)) == [
        "failed",
        "sent",
    ]


def test_a_failed_digest_is_sent_again_once_with_all_its_matches(
    client, alice, faulty_smtp, eager_celery, django_capture_on_commit_callbacks
):
    digest = failed_digest(alice, faulty_smtp)
    assert Match.objects.filter(digest=digest, mail_status="failed").count() == 2
    client.force_login(make_staff())
    url = reverse("ops:retry_digest", args=[digest.pk])

    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            client.post(url)

    assert len(faulty_smtp.messages) == 1
    body = faulty_smtp.messages[0].get_body(preferencelist=("plain",)).get_content()
    assert "Story 0" in body and "Story 1" in body
    digest.refresh_from_db()
    assert digest.status == Digest.Status.SENT
    assert Match.objects.filter(digest=digest, mail_status="sent").count() == 2


def test_retry_all_requeues_every_failed_match_and_digest(
    client, alice, bob, faulty_smtp, django_capture_on_commit_callbacks
):
    failed_match(alice, faulty_smtp)
    failed_match(alice, faulty_smtp, url="https://news.example.com/2", title="Another")
    failed_digest(bob, faulty_smtp)
    client.force_login(make_staff())

    with django_capture_on_commit_callbacks() as callbacks:
        response = client.post(reverse("ops:retry_all"), follow=True)

    assert len(callbacks) == 3
    assert "Queued again: 2 matches, 1 digests." in response.content.decode()
    assert not Match.objects.filter(mail_status="failed").exists()
    assert not Digest.objects.filter(status="failed").exists()


def test_the_sweep_sends_mail_whose_task_was_lost(
    client, alice, smtp_server, eager_celery, django_capture_on_commit_callbacks
):
    match = make_match(make_list(alice, "Energy", "subsidies"))
    Match.objects.filter(id=match.id).update(created_at=timezone.now() - timedelta(hours=1))
    client.force_login(make_staff())

    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(reverse("ops:sweep")).status_code == 302

    assert [m["To"] for m in smtp_server.messages] == ["alice@example.com"]


def test_people_who_are_not_staff_cannot_retry(client, alice, faulty_smtp):
    match = failed_match(alice, faulty_smtp)
    client.force_login(alice)

    assert client.post(reverse("ops:retry_match", args=[match.pk])).status_code == 404

    match.refresh_from_db()
    assert match.mail_status == Match.MailStatus.FAILED


def test_a_retry_needs_the_csrf_token(alice, faulty_smtp):
    match = failed_match(alice, faulty_smtp)
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_staff())

    assert client.post(reverse("ops:retry_match", args=[match.pk])).status_code == 403
    assert client.get(reverse("ops:retry_match", args=[match.pk])).status_code == 405

    match.refresh_from_db()
    assert match.mail_status == Match.MailStatus.FAILED
