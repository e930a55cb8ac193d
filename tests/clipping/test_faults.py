"""SMTP faults with a real server: 421/451, drops, stalls, outages, workers killed mid-send.

Every match must be delivered exactly once after recovery. The one documented exception: the
server accepted the message but the worker died before recording it; then it is sent again,
under the same Message-ID.
"""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
import redis
import time_machine
from django.conf import settings
from django.db.models import F
from django.utils import timezone

from clipping import publisher, tasks
from clipping.conf import SEND_RETRY_BACKOFF_MAX
from clipping.digests import plan_digests
from clipping.models import Delivery, Match
from clipping.publisher import ABANDONED, Outcome, TransientSendError
from tests.e2e.processes import UNPACED, Processes, service_env, wait_until
from tests.factories import make_list, make_match
from tests.servers import free_port, task_routes

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "fault",
    ["421 4.3.2 Service shutting down", "451 4.3.0 Local error in processing", "DROP", "STALL"],
)
def test_a_transient_fault_is_retried_and_the_match_delivered_exactly_once(
    alice, faulty_smtp, fault
):
    faulty_smtp.scripted_replies.append(fault)
    match = make_match(make_list(alice, "Energy", "subsidy"))

    with pytest.raises(TransientSendError):
        publisher.deliver_match(match.id)
    match.refresh_from_db()
    assert match.mail_status == "pending" and match.claimed_at is None  # claim given back
    assert publisher.deliver_match(match.id) == Outcome.SENT
    assert publisher.deliver_match(match.id) == Outcome.BUSY

    assert len(faulty_smtp.messages) == 1
    failed, sent = Delivery.objects.order_by("id")
    assert failed.status == "failed" and not failed.permanent and failed.error
    assert sent.status == "sent"


def test_the_task_retries_transient_faults_until_the_mail_goes(alice, faulty_smtp):
    faulty_smtp.scripted_replies.extend(["421 busy", "DROP", "451 try later"])
    match = make_match(make_list(alice, "Energy", "subsidy"))

    # apply() runs the task and its retries in this process (ignoring their countdowns).
    result = tasks.deliver_match.apply(args=[match.id])

    assert result.get() == "sent"
    assert faulty_smtp.attempts == 4 and len(faulty_smtp.messages) == 1
    statuses = list(Delivery.objects.order_by("id").values_list("status", flat=True))
    assert statuses == ["failed", "failed", "failed", "sent"]


def test_retries_back_off_exponentially_with_jitter():
    for task in (tasks.deliver_match, tasks.deliver_digest):
        assert task.autoretry_for == (TransientSendError,)
        assert task.retry_backoff and task.retry_jitter
        assert task.retry_backoff_max == SEND_RETRY_BACKOFF_MAX and task.max_retries >= 5


def test_matches_waiting_through_an_outage_are_each_delivered_once_after_it(
    alice, bob, faulty_smtp, settings
):
    bob.delivery_mode = "daily"
    bob.save()
    alices = [
        make_match(make_list(alice, f"List {n}", "subsidy"), title=f"Story {n}") for n in range(4)
    ]
    bobs = make_match(make_list(bob, "Bob's", "subsidy"), title="Bob's story")
    bobs.created_at = timezone.now() - timedelta(days=2)
    bobs.save()
    working_port = settings.EMAIL_PORT
    settings.EMAIL_PORT = free_port()  # nothing listens: connection refused

    for match in alices:
        with pytest.raises(TransientSendError):
            publisher.deliver_match(match.id)
    (digest_id,) = plan_digests()
    with pytest.raises(TransientSendError):
        publisher.deliver_digest(digest_id)
    # While their retries back off, the periodic sweep leaves them alone.
    assert publisher.stalled_matches() == [] and plan_digests() == []

    settings.EMAIL_PORT = working_port
    with time_machine.travel(timezone.now() + timedelta(seconds=SEND_RETRY_BACKOFF_MAX + 60)):
        # Say every retry task was lost: the sweep finds all the work again.
        for match_id in publisher.stalled_matches():
            assert publisher.deliver_match(match_id) == Outcome.SENT
        for digest_id in plan_digests():
            assert publisher.deliver_digest(digest_id) == Outcome.SENT
        assert publisher.stalled_matches() == [] and plan_digests() == []

    subjects = sorted(str(m["Subject"]) for m in faulty_smtp.messages)
    assert subjects == [
        "[Webclip] Daily digest: 1 new clip",
        *(f"[Webclip] List {n}: Story {n}" for n in range(4)),
    ]
    assert not Match.objects.undelivered().exists()


def test_a_worker_killed_before_the_server_took_the_message_loses_nothing(alice, faulty_smtp):
    match = make_match(make_list(alice, "Energy", "subsidy"))
    killed_at = timezone.now()
    # What a worker killed mid-send leaves behind: its claim and a "sending" row.
    Match.objects.filter(id=match.id).update(claimed_at=killed_at)
    stale = Delivery.objects.create(
        user=alice, kind="instant", match=match, address=alice.email, created_at=killed_at
    )

    # Within the lease the claim is respected: the worker might still be alive.
    assert publisher.deliver_match(match.id) == Outcome.BUSY
    assert match.id not in publisher.stalled_matches()

    with time_machine.travel(killed_at + timedelta(minutes=11)):
        assert publisher.stalled_matches() == [match.id]
        assert publisher.deliver_match(match.id) == Outcome.SENT
        assert publisher.stalled_matches() == []

    assert len(faulty_smtp.messages) == 1
    stale.refresh_from_db()
    assert stale.status == "failed" and stale.error == ABANDONED
    assert Delivery.objects.filter(match=match, status="sent").count() == 1


