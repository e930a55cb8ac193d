"""Two beat processes for a simulated day: every crawl and digest happens once per due time.

Two processes run the project's scheduler (django-celery-beat's DatabaseScheduler with the
shipped schedules: dispatch due crawls every minute, publish every five) on a fake clock that
the test moves ten minutes a step, both at the same simulated moment; the tasks run in them
(eagerly) at that time, against PostgreSQL and a real SMTP server, and crawl real sites on
127.0.0.1. Running beat twice must cost nothing: the dispatch claims each site's next crawl
time, digests are unique per (user, kind, period) and claimed before sending.
"""

from __future__ import annotations

import os
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from clipping.models import Delivery, Digest, Match
from crawler.models import CrawlRun, Site
from tests.crawler.servers import SiteServer
from tests.e2e.processes import (
    Processes,
    broker_client,
    service_env,
    start_fake_clock_beat,
    wait_until,
)
from tests.factories import make_list, make_match, make_user

pytestmark = [
    pytest.mark.slow,
    pytest.mark.redis,
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
]

START = datetime(2026, 3, 4, 0, 0, tzinfo=UTC)  # a Wednesday; no daylight-saving change
STEP = timedelta(minutes=10)
STEPS = 144  # one day
BEATS = ("beat-a", "beat-b")
# Revisit intervals a minute short of whole hours: due every 1, 3 and 6 hours of the steps.
REVISITS = {"hourly": 1, "three-hourly": 3, "six-hourly": 6}
HOURLY_DIGESTS = 20


def shipped_schedules() -> None:
    """The periodic tasks the migrations install, last run before the simulated day."""
    for name, task, seconds, queue in [
        ("Dispatch due crawls", "crawler.tasks.dispatch_due_sites", 60, "crawl"),
        (
            "Send due digests and re-queue stalled mail",
            "clipping.tasks.publish_due",
            300,
            "publish",
        ),
    ]:
        every, _ = IntervalSchedule.objects.get_or_create(every=seconds, period="seconds")
        PeriodicTask.objects.update_or_create(
            name=name,
            defaults={
                "task": task,
                "interval": every,
                "queue": queue,
                "enabled": True,
                "last_run_at": START - timedelta(hours=1),
            },
        )


def readers() -> dict[str, int]:
    """People whose mail falls due during the day; return how many mails each must get."""
    before = START - timedelta(hours=1)

    def reader(email: str, **preferences: object):
        user = make_user(email, **preferences)
        return make_list(user, "Energy", "subsidy")

    def pending(keyword_list, title: str, **fields: object) -> Match:
        match = make_match(keyword_list, title=title)
        Match.objects.filter(id=match.id).update(created_at=before, **fields)
        return match

    berlin = reader(
        "dora@example.com", delivery_mode="daily", digest_hour=7, time_zone="Europe/Berlin"
    )
    pending(berlin, "For Dora")  # her digest: 07:00 in Berlin, 06:00 UTC
    new_york = reader(
        "emil@example.com", delivery_mode="daily", digest_hour=22, time_zone="America/New_York"
    )
    pending(new_york, "For Emil")  # 22:00 the evening before in New York, 03:00 UTC
    weekly = reader(
        "hana@example.com", delivery_mode="weekly", digest_weekday=START.weekday(), digest_hour=12
    )
    pending(weekly, "For Hana")
    # An instant reader over the hourly limit: each hour's surplus goes out in one digest.
    over_limit = reader("finn@example.com")
    for hour in range(1, HOURLY_DIGESTS + 1):
        pending(over_limit, f"For Finn {hour}", deferred_until=START + timedelta(hours=hour))
    # An instant match whose task was lost: the sweep of each beat finds it.
    pending(reader("gus@example.com"), "For Gus")
    return {
        "dora@example.com": 1,
        "emil@example.com": 1,
        "hana@example.com": 1,
        "finn@example.com": HOURLY_DIGESTS,
        "gus@example.com": 1,
    }


def due_steps(hours: int) -> list[int]:
    """The steps at which a site revisited every `hours` (less a minute) falls due."""
    return list(range(0, STEPS, hours * 6))


def step_of(moment: datetime) -> int:
    return int((moment - START) / STEP)


def test_two_beats_for_a_day_crawl_and_mail_once_per_due_time(smtp_server, tmp_path):
    key = f"fake-clock-{os.getpid()}"
    client = broker_client()
    client.delete(f"{key}:clock", *(f"{key}:done:{name}" for name in BEATS))
    shipped_schedules()
    expected_mail = readers()
    with SiteServer() as server:
        for path in REVISITS:
            server.html(
                f"/{path}/", f"<html><body><h1>{path}</h1><p>Nothing yet.</p></body></html>"
            )
        sites = {
            path: Site.objects.create(
                name=path,
                root_url=server.url(f"/{path}/"),
                allow_private_network=True,
                crawl_delay=0,
                page_budget=5,
                revisit_interval=timedelta(hours=hours, minutes=-1),
            )
            for path, hours in REVISITS.items()
        }
        env = service_env(
            smtp_port=smtp_server.port,
            site_url="http://testserver",
            CELERY_TASK_ALWAYS_EAGER="1",
        )
        processes = Processes(env, tmp_path)
        try:
            beats = [
                start_fake_clock_beat(
                    processes, name, START.isoformat(), int(STEP.total_seconds()), STEPS, key
                )
                for name in BEATS
            ]
            for step in range(STEPS):
                client.set(f"{key}:clock", step)

                def stepped(step: int = step) -> bool:
                    for name, beat in zip(BEATS, beats, strict=True):
                        assert beat.poll() is None, f"{name} exited:\n{processes.log(name)[-3000:]}"
                    done = [client.get(f"{key}:done:{name}") for name in BEATS]
                    return all(value is not None and int(value) >= step for value in done)

                wait_until(stepped, 60, f"both beats to finish step {step}", 0.002)
        finally:
            processes.stop_all()
            client.delete(f"{key}:clock", *(f"{key}:done:{name}" for name in BEATS))

    for path, hours in REVISITS.items():
        runs = CrawlRun.objects.filter(site=sites[path]).order_by("started_at")
        started = [step_of(run.started_at) for run in runs]
        assert started == due_steps(hours), f"{path} site crawled at steps {started}"
        assert all(run.status == CrawlRun.Status.FINISHED for run in runs)

    mails = Counter(str(message["To"]) for message in smtp_server.messages)
    assert mails == expected_mail
    digests = Counter(Digest.objects.values_list("user__email", flat=True))
    assert digests == {email: n for email, n in expected_mail.items() if email != "gus@example.com"}
    assert Digest.objects.exclude(status=Digest.Status.SENT).count() == 0
    sent = Counter(
        Delivery.objects.filter(status=Delivery.Status.SENT).values_list("address", flat=True)
    )
    assert sent == expected_mail and not Delivery.objects.exclude(status="sent").exists()
    assert not Match.objects.undelivered().exists()
