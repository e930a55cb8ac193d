"""ESP tracking webhooks (anymail, Postmark's format): bounces and complaints block an address, once."""

from __future__ import annotations

import base64
import json

import pytest
from django.test import Client

from clipping import publisher
from clipping.models import Suppression, WebhookEvent
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


def post(payload: dict[str, object], secret: str = SECRET):
    auth = base64.b64encode(secret.encode()).decode()
    return Client(enforce_csrf_checks=True).post(
        URL,
        json.dumps(payload),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Basic {auth}",
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
