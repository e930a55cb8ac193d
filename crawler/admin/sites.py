"""Crawler admin: sites with their crawl status, runs, and pages with their versions."""

from __future__ import annotations

from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.db import models
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.http import HttpRequest
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.timezone import localtime

from crawler.admin.lessons import run_economy
from crawler.admin.records import RecordAdmin
from crawler.admin.xcrawl import SampleDocumentInline, SiteSearchInline, download_rows
from crawler.models import CrawlRun, Link, Page, PageVersion, Site
from crawler.tasks import enqueue_crawl

_LAST_RUN_FIELDS = (
    "id",
    "started_at",
    "status",
    "new",
    "changed",
    "errors",
    "robots_skipped",
    "fetched",
    "relevant",
)


STORED_SHOWN = 50  # versions listed on a run's page
RECENT_RUNS = 10  # runs shown on a site's page; the rest are one link away
_RUN_COLUMNS = (
    "Started",
    "Took",
    "Status",
    "Strategy",
    "Fetched",
    "New",
    "Changed",
    "Unchanged",
    "Errors",
    "Robots-skipped",
    "Harvest",
    "Stopped",
)


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "–"


def _duration(run: CrawlRun) -> str:
    if run.finished_at is None:
        return "running"
    seconds = int((run.finished_at - run.started_at).total_seconds())
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


def _filtered(changelist: str, site: Site) -> str:
    """Return the URL of an admin changelist filtered to one site."""
    return f"{reverse(changelist)}?{urlencode({'site__id__exact': site.pk})}"


