"""Ingest: real analyzer output becomes clips and matches; retries, changes and repeats notify once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from analyzer import analyze
from clipping import tasks
from clipping.ingest import (
    INGEST_LOOKBACK,
    INGEST_STALLED_AFTER,
    ingest,
    ingest_version,
    stalled_versions,
)
from clipping.matching import MAX_SPANS_PER_TERM
from clipping.models import Clip, Match
from tests.clipping.pages import RAIL, SOLAR, article, front_page
from tests.factories import (
    active_index,
    ingest_html,
    kept,
    make_list,
    make_site,
    store_version,
)

pytestmark = pytest.mark.django_db

URL = "https://news.example.com/news/solar"
RAIL_URL = "https://news.example.com/news/rail"
OLD_URL = "https://news.example.com/news/old-solar"


def test_an_article_gives_one_clip_and_one_match_per_matching_list(site, alice, bob, charlie):
    energy = make_list(alice, "Energy", "subsidy")
    housing = make_list(bob, "Housing", "tenants")
    make_list(charlie, "Sport", "football")

    result = ingest_html(site, URL, article("Council backs solar subsidies", SOLAR))

    assert (result.clips, result.matches) == (1, 2)
    clip = Clip.objects.get()
    assert clip.title == "Council backs solar subsidies"
    assert clip.url == URL and clip.host == "news.example.com" and clip.site == site
    assert clip.language == "en"
    assert {m.keyword_list for m in clip.matches.all()} == {energy, housing}
    energy_match = Match.objects.get(keyword_list=energy)
    start, end, term = energy_match.spans[0]
    assert energy_match.summary[start:end].lower() == "subsidies" and term == "subsidy"
    # The summary is the sentence with the term and its neighbours, nothing further away.
    assert energy_match.summary.startswith("The city council approved")
    assert "Officials said" in energy_match.summary
    assert "mayor" not in energy_match.summary
    housing_match = Match.objects.get(keyword_list=housing)
    start, end, _ = housing_match.spans[0]
    assert housing_match.summary[start:end] == "tenants"
    assert housing_match.owner == bob and energy_match.owner == alice


def test_ingesting_the_same_version_again_creates_nothing(site, alice):
    make_list(alice, "Energy", "subsidy")
    version = store_version(site, URL, article("Council backs solar subsidies", SOLAR))
    analysis = analyze(version.raw_body(), URL)

    first = ingest(version, kept(analysis, version), index=active_index())
    again = ingest(version, kept(analysis, version), index=active_index())

    assert (first.clips, first.matches) == (1, 1)
    assert (again.clips, again.matches) == (0, 0)
    assert (Clip.objects.count(), Match.objects.count()) == (1, 1)


def test_the_database_refuses_a_second_clip_or_match_for_the_same_thing(site, alice):
    make_list(alice, "Energy", "subsidy")
    ingest_html(site, URL, article("Council backs solar subsidies", SOLAR))
    clip, match = Clip.objects.get(), Match.objects.get()

    with pytest.raises(IntegrityError), transaction.atomic():
        Clip.objects.create(
            page_version=clip.page_version,
            area_path=clip.area_path,
            url=URL,
            title="x",
            summary="x",
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.create(
            owner=alice, keyword_list=match.keyword_list, clip=clip, story=clip, summary="x"
        )


def test_a_changed_page_notifies_only_its_new_sentences(site, alice, bob):
    energy = make_list(alice, "Energy", "subsidy")
    ingest_html(site, URL, article("Council backs solar subsidies", SOLAR))
    transport = make_list(bob, "Transport", "rail strike")  # a list created after the first visit
    added = "Installers warned that the rail strike delays deliveries of panels. Customers must wait. Prices may rise."

    result = ingest_html(site, URL, article("Council backs solar subsidies", SOLAR + [added]))

    # The old sentences about subsidies never notify again; the new sentence notifies Bob.
    assert result.matches == 1
    match = Match.objects.get(keyword_list=transport)
    start, end, _ = match.spans[0]
    assert match.summary[start:end] == "rail strike"
    assert Match.objects.filter(keyword_list=energy).count() == 1


def test_a_new_sentence_with_the_term_notifies_a_list_that_had_the_page_before(site, alice):
    energy = make_list(alice, "Energy", "subsidy")
    ingest_html(site, URL, article("Council backs solar subsidies", SOLAR))
    added = "Late on Monday the council doubled the subsidies for schools. Teachers cheered. Parents were pleased."

    result = ingest_html(site, URL, article("Council backs solar subsidies", SOLAR + [added]))

    assert result.matches == 1
    newest = Match.objects.filter(keyword_list=energy).order_by("-id").first()
    start, end, _ = newest.spans[0]
    assert "doubled the subsidies for schools" in newest.summary
    assert newest.summary[start:end] == "subsidies"
    assert newest.summary.index("doubled") < start  # centred on the new sentence, not the old ones


def test_a_new_sentence_notifies_even_when_its_term_was_on_the_page_many_times(site, alice):
    energy = make_list(alice, "Energy", "subsidy")
    towns = ["Arles", "Brest", "Caen", "Dijon", "Evian", "Foix", "Gap", "Hyeres", "Istres", "Jouy"]
    old = [
        f"The town of {town} paid subsidies for {number} roofs."
        for number, town in enumerate(towns * 2)
    ]
    assert len(old) > MAX_SPANS_PER_TERM
    ingest_html(site, URL, article("Roof subsidies", SOLAR + old))
    added = "Late on Monday the council doubled the subsidies for schools. Teachers cheered."

    result = ingest_html(site, URL, article("Roof subsidies", SOLAR + old + [added]))

    assert result.matches == 1
    newest = Match.objects.filter(keyword_list=energy).order_by("-id").first()
    start, end, _ = newest.spans[0]
    assert "doubled the subsidies for schools" in newest.summary
    assert newest.summary[start:end] == "subsidies"


def test_a_changed_page_whose_matching_text_is_unchanged_notifies_nobody(site, alice):
    make_list(alice, "Energy", "subsidy")
    ingest_html(site, URL, article("Council backs solar subsidies", SOLAR))

    result = ingest_html(
        site,
        URL,
        article(
            "Council backs solar subsidies",
            SOLAR + ["The weather was mild. It did not rain. Everyone was happy."],
        ),
    )

    assert result.matches == 0
    assert Match.objects.count() == 1


def test_an_older_version_ingested_late_is_ignored(site, alice):
    make_list(alice, "Energy", "subsidy")
    old = store_version(site, URL, article("Council backs solar subsidies", SOLAR))
    new = store_version(site, URL, article("Council backs solar subsidies", SOLAR))
    ingest(new, kept(analyze(new.raw_body(), URL), new), index=active_index())

    result = ingest(old, kept(analyze(old.raw_body(), URL), old), index=active_index())

    assert result.skipped and result.matches == 0


def test_the_same_story_on_another_site_is_linked_and_not_matched_again(alice, bob):
    first_site = make_site("Daily Example", "https://news.example.com/")
    other_site = make_site("Other Paper", "https://other.example.org/")
    energy = make_list(alice, "Energy", "subsidy")
    # Bob's list only watches the other site, so it does not have the story yet.
    bobs = make_list(bob, "Energy elsewhere", "subsidy\nsite:other.example.org")
    ingest_html(first_site, URL, article("Council backs solar subsidies", SOLAR))
    # The same wire story, lightly edited: one sentence changed at the end.
    edited = SOLAR[:-1] + [SOLAR[-1].replace("in the spring", "in early spring next year")]

    result = ingest_html(
        other_site,
        "https://other.example.org/2025/solar-plan",
        article("Solar subsidies approved", edited, site="Other Paper"),
    )

    original = Clip.objects.get(site=first_site)
    repeat = Clip.objects.get(site=other_site)
    assert repeat.duplicate_of == original
    assert (result.duplicates, result.repeats, result.matches) == (1, 1, 1)
    assert Match.objects.filter(keyword_list=energy).count() == 1
    bobs_match = Match.objects.get(keyword_list=bobs)
    assert bobs_match.clip == repeat and bobs_match.story == original


def test_a_different_story_on_another_site_is_not_a_duplicate(alice):
    first_site = make_site("Daily Example", "https://news.example.com/")
    other_site = make_site("Other Paper", "https://other.example.org/")
    make_list(alice, "Mixed", "subsidy\nstrike")
    ingest_html(first_site, URL, article("Council backs solar subsidies", SOLAR))

    result = ingest_html(other_site, "https://other.example.org/rail", article("Rail strike", RAIL))

    assert result.duplicates == 0 and result.matches == 1
    assert Clip.objects.get(site=other_site).duplicate_of is None


def test_teasers_give_no_clip_the_article_they_announce_does(site, alice):
    make_list(alice, "Energy", "subsidy")

    front = ingest_html(site, "https://news.example.com/", front_page())
    article_result = ingest_html(site, URL, article("Council backs solar subsidies", SOLAR))

    assert front.matches == 0
    assert article_result.matches == 1
    assert Clip.objects.get().url == URL


def test_inactive_lists_match_nothing(site, alice):
    energy = make_list(alice, "Energy", "subsidy")
    index = active_index()  # built while the list was active, as a stale worker's index may be
    energy.active = False
    energy.save()
    version = store_version(site, URL, article("Council backs solar subsidies", SOLAR))

    result = ingest(version, kept(analyze(version.raw_body(), URL), version), index=index)

    assert result.matches == 0 and not Match.objects.exists()


def test_a_stored_version_is_analysed_and_ingested_by_id(site, alice):
    make_list(alice, "Energy", "subsidy")
    version = store_version(site, URL, article("Council backs solar subsidies", SOLAR))

    result = ingest_version(version.id, index=active_index())

    assert result.matches == 1
    assert Clip.objects.get().page_version == version


def test_a_version_without_a_body_or_that_is_not_html_is_skipped_with_a_reason(site, alice):
    make_list(alice, "Energy", "subsidy")
    pruned = store_version(site, URL, article("Council backs solar subsidies", SOLAR))
    pruned.body = None
    pruned.save()
    binary = store_version(site, "https://news.example.com/file.pdf", "%PDF-1.7 binary")

    assert "pruned" in ingest_version(pruned.id, index=active_index()).skipped
    assert "analysable" in ingest_version(binary.id, index=active_index()).skipped
    assert "no longer exists" in ingest_version(999_999, index=active_index()).skipped
    assert not Clip.objects.exists()


def test_a_version_whose_hand_on_was_lost_is_ingested_by_the_periodic_sweep(
    site, alice, eager_celery, django_capture_on_commit_callbacks, mailoutbox
):
    make_list(alice, "Energy", "subsidy")
    active_index()
    now = timezone.now()
    # Stored and committed by a crawl whose ingest task never ran (lost with its worker).
    lost = store_version(
        site,
        URL,
        article("Council backs solar subsidies", SOLAR),
        fetched_at=now - 2 * INGEST_STALLED_AFTER,
    )
    # Still within the time an ingest may take, and long gone: neither is queued again.
    store_version(
        site,
        RAIL_URL,
        article("Rail strike", RAIL),
        fetched_at=now - INGEST_STALLED_AFTER + timedelta(seconds=5),
    )
    store_version(
        site, OLD_URL, article("Old solar subsidies", SOLAR), fetched_at=now - INGEST_LOOKBACK * 2
    )

    assert stalled_versions(now) == [lost.id]
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.publish_due.delay().get()["versions"] == 1

    assert Clip.objects.get().page_version == lost
    assert [m.subject for m in mailoutbox] == ["[Webclip] Energy: Council backs solar subsidies"]
    assert stalled_versions(now) == []  # looked at: the next sweep leaves it


def test_a_version_skipped_with_a_reason_counts_as_looked_at(site, alice):
    make_list(alice, "Energy", "subsidy")
    old = timezone.now() - 2 * INGEST_STALLED_AFTER
    binary = store_version(site, "https://news.example.com/file.pdf", "%PDF-1.7", fetched_at=old)
    listing = store_version(site, "https://news.example.com/", front_page(), fetched_at=old)
    assert sorted(stalled_versions()) == [binary.id, listing.id]

    assert ingest_version(binary.id, index=active_index()).skipped
    assert ingest_version(listing.id, index=active_index()).clips == 0

    assert stalled_versions() == []
    # Asked again (a replayed task), each costs one query and no analysis.
    assert "looked at already" in ingest_version(binary.id, index=active_index()).skipped


def test_instant_matches_are_mailed_once_the_transaction_commits(
    site, alice, bob, eager_celery, django_capture_on_commit_callbacks, mailoutbox
):
    make_list(alice, "Energy", "subsidy")
    bob.delivery_mode = "daily"
    bob.save()
    make_list(bob, "Housing", "tenants")

    version = store_version(site, URL, article("Council backs solar subsidies", SOLAR))
    active_index()  # the task's index has both lists
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert tasks.ingest_version.delay(version.id).get()["matches"] == 2
        assert mailoutbox == []  # nothing leaves before the clip and match are committed
    for callback in callbacks:
        callback()

    assert [m.to for m in mailoutbox] == [["alice@example.com"]]
    assert mailoutbox[0].subject == "[Webclip] Energy: Council backs solar subsidies"
    assert Match.objects.get(owner=alice).mail_status == "sent"
    assert Match.objects.get(owner=bob).mail_status == "pending"  # Bob waits for his digest


def test_ingest_returns_its_new_matches_and_leaves_queueing_mail_to_the_task(
    site, alice, eager_celery, django_capture_on_commit_callbacks, mailoutbox
):
    make_list(alice, "Energy", "subsidy")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        result = ingest_html(site, URL, article("Council backs solar subsidies", SOLAR))
    assert result.match_ids == [Match.objects.get(owner=alice).id]
    assert callbacks == [] and mailoutbox == []


def test_a_clip_carries_the_publication_time_its_page_declares(site, alice):
    make_list(alice, "Energy", "subsidy")
    html = article("Council backs solar subsidies", SOLAR).replace(
        "<head>",
        '<head><meta property="article:published_time" content="2025-03-03T08:30:00+01:00">',
    )
    ingest_html(site, URL, html)

    clip = Clip.objects.get()
    assert clip.published_at == datetime(2025, 3, 3, 7, 30, tzinfo=UTC)
    assert clip.shown_at == clip.published_at


def test_a_clip_of_a_page_without_a_declared_time_is_shown_by_when_it_was_first_seen(site, alice):
    make_list(alice, "Energy", "subsidy")
    seen = datetime(2025, 3, 4, 9, 15, tzinfo=UTC)
    version = store_version(
        site, URL, article("Council backs solar subsidies", SOLAR), fetched_at=seen
    )
    ingest(version, kept(analyze(version.raw_body(), URL), version), index=active_index())

    clip = Clip.objects.get()
    # No publication time is made up: the crawl time is only the fallback shown as such.
    assert clip.published_at is None and clip.shown_at == seen == clip.seen_at


def test_new_text_on_a_changed_page_is_dated_when_first_seen_not_when_first_published(site, alice):
    make_list(alice, "Energy", "subsidy")
    head = '<head><meta property="article:published_time" content="2025-03-03T08:30:00Z">'
    first = article("Council debates energy", RAIL).replace("<head>", head)
    changed = article("Council debates energy", [*RAIL, SOLAR[0]]).replace("<head>", head)
    earlier = store_version(site, URL, first)
    ingest(earlier, kept(analyze(first, URL), earlier), index=active_index())
    seen = datetime(2025, 3, 9, 17, 0, tzinfo=UTC)
    version = store_version(site, URL, changed, fetched_at=seen)

    ingest(version, kept(analyze(changed, URL), version), index=active_index())

    clip = Clip.objects.get()
    assert clip.page_version == version and clip.published_at is None and clip.shown_at == seen
