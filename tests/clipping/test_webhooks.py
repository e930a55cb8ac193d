"""ESP tracking webhooks (anymail, Postmark's format): bounces and complaints block an address, once."""

from __future__ import annotations

import base64
import json
import threading
import urllib.error
import urllib.request
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from clipping import publisher
from clipping.digests import plan_digests
from clipping.models import Delivery, Suppression, WebhookEvent
from clipping.webhooks import tracking_urlpatterns
from tests.factories import make_list, make_match

pytestmark = pytest.mark.django_db

URL = "/webhooks/anymail/postmark/tracking/"
SECRET = "hook:s3cret-value"


def bounce(
    address: str = "alice@example.com", event_id: int = 4323372036854775807
) -> dict[str, object]:
    return {
        "RecordType": "Bounce",
        "ID": event_id,
        "Type": "HardBounce",
        "TypeCode": 1,
        "Name": "Hard bounce",
        "MessageID": "883953f4-6105-42a2-a16a-77a8eac79483",
        "Description": "The server was unable to deliver your message (ex: unknown user, mailbox not found).",
        "Details": "smtp;550 5.1.1 The email account that you tried to reach does not exist.",
        "Email": address,
        "From": "webclip@example.com",
        "BouncedAt": "2025-03-03T10:00:00Z",
        "Inactive": True,
        "Subject": "Council backs solar subsidies",
    }


def complaint(address: str = "alice@example.com") -> dict[str, object]:
    return {
        **bounce(address, 99),
        "RecordType": "SpamComplaint",
        "Type": "SpamComplaint",
        "TypeCode": 512,
    }


def post(payload: dict[str, object], secret: str = SECRET, url: str = URL):
    auth = base64.b64encode(secret.encode()).decode()
    return Client(enforce_csrf_checks=True).post(
        url,
        json.dumps(payload),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Basic {auth}",
    )