class SiteForm(forms.ModelForm):
    """The site form; left out, visibility and approval keep their value (shared, approved)."""

    class Meta:
        model = Site
        fields = ["visibility", "approval"]  # the admin gives the rest from its fieldsets

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        for name in ("visibility", "approval"):
            if name in self.fields:
                self.fields[name].required = False


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin):
    form = SiteForm
    # Approval, who added it and visibility first: the columns a reviewer acts on stay on
    # screen at 1280 px, before the crawl figures.
    list_display = [
        "name",
        "approval",
        "added_by",
        "visibility",
        "enabled",
        "root_url",
        "strategy",
        "needs_browser",
        "last_run",
        "pages",
        "last_new",
        "last_changed",
        "last_errors",
        "last_robots_skipped",
        "harvest_rate",
        "next_crawl_at",
    ]
    list_filter = ["enabled", "strategy", "needs_browser", "visibility", "approval"]
    search_fields = ["name", "root_url", "added_by__email"]
    actions = ["crawl_now", "share", "make_private", "approve", "deny"]
    list_select_related = ["added_by"]
    autocomplete_fields = ["added_by"]
    filter_horizontal = ["subscribers"]
    readonly_fields = ["recent_runs"]
    inlines = [SampleDocumentInline, SiteSearchInline]
    # A root URL typed without a scheme ("example.com") is taken as https, Django 6's default.
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    fieldsets = [
        (None, {"fields": ["name", "root_url", "seed_urls", "allowed_hosts", "enabled"]}),
        (
            "Strategy",
            {
                "description": (
                    "Max depth counts the links followed from a seed to reach a page, through "
                    "hubs and articles. The pages of one paginated list (page=N, /page/N/, "
                    "rel=next, “older posts”) are one hub: clicking through them does not "
                    "count, so old articles of a long list stay within reach. Calendars and "
                    "other endless generated pages are stopped by trap detection instead."
                ),
                "fields": [
                    "strategy",
                    "page_budget",
                    "max_depth",
                    "revisit_interval",
                    "feed_poll_interval",
                    "min_hub_revisit",
                    "min_page_revisit",
                    "max_page_revisit",
                ],
            },
        ),
        (
            "Politeness and safety",
            {
                "fields": [
                    "crawl_delay",
                    "obey_robots",
                    "exclude_patterns",
                    "needs_browser",
                    "allow_private_network",
                ]
            },
        ),
        (
            "People",
            {
                "fields": ["visibility", "approval", "review_note", "added_by", "subscribers"],
                "description": "A site a person added is private (their clips only) until it "
                "is shared; only approved sites are crawled.",
            },
        ),
        ("Recent runs", {"fields": ["recent_runs"]}),
    ]

    def get_fieldsets(self, request: HttpRequest, obj: Site | None = None):  # type: ignore[no-untyped-def]
        fieldsets = super().get_fieldsets(request, obj)
        return fieldsets if obj is not None else fieldsets[:-1]

    @admin.display(description="Runs")
    def recent_runs(self, site: Site) -> str:
        runs = list(site.runs.order_by("-started_at", "-id")[:RECENT_RUNS])
        if not runs:
            return "No runs yet."
        rows = format_html_join(
            "",
            '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>'
            "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    reverse("admin:crawler_crawlrun_change", args=[run.pk]),
                    date_format(localtime(run.started_at), "DATETIME_FORMAT"),
                    _duration(run),
                    run.get_status_display(),
                    run.strategy,
                    run.fetched,
                    run.new,
                    run.changed,
                    run.unchanged,
                    run.errors,
                    run.robots_skipped,
                    _percent(run.relevant, run.fetched),
                    run.stop_reason or "–",
                )
                for run in runs
            ),
        )
        head = format_html_join("", "<th>{}</th>", ((label,) for label in _RUN_COLUMNS))
        total = site.runs.count()
        pages = site.pages.fetched().count()
        footer = format_html(
            '<p>Showing the last {} of {} runs: <a href="{}">all runs of this site</a> · '
            '<a href="{}">its {} fetched pages</a></p>',
            len(runs),
            total,
            _filtered("admin:crawler_crawlrun_changelist", site),
            _filtered("admin:crawler_page_changelist", site),
            pages,
        )
        return format_html(
            '<table class="crawl-runs"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>{}',
            head,
            rows,
            footer,
        )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Site]:
        last = CrawlRun.objects.filter(site=OuterRef("pk")).order_by("-started_at", "-id")
        annotations = {f"last_{name}": Subquery(last.values(name)[:1]) for name in _LAST_RUN_FIELDS}
        return (
            super()
            .get_queryset(request)
            .annotate(**annotations)
            .annotate(
                page_count=Count(
                    "pages", filter=Q(pages__last_fetched_at__isnull=False), distinct=True
                )
            )
        )

    @admin.display(description="Last run", ordering="last_started_at")
    def last_run(self, site: Site) -> str:
        if not site.last_id:
            return "never"
        url = reverse("admin:crawler_crawlrun_change", args=[site.last_id])
        started = f"{site.last_started_at:%Y-%m-%d %H:%M}"
        return format_html('<a href="{}">{}</a> ({})', url, started, site.last_status)

    @admin.display(description="Pages", ordering="page_count")
    def pages(self, site: Site) -> str:
        url = _filtered("admin:crawler_page_changelist", site)
        return format_html('<a href="{}">{}</a>', url, site.page_count)

    @admin.display(description="New")
    def last_new(self, site: Site) -> int | None:
        return site.last_new

    @admin.display(description="Changed")
    def last_changed(self, site: Site) -> int | None:
        return site.last_changed

    @admin.display(description="Errors")
    def last_errors(self, site: Site) -> int | None:
        return site.last_errors

    @admin.display(description="Robots-skipped")
    def last_robots_skipped(self, site: Site) -> int | None:
        return site.last_robots_skipped

    @admin.display(description="Harvest rate")
    def harvest_rate(self, site: Site) -> str:
        return _percent(site.last_relevant or 0, site.last_fetched or 0)

    @admin.action(description="Crawl now")
    def crawl_now(self, request: HttpRequest, queryset: QuerySet[Site]) -> None:
        count = 0
        for site in queryset:
            enqueue_crawl(site)
            count += 1
        self.message_user(request, f"Queued a crawl of {count} site(s).", messages.SUCCESS)

    @admin.action(description="Share with everyone (the pool every list is matched against)")
    def share(self, request: HttpRequest, queryset: QuerySet[Site]) -> None:
        count = queryset.update(visibility=Site.Visibility.SHARED)
        self.message_user(request, f"{count} site(s) now shared with everyone.", messages.SUCCESS)

    @admin.action(description="Make private (its subscribers' clips only)")
    def make_private(self, request: HttpRequest, queryset: QuerySet[Site]) -> None:
        count = queryset.update(visibility=Site.Visibility.PRIVATE)
        self.message_user(request, f"{count} site(s) now private.", messages.SUCCESS)

    @admin.action(description="Approve (crawl it)")
    def approve(self, request: HttpRequest, queryset: QuerySet[Site]) -> None:
        count = queryset.update(approval=Site.Approval.APPROVED, review_note="")
        self.message_user(request, f"{count} site(s) approved.", messages.SUCCESS)

    @admin.action(description="Deny (never crawl it)")
    def deny(self, request: HttpRequest, queryset: QuerySet[Site]) -> None:
        count = queryset.update(approval=Site.Approval.DENIED)
        self.message_user(request, f"{count} site(s) denied.", messages.SUCCESS)


