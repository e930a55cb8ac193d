"""Admin for xCrawl: sample documents, site search templates, search engines, proposed sites."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html_join

from crawler.models.xcrawl import ProposedSite, SampleDocument, SearchEngine, SiteSearch


class SampleDocumentInline(admin.TabularInline):
    """Sample documents on the site form (SiteAdmin.inlines)."""

    model = SampleDocument
    extra = 1
    fields = ["url", "text", "fetched_at", "error"]
    readonly_fields = ["fetched_at", "error"]


class SiteSearchInline(admin.StackedInline):
    """The site's search URL template on the site form (SiteAdmin.inlines)."""

    model = SiteSearch
    extra = 0
    max_num = 1
    fields = ["url_template", "source"]


@admin.register(SampleDocument)
class SampleDocumentAdmin(admin.ModelAdmin):
    list_display = ["__str__", "site", "fetched_at", "error"]
    list_filter = ["site"]
    search_fields = ["url", "text"]
    readonly_fields = ["fetched_text", "fetched_at", "error"]
    fields = ["site", "url", "text", "fetched_text", "fetched_at", "error"]


@admin.register(SiteSearch)
class SiteSearchAdmin(admin.ModelAdmin):
    list_display = ["site", "url_template", "source", "updated_at"]
    list_filter = ["source"]


@admin.register(SearchEngine)
class SearchEngineAdmin(admin.ModelAdmin):
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
        from crawler.strategies.xcrawl.discover import find_sites_task

        engines = list(queryset.filter(enabled=True))
        for engine in engines:
            find_sites_task.delay_on_commit(engine.id)
        self.message_user(
            request,
            f"Queued a search for new sites on {len(engines)} engine(s); "
            "proposals appear under Proposed sites.",
            messages.SUCCESS,
        )


@admin.register(ProposedSite)
class ProposedSiteAdmin(admin.ModelAdmin):
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
