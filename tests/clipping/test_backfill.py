"""A new or edited list is matched against the pages crawled recently, once, and mailed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from clipping import publisher
from clipping.backfill import backfill_list, matching_state, needs_backfill
from clipping.models import Clip, Digest, KeywordList, Match
from tests.clipping.pages import RAIL, SOLAR, article
from tests.factories import make_list, make_match, make_site, make_user, store_version

pytestmark = pytest.mark.django_db(transaction=True)

FORM_FIELDS = ("name", "terms", "language", "use_synonyms", "match_all", "active", "mail_enabled")


def save_list(client, owner, keyword_list: KeywordList | None = None, **fields) -> KeywordList:
    """Create a list, or edit one, through its form as its owner does; return it saved."""
    values: dict[str, object] = {"language": "en", "use_synonyms": True, "mail_enabled": True}
    values["active"] = True
    if keyword_list is not None:
        values.update({name: getattr(keyword_list, name) for name in FORM_FIELDS})
    values.update(fields)
    data = {name: "on" if value is True else value for name, value in values.items() if value}
    client.force_login(owner)
    if keyword_list is None:
        response = client.post(reverse("list_create"), data)
    else:
        response = client.post(reverse("list_edit", args=[keyword_list.pk]), data)
    assert response.status_code == 302, response.content
    return KeywordList.objects.get(owner=owner, name=values["name"])


@pytest.fixture
def crawled():
    """A site with two recent articles and one fetched long ago."""
    site = make_site()
    store_version(site, "https://news.example.com/solar", article("Council backs solar", SOLAR))
    store_version(site, "https://news.example.com/rail", article("Rail strike", RAIL))
    old = timezone.now() - timedelta(days=30)
    store_version(
        site, "https://news.example.com/old", article("Old solar", SOLAR[1:]), fetched_at=old
    )
    return site


def test_a_new_list_gets_the_recent_matching_articles_by_mail(
    crawled, client, alice, smtp_server, eager_celery
):
    keyword_list = save_list(client, alice, name="Energy", terms="subsidy")  # runs on commit

    match = Match.objects.get(keyword_list=keyword_list)
    assert match.clip.url == "https://news.example.com/solar"  # not the rail story, not the old one
    assert "subsidies" in match.summary
    (mail,) = smtp_server.to("alice@example.com")
    assert mail["Subject"] == "[Webclip] 1 article already matches your new list Energy"
    assert "Council backs solar" in mail.get_body(("plain",)).get_content()


def test_what_a_new_list_finds_is_one_summary_that_spends_no_instant_mail(
    crawled, client, alice, smtp_server, eager_celery
):
    alice.instant_mails_per_hour = 1
    alice.save()
    keyword_list = save_list(client, alice, name="Both", terms="subsidy\nstrike")

    (summary,) = smtp_server.to("alice@example.com")
    assert summary["Subject"] == "[Webclip] 2 articles already match your new list Both"
    text = summary.get_body(("plain",)).get_content()
    assert "Council backs solar" in text and "Rail strike" in text
    digest = Digest.objects.get()
    assert (digest.kind, digest.status, digest.matches.count()) == ("summary", "sent", 2)
    # The personal page says what the new list found, linking to its clips.
    page = client.get(reverse("dashboard")).content.decode()
    assert "2 articles already matched Both" in page
    assert f"?list={keyword_list.id}" in page
    # The hour's one instant mail is still there for the news that comes next.
    news = make_match(keyword_list, title="Solar news")
    assert publisher.deliver_match(news.id) == publisher.Outcome.SENT
    assert publisher.deliver_match(make_match(keyword_list).id) == publisher.Outcome.DEFERRED


def test_a_digest_user_gets_a_new_lists_finds_in_the_next_digest(
    crawled, client, alice, smtp_server, eager_celery
):
    alice.delivery_mode = "daily"
    alice.save()
    keyword_list = save_list(client, alice, name="Energy", terms="subsidy")
    assert smtp_server.to("alice@example.com") == []
    match = Match.objects.get(keyword_list=keyword_list)
    assert (match.digest_id, match.mail_status) == (None, "pending")


def test_a_second_backfill_and_an_edit_that_changes_nothing_make_nothing_twice(
    crawled, client, alice, smtp_server, eager_celery
):
    keyword_list = save_list(client, alice, name="Energy", terms="subsidy")
    assert backfill_list(keyword_list.id).matches == 0  # the page was matched already
    keyword_list = save_list(client, alice, keyword_list, name="Energy news")
    # Same page again: the list has its story.
    keyword_list = save_list(client, alice, keyword_list, terms="subsidy\nlevy")
    assert Match.objects.filter(keyword_list=keyword_list).count() == 1
    assert len(smtp_server.to("alice@example.com")) == 1


def test_an_edit_that_widens_a_list_brings_the_newly_matching_articles(
    crawled, client, alice, smtp_server, eager_celery
):
    keyword_list = save_list(client, alice, name="Energy", terms="subsidy")
    save_list(client, alice, keyword_list, terms="subsidy\nstrike")
    urls = set(Match.objects.filter(keyword_list=keyword_list).values_list("clip__url", flat=True))
    assert urls == {"https://news.example.com/solar", "https://news.example.com/rail"}
    assert Clip.objects.count() == 2


def test_the_backfill_respects_its_limits_and_can_be_switched_off(
    crawled, client, alice, settings, smtp_server, eager_celery
):
    settings.CLIPPING_BACKFILL_MAX_MATCHES = 1
    keyword_list = save_list(client, alice, name="Both", terms="subsidy\nstrike")
    assert Match.objects.filter(keyword_list=keyword_list).count() == 1

    settings.CLIPPING_BACKFILL_DAYS = 0
    other = save_list(client, alice, name="Off", terms="strike")
    assert not Match.objects.filter(keyword_list=other).exists()
    assert backfill_list(other.id).skipped == "Backfill is off."


def test_an_inactive_list_is_not_backfilled(crawled, client, alice, smtp_server, eager_celery):
    keyword_list = save_list(client, alice, name="Energy", terms="subsidy", active=False)
    assert not Match.objects.filter(keyword_list=keyword_list).exists()
    save_list(client, alice, keyword_list, active=True)  # switched on: now it is
    assert Match.objects.filter(keyword_list=keyword_list).count() == 1


def test_a_page_ingested_before_the_workers_knew_the_list_is_caught_by_the_backfill(
    alice, smtp_server
):
    """The index refreshes every few seconds: the backfill runs after that and covers the gap."""
    from clipping.ingest import ingest_version
    from clipping.matching import KeywordIndex

    keyword_list = make_list(alice, "Energy", "subsidy")  # saved in code: no backfill queued
    version = store_version(make_site(), "https://news.example.com/solar", article("Solar", SOLAR))
    assert ingest_version(version.id, index=KeywordIndex()).matches == 0  # a stale index
    assert backfill_list(keyword_list.id).matches == 1
    assert Match.objects.get(keyword_list=keyword_list).clip.url.endswith("/solar")


def test_feeds_and_pages_the_crawler_did_not_hand_on_are_not_backfilled(
    client, alice, smtp_server, eager_celery
):
    site = make_site()
    feed = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Daily</title><item>'
        "<title>Solar subsidies</title><link>/solar</link>"
        f"<description>{SOLAR[0]}</description></item></channel></rss>"
    )
    store_version(
        site,
        "https://news.example.com/feed.xml",
        feed,
        content_type="application/rss+xml",
        has_information=False,
    )
    keyword_list = save_list(client, alice, name="Energy", terms="subsidy")
    assert not Match.objects.filter(keyword_list=keyword_list).exists()
    assert smtp_server.to("alice@example.com") == []


def test_a_list_saved_in_code_queues_nothing_and_a_renaming_brings_nothing(
    crawled, client, alice, smtp_server, eager_celery
):
    keyword_list = make_list(alice, "Energy", "subsidy")  # no signal: saving is only saving
    assert not Match.objects.filter(keyword_list=keyword_list).exists()
    keyword_list = save_list(client, alice, keyword_list, name="Energy news")
    assert not Match.objects.filter(keyword_list=keyword_list).exists()
    save_list(client, alice, keyword_list, match_all=True)  # what it matches changed
    assert Match.objects.filter(keyword_list=keyword_list).count() == 1


def test_a_list_added_or_widened_in_the_admin_is_backfilled(
    crawled, client, alice, smtp_server, eager_celery
):
    client.force_login(make_user("admin@example.com", is_staff=True, is_superuser=True))
    fields = {"owner": alice.id, "name": "Energy", "language": "en", "active": "on"}
    response = client.post(reverse("admin:clipping_keywordlist_add"), fields | {"terms": "subsidy"})
    assert response.status_code == 302, response.content
    keyword_list = KeywordList.objects.get(owner=alice)
    assert Match.objects.get(keyword_list=keyword_list).clip.url.endswith("/solar")

    change = reverse("admin:clipping_keywordlist_change", args=[keyword_list.pk])
    assert client.post(change, fields | {"terms": "subsidy\nstrike"}).status_code == 302
    urls = set(Match.objects.filter(keyword_list=keyword_list).values_list("clip__url", flat=True))
    assert urls == {"https://news.example.com/solar", "https://news.example.com/rail"}


def test_only_a_new_reactivated_or_rematching_active_list_needs_a_backfill():
    keyword_list = KeywordList(name="Energy", terms="subsidy", active=False)
    assert not needs_backfill(None, keyword_list)  # an inactive list matches nothing
    before = matching_state(keyword_list)
    keyword_list.active = True
    assert needs_backfill(before, keyword_list)  # switched on
    assert needs_backfill(None, keyword_list)  # new
    before = matching_state(keyword_list)
    keyword_list.name, keyword_list.mail_enabled = "Energy news", False
    assert not needs_backfill(before, keyword_list)
    for field, value in [
        ("terms", "subsidy\nlevy"),
        ("language", "de"),
        ("use_synonyms", False),
        ("match_all", True),
    ]:
        setattr(keyword_list, field, value)
        assert needs_backfill(before, keyword_list), field
        before = matching_state(keyword_list)


def test_pages_crawled_after_the_list_was_saved_come_one_by_one_not_in_the_summary(
    crawled, client, alice, smtp_server, eager_celery, settings
):
    """A page fetched after the save but ingested before the workers' index had the list is
    news: the backfill catches it, and it is mailed as news, apart from the summary."""
    settings.CLIPPING_BACKFILL_DAYS = 0  # no backfill on save: the page comes first
    keyword_list = save_list(client, alice, name="Energy", terms="subsidy")
    assert smtp_server.to("alice@example.com") == []
    later = timezone.now() + timedelta(seconds=5)
    fresh = [
        "The harbour board approved new subsidies for electric ferries on Monday evening.",
        "Crews will train over the winter, and the first boats sail to the islands in spring.",
        "Fares stay the same, the board said, while the old diesel boats are sold abroad.",
    ]
    store_version(
        crawled, "https://news.example.com/fresh", article("Fresh ferries", fresh), fetched_at=later
    )
    settings.CLIPPING_BACKFILL_DAYS = 3
    from clipping import tasks

    tasks.backfill_list(keyword_list.id)
    subjects = sorted(str(mail["Subject"]) for mail in smtp_server.to("alice@example.com"))
    assert subjects == [
        "[Webclip] 1 article already matches your new list Energy",
        "[Webclip] Energy: Fresh ferries",
    ]