@admin.register(CrawlRun)
class CrawlRunAdmin(RecordAdmin):
    list_display = [
        "id",
        "site",
        "strategy",
        "status",
        "started_at",
        "finished_at",
        "fetched",
        "new",
        "changed",
        "unchanged",
        "errors",
        "misses",
        "robots_skipped",
        "rendered",
        "harvest",
        "downloads",
        "trap_fetches",
        "duplicate_fetches",
        "teaser_articles",
        "stop_reason",
    ]
    list_filter = ["status", "strategy", "site"]
    date_hierarchy = "started_at"
    list_select_related = ["site"]

    def get_readonly_fields(self, request: HttpRequest, obj: CrawlRun | None = None) -> list[str]:
        return [field.name for field in CrawlRun._meta.fields if field.name != "learned"] + [
            "harvest",
            "downloads",
            "download_hubs",
            "fetches_spent",
            "learned_terms",
            "judged_shapes",
            "economy",
            "stored_versions",
        ]

    def get_fields(self, request: HttpRequest, obj: CrawlRun | None = None) -> list[str]:
        return self.get_readonly_fields(request, obj)

    @admin.display(description="Fetches spent on")
    def fetches_spent(self, run: CrawlRun) -> str:
        return format_html(
            "hubs {} · posts {} · traps {} · duplicates {} ({}) · searches {} · "
            "taken breadth-first when the strategy offered nothing {}",
            run.hub_fetches,
            run.post_fetches,
            run.trap_fetches,
            run.duplicate_fetches,
            _percent(run.duplicate_fetches, run.fetched),
            run.search_fetches,
            (run.learned or {}).get("explored") or 0,
        )

    @admin.display(description="DownloadAll fetches (harvest)")
    def downloads(self, run: CrawlRun) -> str:
        return format_html(
            "{} ({})", run.download_fetches, _percent(run.download_relevant, run.download_fetches)
        )

    @admin.display(description="DownloadAll per hub")
    def download_hubs(self, run: CrawlRun) -> str:
        return download_rows(run.learned or {})

    @admin.display(description="Learned terms")
    def learned_terms(self, run: CrawlRun) -> str:
        # Terms are stems read off crawled pages: data, escaped.
        terms = (run.learned or {}).get("terms") or {}
        if not terms:
            return "None: the run learnt no topic terms (no topic, or too few authorities)."
        return format_html_join(", ", "{} ({})", ((t, w) for t, w in terms.items()))

    @admin.display(description="Traps, copies and host aliases")
    def judged_shapes(self, run: CrawlRun) -> str:
        learned = run.learned or {}
        rows = [
            ("Trap URL shapes", ", ".join(learned.get("trap_shapes") or []) or "–"),
            ("Copy URL shapes", ", ".join(learned.get("copy_shapes") or []) or "–"),
            (
                "Served for",
                ", ".join(f"{a} → {b}" for a, b in (learned.get("host_aliases") or {}).items())
                or "–",
            ),
            ("Canonicals on other websites (kept, no copies)", _elsewhere(learned)),
        ]
        return format_html_join("", "<div><b>{}</b>: {}</div>", rows)

    @admin.display(description="Parameters learnt, shapes closed, pages rendered")
    def economy(self, run: CrawlRun) -> str:
        return run_economy(run)

    @admin.display(description="Harvest rate")
    def harvest(self, run: CrawlRun) -> str:
        return _percent(run.relevant, run.fetched)

    @admin.display(description="Versions stored")
    def stored_versions(self, run: CrawlRun) -> str:
        versions = list(
            run.versions.select_related("page").order_by("-fetched_at", "-id")[:STORED_SHOWN]
        )
        if not versions:
            return "None: this run stored no new or changed page."
        rows = format_html_join(
            "",
            '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>',
            (
                (
                    reverse("admin:crawler_page_change", args=[version.page_id]),
                    version.page.url,
                    f"{version.fetched_at:%Y-%m-%d %H:%M:%S}",
                    version.get_kind_display() or "–",
                    "yes" if version.has_information else "no",
                    "rendered" if version.rendered else "fetched",
                )
                for version in versions
            ),
        )
        total = run.versions.count()
        more = (
            format_html("<p>The newest {} of {}.</p>", len(versions), total)
            if total > len(versions)
            else ""
        )
        return format_html(
            "<table><thead><tr><th>Page</th><th>Fetched</th><th>Kind</th><th>Information</th>"
            "<th>Body</th></tr></thead><tbody>{}</tbody></table>{}",
            rows,
            more,
        )


