"""Admin for xCrawl: sample documents, the site's search template, search engines, proposals."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html_join

from crawler.models.sitesearch import SiteSearch
from crawler.models.xcrawl import ProposedSite, SampleDocument, SearchEngine
from crawler.tasks import find_sites

# A URL typed without a scheme ("example.com") is taken as https, as on the site form.
HTTPS_URLS = {models.URLField: {"assume_scheme": "https"}}


class SampleDocumentInline(admin.TabularInline):
    """Sample documents on the site form (SiteAdmin.inlines)."""

    model = SampleDocument
    extra = 1
    fields = ["url", "text", "fetched_at", "error"]
    readonly_fields = ["fetched_at", "error"]
    formfield_overrides = HTTPS_URLS


class AdminTemplateForm(forms.ModelForm):
    """A search URL template typed by an admin: the row's source is the admin."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.instance.source = SiteSearch.Source.ADMIN


class SiteSearchInline(admin.StackedInline):
    """The site's search URL template, as an admin gives it, on the site form (SiteAdmin.inlines)."""

    model = SiteSearch
    form = AdminTemplateForm
    extra = 0
    max_num = 1
    fields = ["url_template"]
    verbose_name = "search URL template"

    def get_queryset(self, request: HttpRequest) -> QuerySet[SiteSearch]:
        return super().get_queryset(request).filter(source=SiteSearch.Source.ADMIN)


@admin.register(SampleDocument)
class SampleDocumentAdmin(admin.ModelAdmin):
    formfield_overrides = HTTPS_URLS
    list_display = ["__str__", "site", "fetched_at", "error"]
    list_filter = ["site"]
    search_fields = ["url", "text"]
    readonly_fields = ["fetched_text", "fetched_at", "error"]
    fields = ["site", "url", "text", "fetched_text", "fetched_at", "error"]


@admin.register(SearchEngine)
class SearchEngineAdmin(admin.ModelAdmin):
    formfield_overrides = HTTPS_URLS
    list_display = [
        "name",
        "base_url",
        "enabled",
        "results_per_query",
        "last_used_at",
        "last_error",
    ]
    readonly_fields = ["last_used_at", "last_error"]
    actions = ["find_sites_now"]

    @admin.action(description="Find new sites for the topic with this engine")
    def find_sites_now(self, request: HttpRequest, queryset: QuerySet[SearchEngine]) -> None:
        engines = list(queryset.filter(enabled=True))
        for engine in engines:
            find_sites.delay_on_commit(engine.id)
        self.message_user(
            request,
            f"Queued a search for new sites on {len(engines)} engine(s); "
            "proposals appear under Proposed sites.",
            messages.SUCCESS,
        )


@admin.register(ProposedSite)
class ProposedSiteAdmin(admin.ModelAdmin):
    formfield_overrides = HTTPS_URLS
    list_display = ["root_url", "status", "authority_count", "engine", "created_at", "site"]
    list_filter = ["status", "engine"]
    search_fields = ["root_url"]
    readonly_fields = [
        "evidence",
        "queries",
        "engine",
        "site",
        "created_at",
        "decided_at",
        "decided_by",
    ]
    fields = ["root_url", "status", *readonly_fields]
    actions = ["approve", "reject"]

    @admin.display(description="authorities")
    def authority_count(self, proposal: ProposedSite) -> int:
        return len(proposal.authority_urls)

    @admin.display(description="authorities found")
    def evidence(self, proposal: ProposedSite) -> str:
        # Scraped URLs are data: escaped, shown as plain text, never as links.
        return format_html_join("\n", "<div>{}</div>", ((url,) for url in proposal.authority_urls))

    @admin.action(description="Approve: monitor these sites with xCrawl")
    def approve(self, request: HttpRequest, queryset: QuerySet[ProposedSite]) -> None:
        approved = [p for p in queryset.pending() if p.approve(request.user) is not None]
        self.message_user(request, f"Approved {len(approved)} site(s).", messages.SUCCESS)

    @admin.action(description="Reject")
    def reject(self, request: HttpRequest, queryset: QuerySet[ProposedSite]) -> None:
        rejected = sum(p.reject(request.user) for p in queryset.pending())
        self.message_user(request, f"Rejected {rejected} site(s).", messages.SUCCESS)


def download_rows(learned: dict[str, object]) -> str:
    """Return a run's DownloadAll per hub, and the opening of a seed's list: items fetched,
    accepted, and whether it went on."""
    found = learned.get("downloads")
    rows = [row for row in found if isinstance(row, dict)] if isinstance(found, list) else []
    if not rows:
        return "None: no topical hub was downloaded in this run."
    return format_html_join(  # hub URLs come from crawled pages: escaped
        "",
        "<div>{} · items fetched {} · accepted {} · {}</div>",
        (
            (
                row.get("hub", ""),
                row.get("fetched", 0),
                row.get("accepted", 0),
                _outcome(row),
            )
            for row in rows
        ),
    )


def _outcome(row: dict) -> str:
    if row.get("opening"):
        return "opening, stopped after the probe" if row.get("stopped") else "opening, read"
    return "stopped after the probe" if row.get("stopped") else "downloaded"