def post_http(base: str, payload: dict[str, object], secret: str | None = SECRET) -> int:
    """POST the payload to the live server over a real connection; return the status."""
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["Authorization"] = "Basic " + base64.b64encode(secret.encode()).decode()
    request = urllib.request.Request(
        base + URL, data=json.dumps(payload).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 (127.0.0.1)
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def tracking_paths() -> list[str]:
    return ["/webhooks/anymail/" + str(pattern.pattern) for pattern in tracking_urlpatterns()]


def mail_state(*users) -> tuple[object, ...]:
    """Everything a tracking event may change."""
    for user in users:
        user.refresh_from_db()
    return (
        [user.mail_blocked_reason for user in users],
        list(Suppression.objects.values_list("address", "reason")),
        list(WebhookEvent.objects.values_list("esp", "event_id")),
    )


@pytest.fixture
def webhook_secret(settings):
    settings.ANYMAIL = {**settings.ANYMAIL, "WEBHOOK_SECRET": SECRET}


def test_a_bounce_blocks_the_address_and_nothing_more_is_sent(alice, webhook_secret, smtp_server):
    match = make_match(make_list(alice, "Energy", "subsidy"))

    assert post(bounce()).status_code == 200

    alice.refresh_from_db()
    assert alice.mail_blocked_reason.startswith("bounced")
    assert Suppression.objects.get().address == "alice@example.com"
    assert publisher.deliver_match(match.id) == "skipped"
    assert smtp_server.messages == []


def test_a_complaint_blocks_the_address(alice, webhook_secret):
    assert post(complaint()).status_code == 200
    alice.refresh_from_db()
    assert alice.mail_blocked_reason.startswith("complained")


def test_a_replayed_event_changes_nothing(alice, webhook_secret):
    assert post(bounce()).status_code == 200
    # An admin checks the address and lets mail flow again; then the old event is replayed.
    alice.mail_blocked_reason = ""
    alice.save()
    Suppression.objects.all().delete()

    assert post(bounce()).status_code == 200

    alice.refresh_from_db()
    assert alice.mail_blocked_reason == "" and not Suppression.objects.exists()
    assert WebhookEvent.objects.count() == 1


def test_a_delivery_event_changes_nothing(alice, webhook_secret):
    assert (
        post(
            {**bounce(), "RecordType": "Delivery", "DeliveredAt": "2025-03-03T10:00:00Z"}
        ).status_code
        == 200
    )
    alice.refresh_from_db()
    assert alice.mail_blocked_reason == "" and not WebhookEvent.objects.exists()


def test_a_bounce_for_an_unknown_address_is_still_suppressed(db, webhook_secret):
    assert post(bounce("stranger@example.net")).status_code == 200
    assert Suppression.objects.holds("Stranger@example.net")


@pytest.mark.parametrize("secret", ["hook:wrong", "other:s3cret-value", ""])
def test_a_wrong_secret_gets_400_and_changes_nothing(alice, webhook_secret, secret):
    assert post(bounce(), secret=secret).status_code == 400
    alice.refresh_from_db()
    assert alice.mail_blocked_reason == "" and not WebhookEvent.objects.exists()


def test_without_a_configured_secret_the_webhook_does_not_exist(alice, settings):
    settings.ANYMAIL = {
        key: value for key, value in settings.ANYMAIL.items() if key != "WEBHOOK_SECRET"
    }
    assert post(bounce()).status_code == 404
    alice.refresh_from_db()
    assert alice.mail_blocked_reason == ""


def test_after_a_complaint_a_real_send_attempt_sends_nothing(
    alice, bob, webhook_secret, smtp_server
):
    alices = make_match(make_list(alice, "Energy", "subsidy"), title="For Alice")
    bobs = make_match(make_list(bob, "Energy", "subsidy"), title="For Bob")

    assert post(complaint()).status_code == 200

    assert publisher.deliver_match(alices.id) == "skipped"
    assert publisher.deliver_match(bobs.id) == "sent"  # the server is there for the others
    assert [str(m["To"]) for m in smtp_server.messages] == ["bob@example.com"]


def test_a_bounce_for_the_address_in_other_letters_blocks_its_owner(alice, webhook_secret):
    assert post(bounce("Alice@Example.COM")).status_code == 200
    alice.refresh_from_db()
    assert alice.mail_blocked_reason.startswith("bounced")
    assert Suppression.objects.holds("alice@example.com")


@pytest.mark.parametrize("path", tracking_paths())
def test_every_tracking_route_refuses_a_wrong_secret_and_changes_nothing(
    alice, webhook_secret, path
):
    """Routes of ESPs without their own settings (signing key, library) answer 404, not 500."""
    before = mail_state(alice)
    for secret in ["hook:wrong", ""]:
        assert post(bounce(), secret=secret, url=path).status_code in {400, 404}
    assert mail_state(alice) == before


# --- Over a real HTTP connection -------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_bounce_posted_to_the_live_server_stops_mail_to_the_address_once(
    live_server, alice, bob, webhook_secret, smtp_server
):
    alices = make_match(make_list(alice, "Energy", "subsidy"), title="For Alice")
    bobs = make_match(make_list(bob, "Energy", "subsidy"), title="For Bob")

    assert post_http(live_server.url, bounce()) == 200
    assert post_http(live_server.url, bounce()) == 200  # the ESP retries the same event

    assert WebhookEvent.objects.count() == 1 and Suppression.objects.count() == 1
    assert publisher.deliver_match(alices.id) == "skipped"
    assert publisher.deliver_match(bobs.id) == "sent"
    assert [str(m["To"]) for m in smtp_server.messages] == ["bob@example.com"]
    assert not Delivery.objects.filter(address="alice@example.com").exists()

    # An admin lets mail flow again; a late replay of the old event does not overrule them.
    Suppression.objects.all().delete()
    alice.mail_blocked_reason = ""
    alice.save()
    assert post_http(live_server.url, bounce()) == 200
    alice.refresh_from_db()
    assert alice.mail_blocked_reason == "" and not Suppression.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_complaint_posted_to_the_live_server_stops_the_digest(
    live_server, alice, webhook_secret, smtp_server
):
    alice.delivery_mode = "daily"
    alice.save()
    match = make_match(make_list(alice, "Energy", "subsidy"))
    match.created_at = timezone.now() - timedelta(days=2)
    match.save()

    assert post_http(live_server.url, complaint()) == 200

    (digest_id,) = plan_digests()
    assert publisher.deliver_digest(digest_id) == "skipped"
    assert smtp_server.messages == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("secret", ["hook:wrong", "hook:s3cret-valu", None])
def test_the_live_server_refuses_a_wrong_or_missing_secret_and_changes_nothing(
    live_server, alice, webhook_secret, smtp_server, secret
):
    match = make_match(make_list(alice, "Energy", "subsidy"))
    before = mail_state(alice)

    assert post_http(live_server.url, bounce(), secret=secret) == 400
    assert post_http(live_server.url, complaint(), secret=secret) == 400

    assert mail_state(alice) == before
    assert publisher.deliver_match(match.id) == "sent"
    assert len(smtp_server.messages) == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_same_event_posted_at_once_on_several_connections_counts_once(
    live_server, alice, webhook_secret
):
    statuses: list[int] = []
    start = threading.Barrier(6)

    def replay() -> None:
        start.wait()
        statuses.append(post_http(live_server.url, bounce()))

    threads = [threading.Thread(target=replay) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert statuses == [200] * 6
    assert WebhookEvent.objects.count() == 1 and Suppression.objects.count() == 1
