"""Instant mail paced per person and messages per channel; digests capped, updates grouped."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from clipping import pacing, publisher
from clipping.digests import plan_digests
from clipping.models import Digest, Match, Notice
from clipping.models.channels import Channel, ChannelDigest, ListChannel
from clipping.publisher import Outcome
from tests.factories import make_clip, make_list, make_match

pytestmark = pytest.mark.django_db

FOUND = datetime(2026, 3, 3, 14, 0, tzinfo=UTC)
GATHER = timedelta(seconds=10)  # the defaults a person gets
SPACING = timedelta(seconds=60)


@pytest.fixture(autouse=True)
def paced(settings):
    """The defaults a person gets (the suite's conftest turns pacing off)."""
    settings.CLIPPING_INSTANT_GATHER_SECONDS = GATHER.total_seconds()
    settings.CLIPPING_INSTANT_SPACING_SECONDS = SPACING.total_seconds()


def burst_of(keyword_list, count: int, title: str = "") -> list[Match]:
    """Make `count` matches within two seconds, as a first crawl of a site does."""
    matches = []
    for n in range(count):
        with time_machine.travel(FOUND + timedelta(seconds=2 * n / count), tick=False):
            named = title.format(n=n) if title else f"Story {chr(65 + n)} of the day"
            clip = make_clip(title=named, url=f"https://news.example.com/{n}")
            matches.append(make_match(keyword_list, clip))
    return matches


def test_sixteen_clips_within_two_seconds_make_one_mail(alice, mailoutbox):
    energy = make_list(alice, "Energy", "subsidy")
    matches = burst_of(energy, 16)

    with time_machine.travel(FOUND + timedelta(seconds=1), tick=False):
        waits = {pacing.pace(m.id).wait for m in matches}
    assert all(0 < wait <= GATHER.total_seconds() for wait in waits)  # they wait to gather

    with time_machine.travel(FOUND + GATHER, tick=False):
        steps = [pacing.pace(m.id) for m in matches]
        burst = steps[0].burst_id
        assert burst is not None and all(step == pacing.Pace() for step in steps[1:])
        assert publisher.deliver_digest(burst) == Outcome.SENT
        assert {publisher.deliver_match(m.id) for m in matches} == {Outcome.BUSY}

    assert len(mailoutbox) == 1
    assert mailoutbox[0].subject == "[Webclip] 16 new clips for Energy"
    assert Match.objects.filter(mail_status="sent").count() == 16
    assert Digest.objects.get().kind == Digest.Kind.BURST


def test_a_clip_found_alone_goes_alone_once_gathered_and_the_next_waits_for_the_spacing(
    alice, mailoutbox
):
    energy = make_list(alice, "Energy", "subsidy")
    [first] = burst_of(energy, 1)
    with time_machine.travel(FOUND + GATHER, tick=False):
        assert pacing.pace(first.id) == pacing.Pace()
        assert publisher.deliver_match(first.id) == Outcome.SENT
    with time_machine.travel(FOUND + timedelta(seconds=20), tick=False):
        second = make_match(energy, make_clip(title="Later", url="https://news.example.com/l"))
    with time_machine.travel(FOUND + timedelta(seconds=40), tick=False):
        wait = pacing.pace(second.id).wait
    assert wait == pytest.approx((GATHER + SPACING - timedelta(seconds=40)).total_seconds())
    with time_machine.travel(FOUND + GATHER + SPACING, tick=False):
        assert pacing.pace(second.id) == pacing.Pace()
    assert len(mailoutbox) == 1


def send_burst(keyword_list, count: int) -> None:
    """Gather `count` clips found together and mail them as one burst, GATHER after FOUND."""
    matches = burst_of(keyword_list, count)
    with time_machine.travel(FOUND + GATHER, tick=False):
        burst = pacing.pace(matches[0].id).burst_id
        assert burst is not None and publisher.deliver_digest(burst) == Outcome.SENT


def send_alone(keyword_list, title: str, after: timedelta) -> str:
    """Make one match `after` FOUND and mail it alone once the gather and spacing passed."""
    url = f"https://news.example.com/{title.replace(' ', '-')}"
    with time_machine.travel(FOUND + after, tick=False):
        match = make_match(keyword_list, make_clip(title=title, url=url))
    with time_machine.travel(FOUND + after + GATHER + SPACING, tick=False):
        assert pacing.pace(match.id) == pacing.Pace()
        return publisher.deliver_match(match.id)


def test_a_burst_counts_as_one_mail_toward_her_hourly_limit(alice, mailoutbox):
    alice.instant_mails_per_hour = 2
    alice.save()
    energy = make_list(alice, "Energy", "subsidy")
    send_burst(energy, 3)

    sent = [send_alone(energy, f"Energy {n}", after=SPACING * (2 * n + 1)) for n in range(2)]

    assert sent == [Outcome.SENT, Outcome.DEFERRED]  # the burst and one clip: her two mails
    assert len(mailoutbox) == 2


def test_over_her_limit_a_list_that_went_in_a_burst_waits_and_another_list_comes_at_once(
    alice, mailoutbox
):
    alice.instant_mails_per_hour = 1
    alice.save()
    energy, housing = make_list(alice, "Energy", "subsidy"), make_list(alice, "Housing", "rent")
    send_burst(energy, 3)

    assert send_alone(energy, "Energy later", after=SPACING) == Outcome.DEFERRED
    assert send_alone(housing, "Housing later", after=SPACING * 3) == Outcome.SENT
    with time_machine.travel(FOUND + timedelta(hours=1), tick=False):
        (digest_id,) = plan_digests()
        assert publisher.deliver_digest(digest_id) == Outcome.SENT
    assert "You got 2 instant mails in that hour (1 per hour is your limit" in mailoutbox[-1].body


def test_a_burst_on_a_channel_becomes_one_message(alice):
    energy = make_list(alice, "Energy", "subsidy")
    channel = Channel(owner=alice, name="Chat")
    channel.set_url("json://127.0.0.1:9/", "json://127.0.0.1:9/", "json")
    channel.save()
    ListChannel.objects.create(keyword_list=energy, channel=channel, mode="instant")
    matches = burst_of(energy, 16)
    notices = [
        Notice.objects.create(channel=channel, match=m, mode="instant", created_at=m.created_at)
        for m in matches
    ]

    with time_machine.travel(FOUND + timedelta(seconds=1), tick=False):
        assert pacing.pace_notice(notices[-1].id).wait > 0
    with time_machine.travel(FOUND + GATHER, tick=False):
        steps = [pacing.pace_notice(n.id) for n in notices]

    bursts = {step.burst_id for step in steps} - {None}
    assert len(bursts) == 1 and ChannelDigest.objects.get().notices.count() == 16


def test_an_old_match_never_joins_a_burst(alice):
    energy = make_list(alice, "Energy", "subsidy")
    matches = burst_of(energy, 3)
    Match.objects.filter(id=matches[0].id).update(old=True)
    with time_machine.travel(FOUND + GATHER + timedelta(seconds=2), tick=False):
        burst = pacing.pace(matches[1].id).burst_id
    assert set(Digest.objects.get(id=burst).matches.values_list("id", flat=True)) == {
        matches[1].id,
        matches[2].id,
    }


def test_a_digest_shows_twenty_clips_and_links_the_rest(alice, mailoutbox):
    energy = make_list(alice, "Energy", "subsidy")
    matches = burst_of(energy, 26)
    digest = Digest.objects.create(user=alice, kind=Digest.Kind.DAILY, period=FOUND)
    Match.objects.filter(id__in=[m.id for m in matches]).update(digest=digest)

    assert publisher.deliver_digest(digest.id) == Outcome.SENT

    body = mailoutbox[0].body
    assert body.count("https://news.example.com/") == 20
    assert "6 more clips on My clips: http" in body
    assert 'data-testid="more-clips"' in mailoutbox[0].alternatives[0][0]


def test_updates_of_one_story_are_one_item_in_a_burst(alice, mailoutbox):
    energy = make_list(alice, "Energy", "subsidy")
    burst_of(energy, 3, title="Markets live: rail strike update {n}/14")
    with time_machine.travel(FOUND + GATHER, tick=False):
        burst = pacing.pace(Match.objects.first().id).burst_id
        publisher.deliver_digest(burst)

    body = mailoutbox[0].body
    assert body.count("Markets live: rail strike update") == 1
    assert "And 2 more updates of this story on My clips." in body