class VersionInline(admin.TabularInline):
    model = PageVersion
    extra = 0
    max_num = 0
    can_delete = False
    fields = [
        "fetched_at",
        "status",
        "kind",
        "title",
        "has_information",
        "rendered",
        "body_size",
        "content_hash",
    ]
    readonly_fields = fields
    ordering = ["-fetched_at", "-id"]


class OutLinkInline(admin.TabularInline):
    model = Link
    fk_name = "from_page"
    extra = 0
    max_num = 0
    can_delete = False
    fields = ["target_url", "anchor", "area_kind", "area_path"]
    readonly_fields = fields
    verbose_name_plural = "Links"


@admin.register(Page)
class PageAdmin(admin.ModelAdmin):
    list_display = [
        "url",
        "site",
        "role",
        "kind",
        "depth",
        "status",
        "last_fetched_at",
        "next_visit_at",
        "version_count",
        "error",
    ]
    list_filter = ["site", "role", "kind", "status"]
    search_fields = ["url", "title"]
    list_select_related = ["site"]
    inlines = [VersionInline, OutLinkInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Page]:
        return super().get_queryset(request).annotate(version_total=Count("versions"))

    def get_readonly_fields(self, request: HttpRequest, obj: Page | None = None) -> list[str]:
        return [field.name for field in Page._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="Versions", ordering="version_total")
    def version_count(self, page: Page) -> int:
        return page.version_total


def _elsewhere(learned: dict[str, object]) -> str:
    """Return how many fetched pages named an original on another website, with examples."""
    count = learned.get("foreign_canonical_count") or 0
    if not count:
        return "–"
    pairs = learned.get("foreign_canonicals") or []
    examples = "; ".join(f"{page} → {there}" for page, there in pairs)  # type: ignore[attr-defined]
    return f"{count}: {examples}"
