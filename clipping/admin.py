from django.contrib import admin
from django.http import HttpRequest

from clipping import backfill, tasks
from clipping.models import Clip, Delivery, Digest, KeywordList, Match, Suppression, WebhookEvent


class SystemRecordAdmin(admin.ModelAdmin):
    """Records the system writes (clips, matches, deliveries, webhook events): no "Add"."""

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(KeywordList)
class KeywordListAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "owner",
        "language",
        "active",
        "use_synonyms",
        "match_all",
        "mail_enabled",
        "updated_at",
    ]
    list_filter = ["active", "language", "use_synonyms", "match_all", "mail_enabled"]
    search_fields = ["name", "owner__email", "terms"]
    raw_id_fields = ["owner"]

    def save_model(self, request, obj: KeywordList, form, change: bool) -> None:
        """Save the list and ask for a backfill if it is new or now matches differently."""
        before = None
        if change:
            before = backfill.matching_state(KeywordList.objects.get(pk=obj.pk))
        super().save_model(request, obj, form, change)
        if backfill.needs_backfill(before, obj):
            tasks.request_backfill(obj.id)


class MatchInline(admin.TabularInline):
    model = Match
    fk_name = "clip"
    extra = 0
    fields = ["keyword_list", "owner", "mail_status", "delivered_at", "read_at"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    show_change_link = True


@admin.register(Clip)
class ClipAdmin(SystemRecordAdmin):
    list_display = ["title", "host", "seen_at", "duplicate_of"]
    list_filter = ["site", "language"]
    search_fields = ["title", "summary", "url"]
    date_hierarchy = "seen_at"
    raw_id_fields = ["site", "page", "page_version", "duplicate_of"]
    readonly_fields = ["spans"]
    inlines = [MatchInline]


class DeliveryInline(admin.TabularInline):
    model = Delivery
    extra = 0
    fields = ["kind", "address", "status", "error", "permanent", "created_at", "finished_at"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Match)
class MatchAdmin(SystemRecordAdmin):
    list_display = [
        "clip",
        "keyword_list",
        "owner",
        "mail_status",
        "created_at",
        "delivered_at",
        "read_at",
    ]
    list_filter = ["mail_status", "created_at"]
    search_fields = ["clip__title", "owner__email", "keyword_list__name"]
    raw_id_fields = ["owner", "keyword_list", "clip", "story", "delivery", "digest"]
    inlines = [DeliveryInline]


@admin.register(Digest)
class DigestAdmin(SystemRecordAdmin):
    list_display = ["user", "kind", "period", "status", "sent_at"]
    list_filter = ["kind", "status"]
    search_fields = ["user__email"]
    raw_id_fields = ["user"]
    inlines = [DeliveryInline]


@admin.register(Delivery)
class DeliveryAdmin(SystemRecordAdmin):
    list_display = ["created_at", "kind", "address", "status", "permanent", "error"]
    list_filter = ["status", "kind", "permanent"]
    search_fields = ["address", "error", "message_id"]
    raw_id_fields = ["user", "match", "digest"]
    date_hierarchy = "created_at"


@admin.register(Suppression)
class SuppressionAdmin(admin.ModelAdmin):
    list_display = ["address", "reason", "created_at", "detail"]
    list_filter = ["reason"]
    search_fields = ["address"]


@admin.register(WebhookEvent)
class WebhookEventAdmin(SystemRecordAdmin):
    list_display = ["received_at", "esp", "event_type", "recipient", "event_id"]
    list_filter = ["esp", "event_type"]
    search_fields = ["recipient", "event_id"]
