"""Crawler admin: sites with their crawl status, runs, and pages with their versions."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

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


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "–"


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "root_url",
        "strategy",
        "enabled",
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
    list_filter = ["enabled", "strategy", "needs_browser"]
    search_fields = ["name", "root_url"]
    actions = ["crawl_now"]
    readonly_fields = ["recent_runs"]
    fieldsets = [
        (None, {"fields": ["name", "root_url", "seed_urls", "allowed_hosts", "enabled"]}),
        (
            "Strategy",
            {
                "fields": [
                    "strategy",
                    "page_budget",
                    "max_depth",
                    "revisit_interval",
                    "min_page_revisit",
                    "max_page_revisit",
                ]
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
        ("Recent runs", {"fields": ["recent_runs"]}),
    ]

    def get_fieldsets(self, request: HttpRequest, obj: Site | None = None):  # type: ignore[no-untyped-def]
        fieldsets = super().get_fieldsets(request, obj)
        return fieldsets if obj is not None else fieldsets[:-1]

    @admin.display(description="Runs")
    def recent_runs(self, site: Site) -> str:
        runs = site.runs.order_by("-started_at", "-id")[:10]
        rows = format_html_join(
            "",
            '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>'
            "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    reverse("admin:crawler_crawlrun_change", args=[run.pk]),
                    f"{run.started_at:%Y-%m-%d %H:%M}",
                    run.status,
                    run.strategy,
                    run.fetched,
                    run.new,
                    run.changed,
                    run.errors,
                    run.robots_skipped,
                    _percent(run.relevant, run.fetched),
                    run.stop_reason,
                )
                for run in runs
            ),
        )
        if not rows:
            return "No runs yet."
        head = "".join(
            f"<th>{label}</th>"
            for label in (
                "Started",
                "Status",
                "Strategy",
                "Fetched",
                "New",
                "Changed",
                "Errors",
                "Robots-skipped",
                "Harvest",
                "Stopped",
            )
        )
        return format_html(
            "<table><thead><tr>{}</tr></thead><tbody>{}</tbody></table>", mark_safe(head), rows
        )  # noqa: S308 - constant labels

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
    def pages(self, site: Site) -> int:
        return site.page_count

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


@admin.register(CrawlRun)
class CrawlRunAdmin(admin.ModelAdmin):
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
        "robots_skipped",
        "rendered",
        "harvest",
        "stop_reason",
    ]
    list_filter = ["status", "strategy", "site"]
    date_hierarchy = "started_at"
    list_select_related = ["site"]

    def get_readonly_fields(self, request: HttpRequest, obj: CrawlRun | None = None) -> list[str]:
        return [field.name for field in CrawlRun._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="Harvest rate")
    def harvest(self, run: CrawlRun) -> str:
        return _percent(run.relevant, run.fetched)


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


from crawler.deepweb import admin as _deepweb_admin  # noqa: E402, F401 (hidden-web LVS table and forms)
