"""What is news: a clip published before its owner's window is shown, never notified."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.forms import PreferencesForm
from clipping import tasks
from clipping.backfill import backfill_list, split_news
from clipping.channels import plan_notices
from clipping.ingest import OLD_NOTE
from clipping.models import Channel, ListChannel, Match
from tests.clipping.pages import SOLAR, article
from tests.factories import active_index, ingest_html, make_list, store_version

pytestmark = pytest.mark.django_db

URL = "https://news.example.com/news/solar"


def written(days_ago: int) -> str:
    return f"{timezone.now() - timedelta(days=days_ago):%d %B %Y}"


def mail_of(site, html, django_capture_on_commit_callbacks):
    version = store_version(site, URL, html)
    active_index()
    with django_capture_on_commit_callbacks(execute=True):
        return tasks.ingest_version.delay(version.id).get()


def test_an_article_published_before_the_window_is_clipped_but_never_mailed(
    site, alice, eager_celery, django_capture_on_commit_callbacks, mailoutbox
):
    make_list(alice, "Energy", "subsidy")
    old = article("Archive: solar subsidies ten years on", SOLAR, written=written(30))

    done = mail_of(site, old, django_capture_on_commit_callbacks)

    assert done["matches"] == 1 and mailoutbox == []
    match = Match.objects.get()
    assert match.old and match.mail_status == "skipped" and match.mail_note == OLD_NOTE
    assert match.clip.published_at.date() == (timezone.now() - timedelta(days=30)).date()


def test_an_article_published_within_the_window_is_mailed(
    site, alice, eager_celery, django_capture_on_commit_callbacks, mailoutbox
):
    make_list(alice, "Energy", "subsidy")
    fresh = article("Council backs solar subsidies", SOLAR, written=written(1))

    mail_of(site, fresh, django_capture_on_commit_callbacks)

    assert len(mailoutbox) == 1
    assert not Match.objects.get().old
    body = mailoutbox[0].body
    assert "Published " in body and "First seen" not in body


def test_the_window_is_each_persons_own(site, alice, bob):
    alice.news_days = 60
    alice.save()
    make_list(alice, "Energy", "subsidy")
    make_list(bob, "Money", "subsidy")

    result = ingest_html(site, URL, article("Solar subsidies", SOLAR, written=written(30)))

    assert result.match_ids == [Match.objects.get(owner=alice).id]
    assert (result.matches, result.old) == (2, 1)
    assert Match.objects.get(owner=bob).old


def test_an_article_without_a_date_counts_as_news_and_says_it_was_first_seen(
    site, alice, eager_celery, django_capture_on_commit_callbacks, mailoutbox
):
    make_list(alice, "Energy", "subsidy")

    mail_of(
        site, article("Council backs solar subsidies", SOLAR), django_capture_on_commit_callbacks
    )

    assert len(mailoutbox) == 1
    assert "First seen" in mailoutbox[0].body and "no publication date" in mailoutbox[0].body


def test_an_old_article_is_never_sent_to_a_channel(site, alice):
    energy = make_list(alice, "Energy", "subsidy")
    channel = Channel(owner=alice, name="Chat")
    channel.set_url("json://127.0.0.1:9/", "json://127.0.0.1:9/", "json")
    channel.save()
    ListChannel.objects.create(keyword_list=energy, channel=channel)
    ingest_html(site, URL, article("Solar subsidies", SOLAR, written=written(30)))
    ingest_html(site, URL + "-2", article("Council backs solar subsidies", SOLAR[:2]))

    planned = plan_notices(list(Match.objects.values_list("id", flat=True)))

    assert len(planned) == 1  # the fresh one only; the old one has no notice at all
    assert channel.notices.count() == 1


def test_a_new_lists_old_finds_go_to_its_summary_not_one_by_one(site, alice):
    store_version(site, URL, article("Solar subsidies", SOLAR, written=written(30)))
    energy = make_list(alice, "Energy", "subsidy")
    # Saved before the page was fetched: without the window this would be news.
    energy.__class__.objects.filter(id=energy.id).update(
        updated_at=timezone.now() - timedelta(hours=1)
    )

    result = backfill_list(energy.id)

    match = Match.objects.get()
    assert match.old and match.mail_status == "pending"  # kept for the summary
    assert split_news(result.match_ids, energy.id) == ([match.id], [])


def test_the_window_is_a_preference_with_a_default_of_a_week(alice):
    assert alice.news_days == 7
    form = PreferencesForm(instance=alice)
    assert form["news_days"].value() == 7
    data = {
        "delivery_mode": "instant",
        "time_zone": "UTC",
        "digest_hour": 8,
        "digest_weekday": 0,
        "news_days": "30",
    }
    saved = PreferencesForm(data, instance=alice)
    assert saved.is_valid(), saved.errors
    saved.save()
    alice.refresh_from_db()
    assert alice.news_days == 30
    assert not PreferencesForm({**data, "news_days": "0"}, instance=alice).is_valid()
