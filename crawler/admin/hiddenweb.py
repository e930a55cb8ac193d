"""Hidden-web admin: the LVS table (editable), the site searches found on sites, and per run
the searches made and the pages rendered (read only)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from crawler.models.hiddenweb import FormQuery, LabelValue, LabelValueSet, RunRender, RunSearch
from crawler.models.sitesearch import SiteSearch


class LabelValueInline(admin.TabularInline):
    model = LabelValue
    extra = 3
    fields = ["value", "weight"]


@admin.register(LabelValueSet)
class LabelValueSetAdmin(admin.ModelAdmin):
    list_display = ["label", "source", "value_count", "language", "updated_at"]
    list_filter = ["source", "language"]
    search_fields = ["label", "aliases", "values__value"]
    inlines = [LabelValueInline]
    fields = ["label", "aliases", "source", "language"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[LabelValueSet]:
        return super().get_queryset(request).prefetch_related("values")

    @admin.display(description="values")
    def value_count(self, row: LabelValueSet) -> int:
        return len(row.values.all())


class FormQueryInline(admin.TabularInline):
    model = FormQuery
    extra = 0
    fields = ["keyword", "assignment", "submissions", "with_results", "last_submitted_at"]
    readonly_fields = fields
    can_delete = False
    max_num = 0
    ordering = ["-last_submitted_at"]


@admin.register(SiteSearch)
class SiteSearchAdmin(admin.ModelAdmin):
    list_display = [
        "action",
        "method",
        "site",
        "source",
        "status",
        "reason",
        "submissions",
        "efficiency_percent",
        "last_submitted_at",
    ]
    list_filter = ["source", "status", "method", "site"]
    search_fields = ["action", "page_url", "url_template"]
    readonly_fields = [
        "site",
        "source",
        "page_url",
        "action",
        "method",
        "enctype",
        "status",
        "reason",
        "url_template",
        "query_arg",
        "fields",
        "labels",
        "uses_browser",
        "probed_at",
        "submissions",
        "with_results",
        "efficiency_percent",
        "first_seen_at",
        "last_seen_at",
        "last_submitted_at",
    ]
    exclude = ["fingerprint", "empty_signatures"]
    inlines = [FormQueryInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # forms are found by crawling; an admin's template goes on the site form

    @admin.display(description="submission efficiency")
    def efficiency_percent(self, form: SiteSearch) -> str:
        value = form.efficiency
        return "–" if value is None else f"{100 * value:.0f}%"


class _ReadOnly(admin.ModelAdmin):
    """What runs recorded: to read and filter, never to edit."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(RunSearch)
class RunSearchAdmin(_ReadOnly):
    list_display = [
        "query",
        "keyword",
        "variant",
        "site",
        "run",
        "had_results",
        "pages",
        "results",
        "new_articles",
        "stopped",
        "created_at",
    ]
    list_filter = ["variant", "had_results", "site"]
    search_fields = ["query", "keyword"]
    list_select_related = ["site", "run"]
    raw_id_fields = ["run", "form"]


@admin.register(RunRender)
class RunRenderAdmin(_ReadOnly):
    list_display = [
        "url",
        "reason",
        "site",
        "run",
        "requests",
        "document_requests",
        "expanded",
        "api_links",
        "seconds",
        "created_at",
    ]
    list_filter = ["reason", "site"]
    search_fields = ["url"]
    list_select_related = ["site", "run"]
    raw_id_fields = ["run"]
