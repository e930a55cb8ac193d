"""Clips through Apprise to real local endpoints: once each, retried, paused when failing."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone

from clipping import channels, tasks
from clipping.models import Channel, ChannelDelivery, ChannelDigest, Notice
from clipping.publisher import Outcome
from tests.channels.helpers import make_channel, route
from tests.channels.servers import CountingListener
from tests.factories import make_list, make_match
from tests.servers import free_port

pytestmark = pytest.mark.django_db


def test_a_clip_goes_once_to_a_json_webhook_however_often_the_task_runs(alice, notify_server):
    energy = make_list(alice, "Energy", "subsidy")
    channel = make_channel(alice, notify_server.json_url("/hook"))
    route(energy, channel)
    match = make_match(energy, title="Council backs solar subsidies")

    (notice_id,) = channels.plan_notices([match.id])
    assert channels.plan_notices([match.id]) == [notice_id]  # planned twice: one notice
    assert tasks.deliver_notice.apply(args=[notice_id]).get() == Outcome.SENT
    assert tasks.deliver_notice.apply(args=[notice_id]).get() == Outcome.BUSY

    (message,) = notify_server.messages
    assert message.path == "/hook"
    assert message.payload["title"] == "Council backs solar subsidies"
    assert match.clip.url in message.payload["message"]
    assert "(Energy)" in message.payload["message"]
    assert Notice.objects.get(id=notice_id).status == "sent"
    (delivery,) = ChannelDelivery.objects.all()
    assert delivery.status == "sent" and delivery.notice_id == notice_id


def test_an_ntfy_topic_gets_the_clip(alice, notify_server):
    energy = make_list(alice, "Energy", "subsidy")
    route(energy, make_channel(alice, notify_server.ntfy_url("alice-clips")))
    match = make_match(energy)

    for notice_id in channels.plan_notices([match.id]):
        channels.deliver_notice(notice_id)

    (message,) = notify_server.messages
    assert message.payload["topic"] == "alice-clips"
    assert message.payload["title"] == match.clip.title


def test_new_matches_reach_the_channel_through_the_ingest_task_edge(
    alice, notify_server, eager_celery, django_capture_on_commit_callbacks
):
    energy = make_list(alice, "Energy", "subsidy")
    route(energy, make_channel(alice, notify_server.json_url()))
    match = make_match(energy)

    with django_capture_on_commit_callbacks(execute=True):
        tasks.queue_channel_notices([match.id])

    assert len(notify_server.messages) == 1


def test_only_routed_lists_and_matches_after_the_route_are_sent(alice, notify_server):
    energy, transport = make_list(alice, "Energy", "subsidy"), make_list(alice, "Rail", "strike")
    before = make_match(energy)
    channel = make_channel(alice, notify_server.json_url())
    route(energy, channel)
    other = make_match(transport, summary="The rail strike began.", term="strike")
    after = make_match(energy, title="Wind subsidies", url="https://news.example.com/wind")

    planned = channels.plan_notices([before.id, other.id, after.id])

    assert [Notice.objects.get(id=i).match_id for i in planned] == [after.id]


def test_a_failing_server_is_retried_with_backoff_until_the_message_goes(alice, notify_server):
    notify_server.endpoint.failing.extend([500, 503])
    energy = make_list(alice, "Energy", "subsidy")
    channel = make_channel(alice, notify_server.json_url())
    route(energy, channel)
    (notice_id,) = channels.plan_notices([make_match(energy).id])

    # apply() runs the task and its retries in this process (ignoring their countdowns).
    assert tasks.deliver_notice.apply(args=[notice_id]).get() == Outcome.SENT

    assert len(notify_server.messages) == 1 and notify_server.endpoint.attempts == 3
    statuses = list(ChannelDelivery.objects.order_by("id").values_list("status", flat=True))
    assert statuses == ["failed", "failed", "sent"]
    channel.refresh_from_db()
    assert channel.failures == 0 and not channel.paused


def test_retries_back_off_exponentially_with_jitter():
    for task in (tasks.deliver_notice, tasks.deliver_channel_digest):
        assert task.retry_backoff and task.retry_jitter and task.max_retries >= 5


@pytest.mark.parametrize("down", ["500", "closed port"])
def test_a_channel_that_keeps_failing_is_paused_with_its_reason(alice, notify_server, down):
    energy = make_list(alice, "Energy", "subsidy")
    if down == "500":
        notify_server.endpoint.failing.extend([500] * 20)
        url = notify_server.json_url()
    else:
        url = f"json://127.0.0.1:{free_port()}/hook"
    channel = make_channel(alice, url)
    route(energy, channel)
    (notice_id,) = channels.plan_notices([make_match(energy).id])

    assert tasks.deliver_notice.apply(args=[notice_id]).get() == Outcome.FAILED

    channel.refresh_from_db()
    assert channel.paused and channel.failures == 5
    assert channel.paused_reason.startswith("Paused after 5 failed sends in a row")
    detail = "500" if down == "500" else "could not be reached"
    assert detail in channel.paused_reason
    assert ChannelDelivery.objects.filter(status="failed").count() == 5
    assert Notice.objects.get(id=notice_id).status == "failed"
    assert notify_server.messages == []
    # While paused, new clips are not planned for it, and a resume clears the reason.
    assert channels.plan_notices([make_match(energy, url="https://news.example.com/2").id]) == []
    channels.resume(channel)
    channel.refresh_from_db()
    assert not channel.paused and channel.paused_reason == "" and channel.failures == 0


def test_a_worker_killed_mid_send_doubles_nothing(alice, notify_server):
    energy = make_list(alice, "Energy", "subsidy")
    channel = make_channel(alice, notify_server.json_url())
    route(energy, channel)
    (notice_id,) = channels.plan_notices([make_match(energy).id])
    # A worker claimed the notice, wrote its attempt, and died before Apprise was called.
    claimed_at = timezone.now()
    Notice.objects.filter(id=notice_id).update(claimed_at=claimed_at)
    ChannelDelivery.objects.create(channel=channel, kind="instant", notice_id=notice_id)

    assert channels.deliver_notice(notice_id) == Outcome.BUSY  # its lease still holds
    assert channels.plan_due()[0] == []
    with time_machine.travel(claimed_at + timedelta(minutes=11)):
        assert channels.plan_due()[0] == [notice_id]
        assert channels.deliver_notice(notice_id) == Outcome.SENT
        assert channels.deliver_notice(notice_id) == Outcome.BUSY

    assert len(notify_server.messages) == 1
    abandoned, sent = ChannelDelivery.objects.order_by("id")
    assert abandoned.status == "failed" and "Abandoned" in abandoned.error
    assert sent.status == "sent"


def test_the_sweep_writes_notices_a_dead_worker_never_wrote(alice, notify_server):
    energy = make_list(alice, "Energy", "subsidy")
    route(energy, make_channel(alice, notify_server.json_url()))
    match = make_match(energy)
    assert not Notice.objects.exists()

    with time_machine.travel(timezone.now() + timedelta(minutes=3)):
        notice_ids, _ = channels.plan_due()

    assert [Notice.objects.get(id=i).match_id for i in notice_ids] == [match.id]


def test_a_digest_channel_gets_one_message_with_the_days_clips(alice, notify_server):
    energy = make_list(alice, "Energy", "subsidy")
    channel = make_channel(alice, notify_server.json_url())
    with time_machine.travel(datetime(2026, 3, 2, 6, 0, tzinfo=UTC)):
        route(energy, channel, mode="digest")
        first = make_match(energy, title="Solar subsidies", url="https://news.example.com/1")
        second = make_match(energy, title="Wind subsidies", url="https://news.example.com/2")
        assert channels.plan_notices([first.id, second.id]) == []  # digest notices wait
        assert channels.plan_due() == ([], [])  # before alice's digest hour (8:00 UTC)

    with time_machine.travel(datetime(2026, 3, 2, 8, 30, tzinfo=UTC)):
        _, (digest_id,) = channels.plan_due()
        assert tasks.deliver_channel_digest.apply(args=[digest_id]).get() == Outcome.SENT
        assert tasks.deliver_channel_digest.apply(args=[digest_id]).get() == Outcome.BUSY
        assert channels.plan_due() == ([], [])

    (message,) = notify_server.messages
    assert message.payload["title"] == "2 new clips for Energy"
    assert "Solar subsidies" in message.payload["message"]
    assert "Wind subsidies" in message.payload["message"]
    assert ChannelDigest.objects.get(id=digest_id).status == "sent"
    assert set(Notice.objects.values_list("status", flat=True)) == {"sent"}


def test_a_paused_list_sends_nothing_to_its_channels(alice, notify_server):
    energy = make_list(alice, "Energy", "subsidy")
    route(energy, make_channel(alice, notify_server.json_url()))
    (notice_id,) = channels.plan_notices([make_match(energy).id])
    energy.active = False
    energy.save()

    assert channels.deliver_notice(notice_id) == Outcome.SKIPPED
    assert notify_server.messages == []
    assert Channel.objects.get().failures == 0


def test_the_beat_task_sends_what_is_due(alice, notify_server, eager_celery):
    energy = make_list(alice, "Energy", "subsidy")
    route(energy, make_channel(alice, notify_server.json_url()))
    make_match(energy)

    with time_machine.travel(timezone.now() + timedelta(minutes=3)):
        assert tasks.publish_channels_due.apply().get() == {"notices": 1, "digests": 0}
        assert tasks.publish_channels_due.apply().get() == {"notices": 0, "digests": 0}

    assert len(notify_server.messages) == 1


def test_a_redirect_to_a_private_address_connects_nowhere(alice, notify_server):
    energy = make_list(alice, "Energy", "subsidy")
    channel = make_channel(alice, notify_server.json_url("/hook"))
    route(energy, channel)
    match = make_match(energy)
    with CountingListener("127.0.0.2") as inside:
        notify_server.endpoint.redirect_to = inside.url
        (notice_id,) = channels.plan_notices([match.id])
        assert channels.deliver_notice(notice_id) == Outcome.FAILED
        time.sleep(0.3)  # a connection made would be counted by now
    assert inside.accepted == 0
    assert notify_server.messages == []
    assert "127.0.0.2" not in ChannelDelivery.objects.get().error  # where it pointed stays unsaid
    channel.refresh_from_db()
    assert channel.paused_at is not None and "private" in channel.paused_reason
