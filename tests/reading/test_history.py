"""A page's change history, its diff, and the mail when a watched page changes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse
from django.utils import timezone

from clipping import tasks
from clipping.history import diff, version_lines
from clipping.models import PageWatch
from crawler.models import Page
from tests.factories import make_site, store_version

pytestmark = pytest.mark.django_db

URL = "https://news.example.com/prices"


def page_html(price: str, note: str = "") -> str:
    return (
        "<html><head><title>Prices</title><script>var x = 'not text';</script></head><body>"
        f"<h1>Prices</h1><p>Bread costs {price}.</p><p>Milk costs 1 euro.</p>{note}"
        "<ul><li>Open daily</li></ul></body></html>"
    )


@pytest.fixture
def followed(alice):
    site = make_site()
    site.subscribers.add(alice)
    earlier = timezone.now() - timedelta(hours=2)
    old = store_version(site, URL, page_html("2 euros"), fetched_at=earlier, has_information=False)
    Page.objects.filter(pk=old.page_id).update(title="Prices")  # as the crawler names it
    return site, old


def history(client, page_id: int, **query) -> BeautifulSoup:
    response = client.get(reverse("page_history", args=[page_id]), query)
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser")


def test_the_history_shows_what_changed_between_the_last_two_versions(client, alice, followed):
    site, old = followed
    store_version(site, URL, page_html("3 euros", "<p>New: oat milk.</p>"), has_information=False)
    client.force_login(alice)
    page = history(client, old.page_id)
    added = [line.get_text() for line in page.select(".diff-added[role=listitem]")]
    removed = [line.get_text() for line in page.select(".diff-removed[role=listitem]")]
    assert added == ["added: Bread costs 3 euros.", "added: New: oat milk."]
    assert removed == ["removed: Bread costs 2 euros."]
    assert "not text" not in page.select_one("[data-testid=diff]").get_text()
    assert len(page.select("[data-testid=versions] tbody tr")) == 2


def test_any_two_versions_can_be_compared(client, alice, followed):
    site, old = followed
    middle = store_version(
        site,
        URL,
        page_html("3 euros"),
        fetched_at=timezone.now() - timedelta(hours=1),
        has_information=False,
    )
    store_version(site, URL, page_html("4 euros"), has_information=False)
    client.force_login(alice)
    page = history(client, old.page_id, a=old.pk, b=middle.pk)
    added = [line.get_text() for line in page.select(".diff-added[role=listitem]")]
    assert added == ["added: Bread costs 3 euros."]


def test_a_page_of_a_site_one_does_not_follow_is_not_shown(client, bob, followed):
    _site, old = followed
    client.force_login(bob)
    assert client.get(reverse("page_history", args=[old.page_id])).status_code == 404
    assert client.post(reverse("page_watch", args=[old.page_id]), {"watch": "1"}).status_code == 404


def test_the_text_of_a_version_is_its_visible_blocks():
    site = make_site()
    version = store_version(site, URL, page_html("2 euros"), has_information=False)
    assert version_lines(version) == [
        "Prices",
        "Bread costs 2 euros.",
        "Milk costs 1 euro.",
        "Open daily",
    ]
    version.body = None
    assert version_lines(version) is None


def test_a_diff_keeps_two_unchanged_lines_around_a_change_and_marks_gaps():
    old = [f"line {n}" for n in range(20)]
    new = [*old[:10], "inserted", *old[10:]]
    rows = diff(old, new)
    assert [row.kind for row in rows] == ["same", "same", "added", "same", "same"]
    many = diff([*old, "end"], ["start", *old, "finish"])
    assert "gap" in [row.kind for row in many]


def test_a_watched_page_that_changes_is_mailed_once(client, alice, followed, mailoutbox):
    site, old = followed
    client.force_login(alice)
    client.post(reverse("page_watch", args=[old.page_id]), {"watch": "1"})
    assert PageWatch.objects.filter(owner=alice, page_id=old.page_id).exists()
    tasks.publish_due()
    assert mailoutbox == []  # nothing changed since watching began
    new = store_version(site, URL, page_html("3 euros"), has_information=False)
    assert tasks.publish_due()["changed_pages"] == 1
    assert len(mailoutbox) == 1
    mail = mailoutbox[0]
    assert mail.to == [alice.email] and "Prices" in mail.subject
    assert f"/pages/{old.page_id}/history/?a={old.pk}&b={new.pk}" in mail.body
    tasks.publish_due()
    assert len(mailoutbox) == 1  # once per change
    client.post(reverse("page_watch", args=[old.page_id]), {"watch": "0"})
    store_version(site, URL, page_html("5 euros"), has_information=False)
    tasks.publish_due()
    assert len(mailoutbox) == 1


def test_a_change_mail_that_fails_is_sent_on_the_next_round(
    client, alice, followed, mailoutbox, settings
):
    site, old = followed
    client.force_login(alice)
    client.post(reverse("page_watch", args=[old.page_id]), {"watch": "1"})
    store_version(site, URL, page_html("3 euros"), has_information=False)
    settings.EMAIL_BACKEND = "tests.reading.failing_mail.FailingBackend"
    assert tasks.publish_due()["changed_pages"] == 0
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert tasks.publish_due()["changed_pages"] == 1
    assert len(mailoutbox) == 1
