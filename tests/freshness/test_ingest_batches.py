"""Ingest keeps up with the crawl: the versions one crawl step stores leave as one task.

A crawl task gathers the versions it hands on and gives them to clipping once per heartbeat
(and at its end): one `ingest_versions` task on the publish queue carries many pages, and
the instant mails are queued after their ingest.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from celery.signals import after_task_publish

from clipping.models import Match
from crawler import hooks, tasks
from crawler.models import PageVersion
from tests.crawler.sites import article, hub, make_site, news_site
from tests.factories import make_list

pytestmark = pytest.mark.django_db(transaction=True)

ARTICLES = 12
STORIES = [
    ("Ferry strike", "Ferry crews at the harbour walked out over rosters and pay on Monday."),
    ("New crane", "A giant crane arrived at the harbour to unload container ships faster."),
    ("Fish market", "The old fish market by the harbour reopens after a two-year rebuild."),
    ("Storm damage", "Winter storms broke the harbour wall; repairs will cost four million."),
]


@pytest.fixture(autouse=True)
def _index_refreshed_at_once(settings):
    settings.CLIPPING_INDEX_REFRESH_SECONDS = 0


class Sent(list):
    """Tasks published to the broker in a test: (task name, args)."""

    def record(self, sender: str | None = None, headers=None, body=None, **kwargs) -> None:  # type: ignore[no-untyped-def]
        args = body[0] if isinstance(body, (list, tuple)) and body else ()
        self.append(((headers or {}).get("task", sender), list(args)))

    def named(self, name: str) -> list[list[object]]:
        return [args for task, args in self if task == name]


@pytest.fixture
def sent() -> Iterator[Sent]:
    recorder = Sent()
    after_task_publish.connect(recorder.record, weak=False)
    yield recorder
    after_task_publish.disconnect(recorder.record)


def test_a_crawl_hands_its_versions_to_clipping_in_batches_not_one_task_per_page(server, sent):
    news_site(server, articles=ARTICLES)
    site = make_site(server)

    tasks.crawl_site.apply(args=[site.id])

    handed_on = set(
        PageVersion.objects.filter(page__site=site, has_information=True).values_list(
            "id", flat=True
        )
    )
    batches = sent.named("clipping.tasks.ingest_versions")
    assert len(handed_on) >= ARTICLES
    assert sent.named("clipping.tasks.ingest_version") == []
    assert len(batches) < len(handed_on)  # many pages per task
    assert sorted(v for (ids,) in batches for v in ids) == sorted(handed_on)  # each once


def test_outside_a_crawl_each_committed_version_goes_alone():
    batches: list[list[int]] = []
    hooks.register_batch_handler(batches.append)
    assert hooks.batch_handlers()[-1] == batches.append
    try:
        hooks.hand_on(7)
        with hooks.gathering():
            hooks.hand_on(8)
            hooks.hand_on(9)
            assert batches == [[7]]  # gathered, waiting for the flush
            assert hooks.flush() == 2
            hooks.hand_on(10)
        assert batches == [[7], [8, 9], [10]]  # the end of the gathering flushes the rest
    finally:
        hooks.unregister_batch_handler(batches.append)
    assert batches.append not in hooks.batch_handlers()


def test_one_batch_makes_the_clips_and_then_the_mail_of_every_page(
    server, alice, smtp_server, eager_celery
):
    make_list(alice, "Harbour", "harbour")
    paths = [f"/news/{n}" for n in range(len(STORIES))]
    server.html("/", hub("Home", [(p, f"Story {p}") for p in paths]))
    for path, (title, text) in zip(paths, STORIES, strict=True):
        server.html(path, article(title, text))
    site = make_site(server)

    tasks.crawl_site.apply(args=[site.id])

    matches = Match.objects.filter(owner=alice)
    assert sorted(m.clip.url for m in matches) == sorted(server.url(p) for p in paths)
    assert all(m.mail_status == "sent" for m in matches)
    assert len(smtp_server.to("alice@example.com")) == len(paths)
