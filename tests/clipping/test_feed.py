"""The Atom feed: a user's clips at a secret URL; a wrong or rotated token gets 404."""

from __future__ import annotations

from datetime import timedelta
from xml.etree import ElementTree

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.factories import make_list, make_match

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


def entries(response) -> list[ElementTree.Element]:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    return ElementTree.fromstring(response.content).findall(f"{ATOM}entry")  # noqa: S314 (our own feed)


def test_the_feed_lists_my_clips_newest_first_with_link_and_highlighted_summary(client, alice, bob):
    energy = make_list(alice, "Energy", "subsidy")
    make_match(energy, title="Older", seen_at=timezone.now() - timedelta(hours=2))
    make_match(energy, title="Newer", url="https://news.example.com/news/newer")
    make_match(make_list(bob, "Bob's", "subsidy"), title="Bob's clip")

    found = entries(client.get(reverse("clip_feed", args=[alice.feed_token])))

    assert [e.find(f"{ATOM}title").text for e in found] == ["Newer", "Older"]
    assert found[0].find(f"{ATOM}link").get("href") == "https://news.example.com/news/newer"
    summary = found[0].find(f"{ATOM}summary")
    assert summary.get("type") == "html" and "<mark>subsidies</mark>" in summary.text
    assert "Energy" in summary.text


def test_a_wrong_token_gets_404(client, alice):
    make_match(make_list(alice, "Energy", "subsidy"))
    for token in ["x", alice.feed_token[:-1], alice.feed_token + "x", alice.feed_token.swapcase()]:
        assert client.get(f"/feed/{token}/").status_code == 404


def test_rotating_the_token_revokes_the_old_feed_url(client, alice):
    make_match(make_list(alice, "Energy", "subsidy"))
    old_url = reverse("clip_feed", args=[alice.feed_token])
    assert len(entries(client.get(old_url))) == 1

    client.force_login(alice)
    client.post(reverse("account_rotate_feed_token"))
    alice.refresh_from_db()

    assert client.get(old_url).status_code == 404
    assert len(entries(client.get(reverse("clip_feed", args=[alice.feed_token])))) == 1


def test_an_inactive_accounts_feed_is_gone(client, alice):
    alice.is_active = False
    alice.save()
    assert client.get(reverse("clip_feed", args=[alice.feed_token])).status_code == 404


def test_my_clips_page_shows_my_feed_url(client, alice):
    client.force_login(alice)
    page = client.get(reverse("clip_index")).content.decode()
    assert reverse("clip_feed", args=[alice.feed_token]) in page


@pytest.mark.parametrize(
    "bad", ["\x01", "\x1b", "\x0c", "\x7f", "\x85", "\ufffe", "\uffff", "\U0010ffff"]
)
def test_a_stored_control_or_noncharacter_leaves_the_feed_valid_xml(client, alice, bad):
    energy = make_list(alice, "Energy", "subsidy")
    make_match(energy, title=f"Solar{bad} news", summary=f"The subsidies{bad} rise again.")
    alice.first_name = f"Alice{bad}"
    alice.save()

    found = entries(client.get(reverse("clip_feed", args=[alice.feed_token])))

    assert found[0].find(f"{ATOM}title").text == "Solar news"
    summary = found[0].find(f"{ATOM}summary").text
    assert "<mark>subsidies</mark>\ufffd rise again" in summary
