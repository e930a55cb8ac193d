"""The whole path on real services: crawler hook -> Redis -> Celery worker -> ingest -> SMTP.

A page version stored the way the crawler stores it is handed on; a real worker consumes the
tasks from Redis, the real analyzer and keyword index find the clips, and the mails reach a
real SMTP server: one instant mail, and a digest at the reader's hour.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from clipping import tasks
from clipping.models import Clip, Digest, Match
from crawler import hooks
from tests.clipping.pages import SOLAR, article
from tests.factories import make_list, make_site, store_version
from tests.servers import queue_worker

pytestmark = pytest.mark.django_db(transaction=True)

URL = "https://news.example.com/news/solar"


def wait_for(condition: Callable[[], bool], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the worker did not get there in time")
        time.sleep(0.2)


@pytest.fixture
def worker(settings) -> Iterator[None]:
    """A Celery worker thread consuming this test run's own publish queue on the real broker."""
    settings.CLIPPING_INDEX_REFRESH_SECONDS = 0
    with queue_worker("clipping.tasks.*", "publish-test"):
        yield


@pytest.mark.slow
def test_a_crawled_page_reaches_its_readers_by_instant_mail_and_by_digest(
    worker, alice, bob, smtp_server
):
    site = make_site()
    make_list(alice, "Energy", "subsidy")
    bob.delivery_mode = "daily"
    bob.digest_hour = timezone.now().hour  # his digest time is the start of this hour (UTC)
    bob.save()
    make_list(bob, "Housing", "tenants")

    with transaction.atomic():  # what the crawler does when it stores a changed page
        version = store_version(site, URL, article("Council backs solar subsidies", SOLAR))
        hooks.hand_on(version.id)

    wait_for(lambda: len(smtp_server.to("alice@example.com")) == 1)
    (instant,) = smtp_server.to("alice@example.com")
    assert instant["Subject"] == "[Webclip] Energy: Council backs solar subsidies"
    clip = Clip.objects.get()
    assert clip.url == URL and clip.page_version_id == version.id
    # The worker records the send just after the server took the message.
    wait_for(lambda: Match.objects.get(owner=alice).mail_status == "sent")
    bobs = Match.objects.get(owner=bob)
    assert bobs.mail_status == "pending" and smtp_server.to("bob@example.com") == []

    # The match was made before Bob's digest time; the periodic task sends his digest.
    Match.objects.filter(id=bobs.id).update(created_at=timezone.now() - timedelta(days=1))
    tasks.publish_due.delay()

    wait_for(lambda: len(smtp_server.to("bob@example.com")) == 1)
    (digest,) = smtp_server.to("bob@example.com")
    assert digest["Subject"] == "[Webclip] Daily digest: 1 new clip"
    assert (
        "Council backs solar subsidies" in digest.get_body(preferencelist=("plain",)).get_content()
    )
    wait_for(lambda: Digest.objects.get().status == "sent")
    assert len(smtp_server.messages) == 2
