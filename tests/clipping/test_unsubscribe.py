"""One-click unsubscribe (RFC 8058): cookie-less POST stops mail at once; GET only asks; forgeries get 400."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.core import signing
from django.test import Client
from django.urls import reverse

from clipping import publisher
from clipping.models import KeywordList, Match
from clipping.unsubscribe import make_token
from tests.factories import make_list, make_match

pytestmark = pytest.mark.django_db

ONE_CLICK = {"List-Unsubscribe": "One-Click"}


def unsubscribe_path_from(message) -> str:
    return urlsplit(str(message["List-Unsubscribe"]).strip().strip("<>")).path


def test_the_one_click_post_from_a_mail_stops_that_lists_mail_at_once(alice, smtp_server):
    energy, transport = (
        make_list(alice, "Energy", "subsidy"),
        make_list(alice, "Transport", "strike"),
    )
    sent = make_match(energy, title="First")
    publisher.deliver_match(sent.id)
    waiting_energy, waiting_transport = (
        make_match(energy, title="Second"),
        make_match(transport, title="Third"),
    )
    path = unsubscribe_path_from(smtp_server.messages[0])

    # What a mail provider does: no cookies, no CSRF token, the RFC 8058 body.
    response = Client(enforce_csrf_checks=True).post(path, ONE_CLICK)

    assert response.status_code == 200
    assert "no longer send mail for your list “Energy”" in response.content.decode()
    energy.refresh_from_db()
    assert not energy.mail_enabled and energy.active  # clips still appear on the page
    assert publisher.deliver_match(waiting_energy.id) == "busy"  # already settled as skipped
    assert Match.objects.get(id=waiting_energy.id).mail_status == "skipped"
    assert publisher.deliver_match(waiting_transport.id) == "sent"
    assert [str(m["Subject"]) for m in smtp_server.messages] == [
        "[Webclip] Energy: First",
        "[Webclip] Transport: Third",
    ]


def test_a_get_only_shows_a_confirmation_form(client, alice):
    energy = make_list(alice, "Energy", "subsidy")
    url = reverse("unsubscribe", args=[make_token(alice.id, energy.id)])

    response = client.get(url)

    assert response.status_code == 200
    page = response.content.decode()
    assert '<form method="post"' in page and "Energy" in page
    energy.refresh_from_db()
    assert energy.mail_enabled


def test_the_digest_token_pauses_all_mail(alice):
    make_match(make_list(alice, "Energy", "subsidy"))

    Client(enforce_csrf_checks=True).post(
        reverse("unsubscribe", args=[make_token(alice.id)]), ONE_CLICK
    )

    alice.refresh_from_db()
    assert alice.mail_paused
    assert not Match.objects.undelivered().exists()


def tampered_tokens(user_id: int, list_id: int) -> list[str]:
    good = make_token(user_id, list_id)
    payload, stamp_signature = good.split(":", 1)
    other_payload = make_token(user_id + 1, list_id).split(":", 1)[0]
    return [
        good[:-1] + ("A" if good[-1] != "A" else "B"),  # signature changed
        f"{other_payload}:{stamp_signature}",  # someone else's ids with this signature
        signing.dumps([user_id, list_id], salt="another.purpose"),  # signed for something else
        "garbage",
        payload,
    ]


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_tampered_token_gets_400_and_changes_nothing(alice, bob, method):
    energy = make_list(alice, "Energy", "subsidy")
    make_list(bob, "Bob's", "subsidy")
    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)
    for token in tampered_tokens(alice.id, energy.id):
        response = getattr(client, method)(reverse("unsubscribe", args=[token]), ONE_CLICK)
        assert response.status_code == 400, token
    assert KeywordList.objects.filter(mail_enabled=False).count() == 0
    alice.refresh_from_db()
    bob.refresh_from_db()
    assert not alice.mail_paused and not bob.mail_paused


def test_a_token_for_a_deleted_list_gets_404(alice):
    energy = make_list(alice, "Energy", "subsidy")
    token = make_token(alice.id, energy.id)
    energy.delete()

    assert Client().post(reverse("unsubscribe", args=[token]), ONE_CLICK).status_code == 404
