"""What runs learnt about a site and keep for the next ones: parameters that change nothing,
URL shapes closed as traps or copies, shapes rendered in a browser. An admin reads each
with the run that learnt it and can reopen it (later runs then ignore it) or close it again.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from crawler.models import CrawlRun, SiteLesson
from crawler.models.hiddenweb import RunRender

RENDERS_SHOWN = 20  # pages rendered listed on a run's page


@admin.register(SiteLesson)
class SiteLessonAdmin(admin.ModelAdmin):
    list_display = ["key", "kind", "site", "in_force", "example", "run", "learnt_at"]
    list_filter = ["kind", ("reopened_at", admin.EmptyFieldListFilter), "site"]
    search_fields = ["key", "example"]
    list_select_related = ["site", "run"]
    readonly_fields = ["site", "kind", "key", "example", "run", "learnt_at", "reopened_at"]
    actions = ["reopen", "close_again"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description=_("In force"))
    def in_force(self, lesson: SiteLesson) -> str:
        if lesson.reopened_at is None:
            return str(_("yes"))
        return str(_("reopened %(when)s") % {"when": f"{lesson.reopened_at:%Y-%m-%d %H:%M}"})

    @admin.action(description=_("Reopen: later runs ignore these lessons"))
    def reopen(self, request: HttpRequest, queryset: QuerySet[SiteLesson]) -> None:
        count = queryset.filter(reopened_at=None).update(reopened_at=timezone.now())
        message = ngettext("%(count)d lesson reopened.", "%(count)d lessons reopened.", count)
        self.message_user(request, message % {"count": count}, messages.SUCCESS)

    @admin.action(description=_("Close again: later runs follow these lessons"))
    def close_again(self, request: HttpRequest, queryset: QuerySet[SiteLesson]) -> None:
        count = queryset.exclude(reopened_at=None).update(reopened_at=None)
        message = ngettext(
            "%(count)d lesson in force again.", "%(count)d lessons in force again.", count
        )
        self.message_user(request, message % {"count": count}, messages.SUCCESS)


def run_economy(run: CrawlRun) -> str:
    """Return, for a run's page, the parameters it learnt as irrelevant, the shapes it closed
    and the pages it rendered with the reason (scraped URLs are data: escaped)."""
    learned = run.learned or {}
    parameters = learned.get("irrelevant_parameters") or {}
    rendered_shapes = learned.get("rendered_shapes") or {}
    rows = [
        (
            _("Parameters learnt as irrelevant"),
            ", ".join(f"{name} ({url})" for name, url in parameters.items()) or "–",
        ),
        (_("URL shapes closed"), ", ".join(learned.get("closed_shapes") or []) or "–"),
        (
            _("URL shapes learnt to need rendering"),
            "; ".join(f"{shape}: {why}" for shape, why in rendered_shapes.items()) or "–",
        ),
    ]
    renders = RunRender.objects.filter(run=run).order_by("id")
    listed = format_html_join(
        "", "<li>{} — {}</li>", renders.values_list("url", "reason")[:RENDERS_SHOWN]
    )
    return format_html(
        "{}<div><b>{}</b>: {}</div><ul>{}</ul>",
        format_html_join("", "<div><b>{}</b>: {}</div>", rows),
        _("Pages rendered"),
        renders.count(),
        listed,
    )
