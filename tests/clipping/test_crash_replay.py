"""Crash and replay: a real Celery worker SIGKILLed at random points of crawl, ingest and send.

Each run crawls a tiny site of its own (a front page and three articles, served on 127.0.0.1)
for one reader with one keyword list, on a real worker process reading Redis, writing to
PostgreSQL and mailing a real SMTP server. The worker is killed once per run, either whole
(main and pool process: nothing is given back to the broker) or only its pool process (the
main process gives the message back at once). Then the worker is restarted and left to
finish, with time made to pass for the leases (as `test_faults` does: moved back rather than
waited for) and beat's periodic sweep run; every effect must then exist exactly once.

Kill points come from a fixed seed: when a table gains its k-th row for the run's site
(a page version, a clip, a match, a delivery attempt) or the SMTP server its k-th message,
plus a random delay of up to 50 ms, or simply a random delay after the crawl is queued.
"""

from __future__ import annotations

import random
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError

from clipping import ingest, tasks
from clipping.conf import SEND_RETRY_BACKOFF_MAX
from clipping.models import Clip, Delivery, Digest, Match
from clipping.publisher import ABANDONED
from crawler.models import CrawlRun, PageVersion, Site
from crawler.run.claims import CrawlAlreadyRunning, start_run
from crawler.tasks import crawl_site, dispatch_due_sites
from tests.clipping.pages import RAIL, SOLAR, article
from tests.crawler.servers import SiteServer
from tests.crawler.sites import Published
from tests.e2e.processes import (
    UNPACED,
    Processes,
    age_unacked,
    broker_idle,
    kill_pool_child,
    purge_queues,
    service_env,
    wait_for_log,
    wait_until,
)
from tests.factories import active_index, make_list, make_site, store_version
from tests.servers import free_port

RUNS = 30
SEED = 20261124
ARTICLES = 3
# Time made to pass after a crash: beyond every lease (claims, heartbeats, the broker's
# visibility timeout, the longest retry backoff).
AN_HOUR_AND_MORE = timedelta(seconds=max(3600, SEND_RETRY_BACKOFF_MAX) + 120)

TOWNS = ["Arden", "Brill", "Calder", "Dunmore", "Elston", "Fairholm", "Glenrock", "Harrow"]
THINGS = ["heat pumps", "roof panels", "home batteries", "bike lanes", "tram lines", "insulation"]
GROUPS = ["farmers", "tenants", "schools", "small firms", "pensioners", "landlords", "students"]
VERBS = ["approved", "rejected", "delayed", "doubled", "halved", "reviewed"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]


def paragraph(rng: random.Random, *, keyword: bool) -> str:
    """Return two sentences of made-up local news, with the keyword or without."""
    town, thing, group = rng.choice(TOWNS), rng.choice(THINGS), rng.choice(GROUPS)
    aid = "subsidies" if keyword else "grants"
    return (
        f"On {rng.choice(DAYS)} the {town} council {rng.choice(VERBS)} {rng.randint(2, 950)} "
        f"million euros of {aid} for {thing} used by {group}. "
        f"A spokesman for the {rng.choice(GROUPS)} of {rng.choice(TOWNS)} said the "
        f"{rng.choice(THINGS)} would be ready within {rng.randint(2, 40)} months."
    )


def article_page(title: str, paragraphs: list[str]) -> str:
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>{title}</title></head><body>
<nav><ul><li><a href="../">Home</a></li></ul></nav>
<main><article><h1>{title}</h1><p class="byline">By Ann Writer</p>
<div class="article-body">{body}</div></article></main>
<footer><p>Copyright The Crash Gazette.</p></footer></body></html>"""


def front_page(links: list[tuple[str, str]]) -> str:
    items = "".join(f'<li><a href="{href}">{title}</a></li>' for href, title in links)
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>The Crash Gazette</title></head><body><h1>The Crash Gazette</h1>
<ul class="stories">{items}</ul></body></html>"""


def publish_site(server: SiteServer, run: int, rng: random.Random) -> dict[str, str]:
    """Serve run `run`'s front page and articles under /r<run>/; return {url: title}."""
    articles = {}
    for n in range(ARTICLES):
        title = f"Run {run} story {n}: {rng.choice(TOWNS)} votes on {rng.choice(THINGS)}"
        path = f"/r{run}/story-{n}"
        paragraphs = [paragraph(rng, keyword=k == 1) for k in range(4)]
        server.html(path, article_page(title, paragraphs))
        articles[server.url(path)] = title
    server.html(
        f"/r{run}/",
        front_page([(url.rsplit("/", 1)[1], title) for url, title in articles.items()]),
    )
    return articles


