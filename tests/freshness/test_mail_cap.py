"""The instant-mail cap is each person's choice: how many per hour, and what happens above it.

Above the cap the first clip of each list in the hour still comes at once; the others wait
for a digest at the end of the hour, or, for a person who asked for it, for an early digest
as soon as their chosen number of clips wait. Mail goes to a real SMTP server.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import time_machine

from accounts.forms import PreferencesForm
from accounts.models import User
from clipping import publisher, tasks
from clipping.digests import plan_digests
from clipping.models import Digest, Match
from clipping.publisher import Outcome
from tests.factories import make_list, make_match

pytestmark = pytest.mark.django_db

IN_THE_HOUR = datetime(2025, 3, 3, 14, 5, tzinfo=UTC)
NEXT_HOUR = datetime(2025, 3, 3, 15, 1, tzinfo=UTC)


def choose(user: User, **choice: object) -> None:
    for name, value in choice.items():
        setattr(user, name, value)
    user.save()


def test_over_her_own_limit_the_first_clip_of_each_list_still_comes_at_once(alice, smtp_server):
    choose(alice, instant_mails_per_hour=2)
    energy, housing, transport = (
        make_list(alice, name, "subsidy") for name in ("Energy", "Housing", "Transport")
    )
    with time_machine.travel(IN_THE_HOUR, tick=True):
        sent = [
            publisher.deliver_match(make_match(energy, title=f"Energy {n}").id) for n in range(3)
        ]
        sent += [publisher.deliver_match(make_match(housing, title="Housing 0").id)]
        sent += [publisher.deliver_match(make_match(housing, title="Housing 1").id)]
        sent += [publisher.deliver_match(make_match(transport, title="Transport 0").id)]

    assert sent == ["sent", "sent", "deferred", "sent", "deferred", "sent"]
    subjects = [m["Subject"] for m in smtp_server.to("alice@example.com")]
    assert len(subjects) == 4 and not any("Energy 2" in s or "Housing 1" in s for s in subjects)
    # Her digest counts the four instant mails she got, not her limit of two.
    with time_machine.travel(NEXT_HOUR, tick=True):
        (digest_id,) = plan_digests()
        assert publisher.deliver_digest(digest_id) == Outcome.SENT
    digest = smtp_server.to("alice@example.com")[-1].get_body(("plain",)).get_content()
    assert "You got 4 instant mails in that hour (2 per hour is your limit" in digest
    assert "/account/" in digest.split("Change the number of instant mails per hour: ")[1]


def test_the_preferences_form_says_the_number_in_force(alice):
    field = PreferencesForm(instance=alice)["instant_mails_per_hour"]
    assert "In force: 60 per hour, the site's default." in field.help_text
    assert field.field.widget.attrs["placeholder"] == "60"
    choose(alice, instant_mails_per_hour=5)
    assert (
        "In force: 5 per hour, your choice."
        in PreferencesForm(instance=alice)["instant_mails_per_hour"].help_text
    )


def test_without_a_choice_the_sites_default_is_the_limit(alice, smtp_server, settings):
    settings.CLIPPING_INSTANT_MAILS_PER_HOUR = 1
    energy = make_list(alice, "Energy", "subsidy")
    with time_machine.travel(IN_THE_HOUR, tick=True):
        first = publisher.deliver_match(make_match(energy, title="One").id)
        second = publisher.deliver_match(make_match(energy, title="Two").id)
        choose(alice, instant_mails_per_hour=5)
        third = publisher.deliver_match(make_match(energy, title="Three").id)

    assert (first, second, third) == ("sent", "deferred", "sent")


def test_above_the_limit_the_rest_comes_in_one_digest_at_the_end_of_the_hour(alice, smtp_server):
    choose(alice, instant_mails_per_hour=1, over_limit=User.OverLimit.HOUR, over_limit_batch=2)
    energy = make_list(alice, "Energy", "subsidy")
    with time_machine.travel(IN_THE_HOUR, tick=True):
        outcomes = [
            tasks.deliver_match.apply(args=[make_match(energy, title=f"Story {n}").id]).get()
            for n in range(4)
        ]
        assert plan_digests() == []  # three wait, but she wants them at the end of the hour

    assert outcomes == ["sent", "deferred", "deferred", "deferred"]
    assert len(smtp_server.messages) == 1
    with time_machine.travel(NEXT_HOUR, tick=True):
        (digest_id,) = plan_digests()
        assert publisher.deliver_digest(digest_id) == Outcome.SENT
    digest = Digest.objects.get()
    assert (digest.kind, digest.period) == ("hourly", datetime(2025, 3, 3, 15, 0, tzinfo=UTC))
    assert digest.matches.count() == 3
    assert Match.objects.filter(mail_status="sent").count() == 4


def test_an_early_digest_goes_as_soon_as_her_number_of_clips_wait(alice, smtp_server, eager_celery):
    choose(alice, instant_mails_per_hour=1, over_limit=User.OverLimit.BATCH, over_limit_batch=3)
    energy = make_list(alice, "Energy", "subsidy")
    with time_machine.travel(IN_THE_HOUR, tick=True):
        for n in range(5):
            tasks.deliver_match.delay(make_match(energy, title=f"Story {n}").id)
        # One instant mail, then three clips waited: their digest went at once.
        assert len(smtp_server.messages) == 2
        early = Digest.objects.get()
        assert early.status == "sent" and early.matches.count() == 3
        last = Match.objects.get(clip__title="Story 4")
        assert last.mail_status == "pending" and last.digest_id is None

    with time_machine.travel(NEXT_HOUR, tick=True):
        (digest_id,) = plan_digests()  # the one left over waits for the end of the hour
        assert publisher.deliver_digest(digest_id) == Outcome.SENT
    assert Digest.objects.get(id=digest_id).matches.get() == last
    assert len(smtp_server.messages) == 3
    assert Match.objects.filter(mail_status="sent").count() == 5


def test_the_periodic_planner_also_sends_an_early_digest_that_filled_up(alice, smtp_server):
    choose(alice, instant_mails_per_hour=1, over_limit=User.OverLimit.BATCH, over_limit_batch=2)
    energy = make_list(alice, "Energy", "subsidy")
    with time_machine.travel(IN_THE_HOUR, tick=True):
        for n in range(3):  # the publisher alone, as if the task died before planning
            publisher.deliver_match(make_match(energy, title=f"Story {n}").id)
        (digest_id,) = plan_digests()
        assert publisher.deliver_digest(digest_id) == Outcome.SENT
    assert Digest.objects.get(id=digest_id).matches.count() == 2


def test_the_cap_is_chosen_on_the_preferences_form(alice):
    data = {
        "delivery_mode": "instant",
        "instant_mails_per_hour": "5",
        "over_limit": "batch",
        "over_limit_batch": "4",
        "digest_hour": "8",
        "digest_weekday": "0",
        "time_zone": "UTC",
    }
    form = PreferencesForm(data, instance=alice)
    assert form.is_valid(), form.errors
    form.save()
    alice.refresh_from_db()
    assert (alice.instant_mails_per_hour, alice.over_limit, alice.over_limit_batch) == (
        5,
        "batch",
        4,
    )
    refused = PreferencesForm({**data, "over_limit_batch": "1"}, instance=alice)
    assert not refused.is_valid() and "over_limit_batch" in refused.errors
