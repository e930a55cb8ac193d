"""Read the figures the operator dashboard shows, each in a fixed number of aggregated queries."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.cache import cache
from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from clipping.models import Clip, Delivery, Digest, Match
from crawler.conf import crawler_settings
from crawler.models import RUN_COUNTERS, CrawlRun, Site

# Runs drawn per site: enough to see a trend, few enough to keep one chart readable.
RUNS_PER_CHART = 30
# Failed matches and digests listed with a retry button; the rest are reachable in admin.
FAILED_SHOWN = 20
# Sent and failed attempts are counted over this window: all-time totals say little and scan a lot.
RECENT = timedelta(hours=24)
# Ingest runs on the publish queue after the crawl, so a run's clip count settles a while after
# it finished; a settled count is cached this long (bounding how stale a late ingest leaves it).
SETTLE_TIME = timedelta(minutes=15)
SETTLED_FOR = timedelta(hours=1)


@dataclass(frozen=True)
class RunPoint:
    """One run as a point of a site's charts."""

    id: int
    started_at: datetime
    status: str
    fetched: int
    new: int
    changed: int
    clips: int
    errors: int
    harvest_rate: float | None


@dataclass(frozen=True)
class MailQueue:
    """How much mail waits, is being sent, went out and failed."""

    undelivered: int
    sending: int
    sent_recently: int
    failed_attempts_recently: int
    failed_matches: int
    pending_digests: int
    failed_digests: int


@dataclass(frozen=True)
class Freshness:
    """How far publishing lags behind crawling: queue lengths and recent latencies."""

    queues: dict[str, int | None]  # broker queue -> messages waiting (None: unreadable)
    matches: int  # matches made in the window the latencies cover
    ingest_median: float | None  # seconds from a page's fetch to its match
    ingest_p90: float | None
    mail_median: float | None  # seconds from a match to its instant mail
    mail_p90: float | None


def harvest_rate(relevant: int, fetched: int) -> float | None:
    """Return accepted pages per fetched page, None before any fetch."""
    return round(relevant / fetched, 4) if fetched else None


def site_charts(sites: list[Site], per_site: int = RUNS_PER_CHART) -> dict[int, list[RunPoint]]:
    """Return the newest runs of each site, oldest first, with the clips each run produced.

    At most two queries whatever the number of sites and runs: the runs ranked per site by a
    window function, then the clips counted per run through the page versions the run stored.
    """
    newest_first = [F("started_at").desc(), F("id").desc()]
    runs = list(
        CrawlRun.objects.filter(site__in=sites)
        .annotate(rank=Window(RowNumber(), partition_by=[F("site_id")], order_by=newest_first))
        .filter(rank__lte=per_site)
        .order_by("site_id", "started_at", "id")
        .values("id", "site_id", "started_at", "finished_at", "status", "relevant", *RUN_COUNTERS)
    )
    clips = clips_per_run(runs)
    charts: dict[int, list[RunPoint]] = {site.pk: [] for site in sites}
    for run in runs:
        charts[run["site_id"]].append(
            RunPoint(
                id=run["id"],
                started_at=run["started_at"],
                status=run["status"],
                fetched=run["fetched"],
                new=run["new"],
                changed=run["changed"],
                clips=clips.get(run["id"], 0),
                errors=run["errors"],
                harvest_rate=harvest_rate(run["relevant"], run["fetched"]),
            )
        )
    return charts


def clips_per_run(runs: list[dict[str, object]]) -> dict[int, int]:
    """Count the clips each run's page versions produced, from the cache for settled runs.

    A finished run gains no clips once its pages are ingested, so its count is kept for
    SETTLED_FOR; runs under way or just finished are counted afresh, in one query with the
    runs the cache did not have.
    """
    settled_before = timezone.now() - SETTLE_TIME
    settled = {
        run["id"]: f"ops:run-clips:{run['id']}"
        for run in runs
        if run["finished_at"] is not None and run["finished_at"] < settled_before
    }
    cached = cache.get_many(list(settled.values()))
    counts = {run_id: cached[key] for run_id, key in settled.items() if key in cached}
    missing = [run["id"] for run in runs if run["id"] not in counts]
    if missing:
        fresh = dict(
            Clip.objects.filter(page_version__run_id__in=missing)
            .order_by()
            .values("page_version__run_id")
            .annotate(n=Count("id"))
            .values_list("page_version__run_id", "n")
        )
        fresh = {run_id: fresh.get(run_id, 0) for run_id in missing}
        cache.set_many(
            {settled[run_id]: n for run_id, n in fresh.items() if run_id in settled},
            timeout=SETTLED_FOR.total_seconds(),
        )
        counts.update(fresh)
    return counts


GAP_FIELDS = ("fetched", "new", "changed", "clips", "errors")


def chart_data(sites: list[Site], charts: dict[int, list[RunPoint]]) -> list[dict[str, object]]:
    """Return the charts as plain data for json_script (which writes datetimes as ISO 8601).

    A run that fetched nothing (failed at once, deferred, interrupted) measured nothing: its
    counts are null, which the chart draws as a gap, not as every line dropping to zero.
    """
    return [
        {"site": site.pk, "name": site.name, "runs": [_point(p) for p in charts[site.pk]]}
        for site in sites
    ]


def _point(point: RunPoint) -> dict[str, object]:
    # vars(), not asdict(): asdict deep-copies every field and cost tens of ms per page.
    if point.fetched:
        return vars(point)
    return {**vars(point), **dict.fromkeys(GAP_FIELDS)}


def running_runs() -> QuerySet[CrawlRun]:
    """Return the crawls under way, oldest first, with their sites."""
    return CrawlRun.objects.running().select_related("site").order_by("started_at", "id")