@dataclass(frozen=True)
class KillPoint:
    """Where a run kills its worker: `delay` seconds after the k-th row of `stage` appears."""

    whole: bool  # the whole worker, or only its pool process
    stage: str  # "delay", or the table (or "smtp") whose k-th row triggers the kill
    k: int
    delay: float

    def __str__(self) -> str:
        what = "the whole worker" if self.whole else "the pool process"
        when = f"when {self.stage} #{self.k} appears" if self.stage != "delay" else "after"
        return f"kill {what} {when} (+{self.delay * 1000:.0f} ms)"


def kill_points(seed: int, runs: int) -> list[KillPoint]:
    rng = random.Random(seed)
    points = []
    for _ in range(runs):
        stage = rng.choice(["delay", "version", "clip", "match", "delivery", "smtp"])
        k = {"version": rng.randint(1, ARTICLES + 1), "delay": 0}.get(stage, rng.randint(1, 3))
        delay = rng.uniform(0, 1.5) if stage == "delay" else rng.uniform(0, 0.05)
        points.append(KillPoint(rng.random() < 0.5, stage, k, delay))
    return points


@dataclass
class Pipeline:
    """The worker, the SMTP server and the reader, shared by every run."""

    processes: Processes
    smtp: object
    server: SiteServer
    reader: object
    starts: int = 0
    worker_name: str = ""
    accepted_duplicates: list[str] = field(default_factory=list)

    def start_worker(self) -> None:
        self.starts += 1
        self.worker_name = f"worker-{self.starts}"
        self.processes.worker(self.worker_name, "crawl,render,publish,celery")
        wait_for_log(self.processes, self.worker_name, " ready.")

    def trigger(self, site: Site, titles: set[str], point: KillPoint) -> Callable[[], bool]:
        """Return the condition after which the run's worker is killed."""
        counts = {
            "delay": lambda: 0,
            "version": lambda: PageVersion.objects.filter(page__site=site).count(),
            "clip": lambda: Clip.objects.filter(site=site).count(),
            "match": lambda: Match.objects.filter(clip__site=site).count(),
            "delivery": lambda: Delivery.objects.filter(match__clip__site=site).count(),
            "smtp": lambda: sum(clip_title(m) in titles for m in self.smtp.messages),
        }
        count = counts[point.stage]
        return lambda: count() >= point.k


def clip_title(message) -> str:
    """Return the clip title of a clip mail's subject, "[Webclip] <list>: <title>"."""
    return str(message["Subject"]).split(": ", 1)[-1]


def let_time_pass(delta: timedelta) -> None:
    """Move every lease and claim back by `delta`, as if that much time had passed."""
    Match.objects.filter(claimed_at__isnull=False).update(claimed_at=F("claimed_at") - delta)
    Match.objects.update(created_at=F("created_at") - delta)
    Digest.objects.filter(claimed_at__isnull=False).update(claimed_at=F("claimed_at") - delta)
    Delivery.objects.update(created_at=F("created_at") - delta)
    PageVersion.objects.update(fetched_at=F("fetched_at") - delta)
    CrawlRun.objects.filter(finished_at__isnull=True).update(heartbeat_at=F("heartbeat_at") - delta)
    age_unacked(delta.total_seconds())


def finished(site: Site, articles: dict[str, str]) -> bool:
    """The crawl is over, every article has its clip, and no mail is left to send."""
    return (
        CrawlRun.objects.filter(site=site, status=CrawlRun.Status.FINISHED).exists()
        and Clip.objects.filter(site=site, url__in=articles).values("url").distinct().count()
        == len(articles)
        and not Match.objects.filter(clip__site=site).undelivered().exists()
    )


def state(site: Site, articles: dict[str, str]) -> str:
    """Describe how far the run's work got, for a failure message."""
    runs = list(CrawlRun.objects.filter(site=site).values_list("status", "stop_reason"))
    versions = PageVersion.objects.filter(page__site=site)
    clips = sorted(Clip.objects.filter(site=site).values_list("url", flat=True))
    undelivered = Match.objects.filter(clip__site=site).undelivered().count()
    return (
        f"runs {runs}, {versions.count()} versions "
        f"({versions.filter(has_information=True).count()} informational), "
        f"clips {clips} of {sorted(articles)}, {undelivered} undelivered match(es)"
    )


def recover(pipeline: Pipeline, site: Site, articles: dict[str, str], timeout: float) -> None:
    """Let the restarted worker finish; when it idles with work left, let time pass and sweep."""
    deadline = time.monotonic() + timeout
    while True:
        wait_until(broker_idle, max(1.0, deadline - time.monotonic()), "the worker to idle", 0.05)
        time.sleep(0.2)  # a task acknowledged just now may still be committing
        if broker_idle() and finished(site, articles):
            return
        if not broker_idle():
            continue
        if time.monotonic() > deadline:
            raise AssertionError(
                f"the work was not finished after recovery: {state(site, articles)}"
            )
        # What an hour of beat does for work whose worker died: the sweeps find it again. A
        # whole worker killed between taking a message off Redis and recording it as unacked
        # loses that message (kombu's Redis transport): a lost crawl leaves the site due, a
        # lost ingest leaves its versions unlooked-at.
        let_time_pass(AN_HOUR_AND_MORE)
        dispatch_due_sites()
        tasks.publish_due.delay()
        time.sleep(0.3)


