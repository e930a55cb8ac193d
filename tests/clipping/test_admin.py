"""Admin pages of clips, matches, digests, deliveries, suppressions and webhook events open for staff."""

from __future__ import annotations

import pytest
from django.urls import reverse

from clipping.models import Delivery, Digest, Suppression, WebhookEvent
from tests.clipping.conftest import make_list, make_match
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def test_every_clipping_admin_page_opens(client, alice):
    admin = make_user("admin@example.com", is_staff=True, is_superuser=True)
    match = make_match(make_list(alice, "Energy", "subsidy"))
    digest = Digest.objects.create(user=alice, kind="daily", period=match.created_at)
    delivery = Delivery.objects.create(user=alice, kind="instant", match=match, address=alice.email)
    suppression = Suppression.objects.create(address="gone@example.com", reason="bounced")
    event = WebhookEvent.objects.create(esp="Postmark", event_id="1", event_type="bounced")
    client.force_login(admin)

    for name, obj in [
        ("clip", match.clip),
        ("match", match),
        ("digest", digest),
        ("delivery", delivery),
        ("suppression", suppression),
        ("webhookevent", event),
        ("keywordlist", match.keyword_list),
    ]:
        assert client.get(reverse(f"admin:clipping_{name}_changelist")).status_code == 200, name
        assert (
            client.get(reverse(f"admin:clipping_{name}_change", args=[obj.pk])).status_code == 200
        ), name