def run_progress(run: CrawlRun, now: datetime | None = None) -> dict[str, object]:
    """Return a running crawl's counters, budget and liveness as JSON-ready data."""
    now = now or timezone.now()
    silent = (now - run.heartbeat_at).total_seconds()
    return {
        "id": run.pk,
        "site": run.site_id,
        "site_name": run.site.name,
        "strategy": run.strategy,
        "status": run.status,
        "started_at": run.started_at.isoformat(),
        "heartbeat_at": run.heartbeat_at.isoformat(),
        "stale": silent > crawler_settings().heartbeat_timeout,
        "page_budget": run.page_budget,
        **{name: getattr(run, name) for name in RUN_COUNTERS},
        "harvest_rate": harvest_rate(run.relevant, run.fetched),
    }


def mail_queue(now: datetime | None = None) -> MailQueue:
    """Count the mail queue; each query reads only the rows it counts, through an index.

    Sent and failed rows pile up forever, so nothing here scans them: pending and failed
    matches, open digests and sending attempts have partial indexes, and recent attempts
    are found through (status, created_at).
    """
    now = now or timezone.now()
    undelivered = Match.objects.undelivered().count()
    failed_matches = Match.objects.filter(mail_status=Match.MailStatus.FAILED).count()
    recent = Q(
        status__in=[Delivery.Status.SENT, Delivery.Status.FAILED], created_at__gte=now - RECENT
    )
    deliveries = Delivery.objects.filter(Q(status=Delivery.Status.SENDING) | recent).aggregate(
        sending=Count("id", filter=Q(status=Delivery.Status.SENDING)),
        sent_recently=Count("id", filter=Q(status=Delivery.Status.SENT)),
        failed_attempts_recently=Count("id", filter=Q(status=Delivery.Status.FAILED)),
    )
    digests = Digest.objects.filter(
        status__in=[Digest.Status.PENDING, Digest.Status.FAILED]
    ).aggregate(
        pending_digests=Count("id", filter=Q(status=Digest.Status.PENDING)),
        failed_digests=Count("id", filter=Q(status=Digest.Status.FAILED)),
    )
    return MailQueue(
        undelivered=undelivered, failed_matches=failed_matches, **deliveries, **digests
    )


def _last_error(field: str) -> Subquery:
    attempts = Delivery.objects.filter(**{field: OuterRef("pk")}, status=Delivery.Status.FAILED)
    return Subquery(attempts.order_by("-created_at", "-id").values("error")[:1])


def _match_count() -> Subquery:
    matches = Match.objects.filter(digest=OuterRef("pk")).order_by().values("digest")
    return Subquery(matches.annotate(n=Count("id")).values("n")[:1])


def failed_matches(limit: int = FAILED_SHOWN) -> QuerySet[Match]:
    """Return instant matches given up as failed, newest first, with their last error."""
    return (
        Match.objects.filter(mail_status=Match.MailStatus.FAILED, digest__isnull=True)
        .select_related("owner", "clip", "keyword_list")
        .annotate(last_error=_last_error("match"))
        .order_by("-created_at", "-id")[:limit]
    )


def failed_digests(limit: int = FAILED_SHOWN) -> QuerySet[Digest]:
    """Return digests given up as failed, newest first, with their last error and size."""
    return (
        Digest.objects.filter(status=Digest.Status.FAILED)
        .select_related("user")
        .annotate(last_error=_last_error("digest"), match_count=_match_count())
        .order_by("-period", "-id")[:limit]
    )


# The Celery queues (config/settings.py CELERY_TASK_ROUTES) and the window latencies cover.
QUEUES = ("crawl", "watch", "render", "publish", "celery")
LATENCY_WINDOW = timedelta(hours=1)
LATENCY_SAMPLE = 500


def queue_lengths(names: tuple[str, ...] = QUEUES) -> dict[str, int | None]:
    """Return the messages waiting in each broker queue (None when the broker cannot say).

    A passive declare asks the broker without creating anything: Redis counts the list,
    the filesystem transport the queue's message files.
    """
    from celery import current_app
    from kombu.exceptions import ChannelError

    lengths: dict[str, int | None] = dict.fromkeys(names)
    try:
        with current_app.connection_for_read() as connection:
            connection.ensure_connection(max_retries=1)
            channel = connection.default_channel
            for name in names:
                try:
                    lengths[name] = channel.queue_declare(queue=name, passive=True).message_count
                except ChannelError:
                    lengths[name] = 0  # never declared: nothing was ever queued there
    except Exception:  # a broker that is down must not take the dashboard with it
        return dict.fromkeys(names)
    return lengths


def freshness(now: datetime | None = None) -> Freshness:
    """Return queue lengths and, over the last hour's matches, fetch->match and match->mail."""
    now = now or timezone.now()
    rows = list(
        Match.objects.filter(created_at__gte=now - LATENCY_WINDOW)
        .order_by("-created_at")
        .values_list("created_at", "clip__seen_at", "delivered_at", "digest_id")[:LATENCY_SAMPLE]
    )
    ingest = [(made - seen).total_seconds() for made, seen, _, _ in rows]
    mail = [(sent - made).total_seconds() for made, _, sent, digest in rows if sent and not digest]
    return Freshness(
        queues=queue_lengths(),
        matches=len(rows),
        ingest_median=percentile(ingest, 50),
        ingest_p90=percentile(ingest, 90),
        mail_median=percentile(mail, 50),
        mail_p90=percentile(mail, 90),
    )


def percentile(values: list[float], pct: float) -> float | None:
    """Return the pct-th percentile (nearest rank) of values, None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(pct / 100 * len(ordered) + 0.5)))
    return round(ordered[rank - 1], 1)