def effects(pipeline: Pipeline, site: Site, articles: dict[str, str]) -> list[str]:
    """Return every effect of the run that is not there exactly once.

    The one duplicate the publisher documents is told apart, not forgiven silently: the
    worker died after the SMTP server took the message and before it could record that, so
    the attempt was abandoned and the mail sent again under the same Message-ID.
    """
    wrong = []
    reader = pipeline.reader
    clips = Counter(Clip.objects.filter(site=site).values_list("url", flat=True))
    matches = Counter(Match.objects.filter(clip__site=site).values_list("clip__url", flat=True))
    sent = Counter(
        Delivery.objects.filter(match__clip__site=site, status=Delivery.Status.SENT).values_list(
            "match__clip__url", flat=True
        )
    )
    abandoned = Counter(
        Delivery.objects.filter(match__clip__site=site, error=ABANDONED).values_list(
            "match__clip__url", flat=True
        )
    )
    mails: dict[str, list[str]] = {}
    for message in pipeline.smtp.to(reader.email):
        mails.setdefault(clip_title(message), []).append(str(message["Message-ID"]))
    for url, title in articles.items():
        copies = mails.get(title, [])
        if len(copies) == 2 and len(set(copies)) == 1 and abandoned[url] == 1:
            pipeline.accepted_duplicates.append(url)
            copies = copies[:1]
        for what, count in [
            ("clip", clips[url]),
            ("match", matches[url]),
            ("sent delivery", sent[url]),
            ("mail", len(copies)),
        ]:
            if count != 1:
                wrong.append(f"{count} {what}(s) of {url}")
    extra = set(clips) - set(articles)
    if extra:
        wrong.append(f"clips of pages that are no articles: {sorted(extra)}")
    left = Delivery.objects.filter(match__clip__site=site, status=Delivery.Status.SENDING)
    if left.exists():
        wrong.append(f"{left.count()} delivery attempt(s) left sending")
    return wrong


@pytest.fixture
def pipeline(alice, smtp_server, tmp_path) -> Iterator[Pipeline]:
    # Without synonyms no pool process spends seconds loading WordNet after each kill.
    make_list(alice, "Subsidies", "subsidy", use_synonyms=False)
    purge_queues()
    env = service_env(
        smtp_port=smtp_server.port,
        site_url="http://testserver",
        CLIPPING_INDEX_REFRESH_SECONDS="0",
        CRAWLER_HEARTBEAT_TIMEOUT="5",
        **UNPACED,
        # Every mail of the runs goes one by one: none waits for the hourly digest.
        CLIPPING_INSTANT_MAILS_PER_HOUR="100000",
    )
    processes = Processes(env, tmp_path)
    with SiteServer() as server:
        pipe = Pipeline(processes, smtp_server, server, alice)
        try:
            yield pipe
        finally:
            processes.stop_all()
            purge_queues()


@pytest.mark.slow
@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_anywhere_in_crawl_ingest_and_send_loses_and_doubles_nothing(
    pipeline: Pipeline,
):
    rng = random.Random(SEED)
    failures = []
    pipeline.start_worker()
    for run, point in enumerate(kill_points(SEED, RUNS)):
        articles = publish_site(pipeline.server, run, rng)
        site = Site.objects.create(
            name=f"Crash Gazette {run}",
            root_url=pipeline.server.url(f"/r{run}/"),
            allow_private_network=True,
            crawl_delay=0,
            page_budget=20,
        )
        trigger = pipeline.trigger(site, set(articles.values()), point)
        crawl_site.delay(site.id)
        wait_until(trigger, 60, f"run {run}: {point}", 0.005)
        time.sleep(point.delay)
        process = pipeline.processes.running[pipeline.worker_name]
        if point.whole:
            pipeline.processes.kill(pipeline.worker_name)
            # The broker would give the dead worker's message back after its visibility
            # timeout; the new worker restores it as it starts.
            age_unacked(AN_HOUR_AND_MORE.total_seconds())
            pipeline.start_worker()
        else:
            kill_pool_child(process)
        try:
            recover(pipeline, site, articles, timeout=60)
        except AssertionError as exc:
            failures.append(f"run {run} ({point}): {exc}")
            break
        wrong = effects(pipeline, site, articles)
        if wrong:
            failures.append(f"run {run} ({point}): " + "; ".join(wrong))
    assert not failures, "\n".join(failures)