def test_a_worker_killed_after_the_server_took_the_message_sends_it_again_under_the_same_id(
    alice, faulty_smtp
):
    """The documented duplicate: the reply was lost with the worker, so the send is repeated."""
    match = make_match(make_list(alice, "Energy", "subsidy"))
    assert publisher.deliver_match(match.id) == Outcome.SENT
    # Rewind to the state just before the worker could record the server's reply.
    killed_at = timezone.now()
    Match.objects.filter(id=match.id).update(
        mail_status="pending", delivered_at=None, delivery=None, claimed_at=killed_at
    )
    Delivery.objects.filter(match=match).update(status="sending", finished_at=None)

    with time_machine.travel(killed_at + timedelta(minutes=11)):
        assert publisher.deliver_match(match.id) == Outcome.SENT

    first, second = faulty_smtp.messages
    assert first["Message-ID"] == second["Message-ID"]
    assert list(Delivery.objects.order_by("id").values_list("status", "error")) == [
        ("failed", ABANDONED),
        ("sent", ""),
    ]


def test_a_digest_whose_worker_died_is_sent_once_after_the_lease(alice, faulty_smtp):
    alice.delivery_mode = "daily"
    alice.save()
    match = make_match(make_list(alice, "Energy", "subsidy"))
    match.created_at = timezone.now() - timedelta(days=2)
    match.save()
    (digest_id,) = plan_digests()
    from clipping.models import Digest

    killed_at = timezone.now()
    Digest.objects.filter(id=digest_id).update(claimed_at=killed_at)
    Delivery.objects.create(
        user=alice, kind="digest", digest_id=digest_id, address=alice.email, created_at=killed_at
    )
    assert plan_digests() == [] and publisher.deliver_digest(digest_id) == Outcome.BUSY

    with time_machine.travel(killed_at + timedelta(minutes=11)):
        assert plan_digests() == [digest_id]
        assert publisher.deliver_digest(digest_id) == Outcome.SENT

    assert len(faulty_smtp.messages) == 1
    assert Digest.objects.get().status == "sent"


def test_a_match_that_keeps_failing_is_given_up_after_the_attempt_limit(alice, faulty_smtp):
    match = make_match(make_list(alice, "Energy", "subsidy"))
    Delivery.objects.bulk_create(
        Delivery(
            user=alice,
            kind="instant",
            match=match,
            address=alice.email,
            status="failed",
            error="421",
        )
        for _ in range(publisher.MAX_ATTEMPTS - 1)
    )
    faulty_smtp.scripted_replies.append("421 still busy")

    assert publisher.deliver_match(match.id) == Outcome.FAILED

    match.refresh_from_db()
    assert match.mail_status == "failed" and "421" in match.mail_note
    assert publisher.stalled_matches() == []


def _forget_unacked(queue: str) -> None:
    """Drop the killed worker's unacknowledged message from Redis so no later run restores it."""
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    for tag, payload in client.hgetall("unacked").items():
        if queue.encode() in payload:
            client.hdel("unacked", tag)
            client.zrem("unacked_index", tag)
    client.delete(queue)


@pytest.mark.slow
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_killed_during_a_send_loses_and_doubles_nothing(alice, faulty_smtp, tmp_path):
    """SIGKILL a Celery worker while the server stalls on DATA; a new worker finishes the job.

    The stalled message was never accepted, so it must arrive once; a second match still
    queued behind it must not be lost with the worker.
    """
    faulty_smtp.stall_seconds = 60
    faulty_smtp.scripted_replies.append("STALL")
    energy = make_list(alice, "Energy", "subsidy")
    stalled = make_match(energy, title="Stalled story")
    queued = make_match(make_list(alice, "Housing", "subsidy"), title="Queued story")
    queue = f"publish-kill-{os.getpid()}"
    env = service_env(
        smtp_port=faulty_smtp.port, site_url="http://testserver", EMAIL_TIMEOUT="30", **UNPACED
    )
    workers = Processes(env, tmp_path)
    with task_routes({"clipping.tasks.*": {"queue": queue}}):
        try:
            tasks.deliver_match.delay(stalled.id)
            tasks.deliver_match.delay(queued.id)
            workers.worker("doomed", queue)
            wait_until(lambda: faulty_smtp.attempts == 1, 60, "the first send to reach DATA")
            assert Delivery.objects.filter(match=stalled, status="sending").exists()
            workers.kill("doomed")

            stalled.refresh_from_db()
            assert stalled.mail_status == "pending" and stalled.claimed_at is not None
            assert Match.objects.get(id=queued.id).mail_status == "pending"

            # The lease runs out (moved back rather than waited for); the periodic sweep re-queues.
            lease = publisher.clipping_settings().claim_timeout + timedelta(seconds=5)
            Match.objects.filter(id=stalled.id).update(claimed_at=F("claimed_at") - lease)
            Delivery.objects.filter(match=stalled).update(created_at=F("created_at") - lease)
            workers.worker("restarted", queue)
            tasks.publish_due.apply()
            wait_until(
                lambda: not Match.objects.undelivered().exists(), 90, "both matches to be mailed"
            )
        finally:
            workers.stop_all()
            _forget_unacked(queue)

    assert sorted(str(m["Subject"]) for m in faulty_smtp.messages) == [
        "[Webclip] Energy: Stalled story",
        "[Webclip] Housing: Queued story",
    ]
    assert list(
        Delivery.objects.filter(match=stalled).order_by("id").values_list("status", "error")
    ) == [("failed", ABANDONED), ("sent", "")]
    assert Delivery.objects.filter(match=queued).get().status == "sent"
