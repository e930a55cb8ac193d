"""Crawl runs: one row per crawl of a site, also the claim that stops two crawls at once."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

RUN_COUNTERS = (
    "fetched",
    "new",
    "changed",
    "unchanged",
    "errors",
    "misses",
    "robots_skipped",
    "rendered",
    "relevant",
    "hub_fetches",
    "post_fetches",
    "trap_fetches",
    "duplicate_fetches",
    "search_fetches",
)


class CrawlRunQuerySet(models.QuerySet["CrawlRun"]):
    def running(self) -> CrawlRunQuerySet:
        return self.filter(finished_at__isnull=True)

    def finished(self) -> CrawlRunQuerySet:
        return self.filter(finished_at__isnull=False)


class CrawlRun(models.Model):
    """One crawl of a site with its counters and the reason it stopped."""

    class Status(models.TextChoices):
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        FAILED = "failed", pgettext_lazy("status", "Failed")
        INTERRUPTED = "interrupted", _("Interrupted")

    site = models.ForeignKey("crawler.Site", on_delete=models.CASCADE, related_name="runs")
    strategy = models.CharField(max_length=20)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.RUNNING)
    started_at = models.DateTimeField(default=timezone.now)
    heartbeat_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(
        max_length=200, blank=True, help_text="host:pid of the process running it."
    )
    page_budget = models.PositiveIntegerField(default=0)
    fetched = models.PositiveIntegerField(default=0)
    new = models.PositiveIntegerField(default=0)
    changed = models.PositiveIntegerField(default=0)
    unchanged = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(
        default=0, help_text="Fetches that failed: no connection, a timeout, a server error."
    )
    misses = models.PositiveIntegerField(
        default=0, help_text="Fetches of pages that are not there (404, 410): no failure."
    )
    robots_skipped = models.PositiveIntegerField(default=0)
    rendered = models.PositiveIntegerField(default=0)
    relevant = models.PositiveIntegerField(
        default=0,
        help_text="Fetched pages the strategy accepted as topical (xCrawl's validator; "
        "information pages for breadth-first).",
    )
    hub_fetches = models.PositiveIntegerField(
        default=0, help_text="Fetches of hub pages: lists, pagers, feeds, sitemaps."
    )
    post_fetches = models.PositiveIntegerField(
        default=0, help_text="Fetches of information pages (articles, posts)."
    )
    trap_fetches = models.PositiveIntegerField(
        default=0,
        help_text="Fetches of URL shapes found to be traps (endless calendars, empty pagers).",
    )
    duplicate_fetches = models.PositiveIntegerField(
        default=0, help_text="Fetches of copies whose rel=canonical names another URL."
    )
    search_fetches = models.PositiveIntegerField(
        default=0, help_text="Fetches of the site's search result pages."
    )
    teaser_articles = models.PositiveIntegerField(
        default=0,
        help_text="Articles reached because a hub's teaser or link text held someone's keyword.",
    )
    download_fetches = models.PositiveIntegerField(
        default=0,
        help_text="Fetches xCrawl's DownloadAllAuthorities spent on the pages topical hubs list.",
    )
    download_relevant = models.PositiveIntegerField(
        default=0, help_text="Of those, pages the validator accepted (the downloads' harvest)."
    )
    learned = models.JSONField(
        default=dict,
        blank=True,
        help_text="What the run learnt: topic terms, trap and copy URL shapes, host aliases.",
    )
    stop_reason = models.CharField(max_length=40, blank=True)
    error = models.TextField(blank=True)

    objects = CrawlRunQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "-id"]
        get_latest_by = "started_at"
        constraints = [
            models.UniqueConstraint(
                fields=["site"],
                condition=Q(finished_at__isnull=True),
                name="crawler_one_running_crawl_per_site",
            )
        ]

    def __str__(self) -> str:
        return f"{self.site} run {self.pk} ({self.status})"

    @property
    def download_harvest(self) -> float | None:
        """Accepted pages per DownloadAllAuthorities fetch, None when it fetched nothing."""
        return self.download_relevant / self.download_fetches if self.download_fetches else None

    @property
    def harvest_rate(self) -> float | None:
        """Accepted pages per fetched page (xCrawl's harvest rate), None before any fetch."""
        return self.relevant / self.fetched if self.fetched else None