# --- The windows a random kill rarely hits, each opened on purpose ------------------------------


def dead_pid() -> int:
    """Return the pid of a process of this host that has exited."""
    process = subprocess.Popen(["true"])  # noqa: S607
    process.wait()
    return process.pid


def running_crawl(site: Site, worker: str) -> CrawlRun:
    """Return an unfinished run of the site with a fresh heartbeat, as `worker` left it."""
    now = timezone.now()
    return CrawlRun.objects.create(
        site=site, strategy="bfs", started_at=now, heartbeat_at=now, page_budget=10, worker=worker
    )


def test_a_replayed_ingest_mails_what_its_killed_first_attempt_made(
    alice, site, smtp_server, eager_celery, django_capture_on_commit_callbacks
):
    make_list(alice, "Energy", "subsidy", use_synonyms=False)  # no WordNet to load
    version = store_version(site, "https://news.example.com/solar", article("Solar aid", SOLAR))
    # The first attempt committed its clip and match, and its worker died before queueing mail.
    assert ingest.ingest_version(version.id, index=active_index()).matches == 1

    with django_capture_on_commit_callbacks(execute=True):
        tasks.ingest_version.apply(args=[version.id])  # the broker redelivers the task
    with django_capture_on_commit_callbacks(execute=True):
        tasks.ingest_version.apply(args=[version.id])  # and once more, after it was mailed

    assert [str(m["Subject"]) for m in smtp_server.messages] == ["[Webclip] Energy: Solar aid"]
    assert Match.objects.get().mail_status == "sent"


def test_a_crawl_whose_worker_process_died_is_taken_over_and_its_versions_handed_on_again(
    alice, site, smtp_server, eager_celery, django_capture_on_commit_callbacks
):
    """A pool process killed mid-crawl: Celery redelivers at once, long before the heartbeat
    times out. The versions the dead run stored reach their readers once, whether or not the
    dead worker had handed them on."""
    make_list(alice, "News", "subsidy\nstrike", use_synonyms=False)
    active_index()
    dead = running_crawl(site, f"{socket.gethostname()}:{dead_pid()}")
    handed_on = store_version(site, "https://news.example.com/solar", article("Solar aid", SOLAR))
    lost = store_version(site, "https://news.example.com/rail", article("Rail strike", RAIL))
    PageVersion.objects.filter(id__in=[handed_on.id, lost.id]).update(run=dead)
    with django_capture_on_commit_callbacks(execute=True):
        tasks.ingest_version.apply(args=[handed_on.id])  # the one hand-on that went out

    with django_capture_on_commit_callbacks(execute=True):
        run = start_run(site, "bfs", 10)

    dead.refresh_from_db()
    assert dead.status == CrawlRun.Status.INTERRUPTED and dead.stop_reason == "worker-gone"
    assert run.finished_at is None
    assert sorted(str(m["Subject"]) for m in smtp_server.messages) == [
        "[Webclip] News: Rail strike",
        "[Webclip] News: Solar aid",
    ]
    assert Match.objects.filter(mail_status="sent").count() == 2


def test_a_crawl_whose_worker_process_lives_is_not_taken_over(site):
    with subprocess.Popen(["sleep", "30"]) as alive:  # noqa: S607
        try:
            running_crawl(site, f"{socket.gethostname()}:{alive.pid}")
            with pytest.raises(CrawlAlreadyRunning):
                start_run(site, "bfs", 10)
            # Another host's worker is judged by its heartbeat alone.
            CrawlRun.objects.update(worker=f"elsewhere.example:{dead_pid()}")
            with pytest.raises(CrawlAlreadyRunning):
                start_run(site, "bfs", 10)
        finally:
            alive.kill()


@contextmanager
def unreachable_broker() -> Iterator[None]:
    """Make this process publish to a port nothing listens on (Redis restarting), then back."""
    from config.celery_app import app

    def reconnect() -> None:
        app._pool = None  # the connection pool and producers are rebuilt on next use
        app.amqp._producer_pool = None

    app.conf.broker_write_url = f"redis://127.0.0.1:{free_port()}/0"
    reconnect()
    try:
        yield
    finally:
        app.conf.broker_write_url = None
        reconnect()


@pytest.mark.django_db(transaction=True)
def test_a_crawl_the_broker_refused_is_dispatched_again_on_the_next_tick():
    site = make_site()

    with unreachable_broker(), pytest.raises(OperationalError):
        dispatch_due_sites()
    assert Site.objects.due(timezone.now()).filter(id=site.id).exists()  # the claim came back

    with Published() as published:
        assert dispatch_due_sites() == 1
        assert dispatch_due_sites() == 0
    assert published == [("crawler.tasks.crawl_site", "crawl")]
