from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.sites.models import Site
from django.utils.translation import gettext_lazy as _

from accounts.models import ApiToken, User

# The one Site row is named from SITE_URL and SITE_NAME on every migrate (accounts.sites); an
# admin section for it would be a second "Sites" beside the crawler's watched sites.
if admin.site.is_registered(Site):
    admin.site.unregister(Site)


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    ordering = ["email"]
    list_display = ["email", "delivery_mode", "language", "mail_paused", "is_staff", "date_joined"]
    list_filter = ["delivery_mode", "mail_paused", "is_staff", "is_active"]
    search_fields = ["email"]
    readonly_fields = ["date_joined", "last_login", "feed_token"]
    fieldsets = [
        (None, {"fields": ["email", "password"]}),
        (
            _("Notifications"),
            {
                "fields": [
                    "delivery_mode",
                    "digest_hour",
                    "digest_weekday",
                    "time_zone",
                    "language",
                    "mail_paused",
                    "mail_blocked_reason",
                    "feed_token",
                ]
            },
        ),
        (
            _("Permissions"),
            {"fields": ["is_active", "is_staff", "is_superuser", "groups", "user_permissions"]},
        ),
        (_("Dates"), {"fields": ["last_login", "date_joined"]}),
    ]
    add_fieldsets = [(None, {"classes": ["wide"], "fields": ["email", "password1", "password2"]})]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens are made by their owners; admins see and revoke them (the secret is never stored)."""

    list_display = ["name", "prefix", "user", "created_at", "last_used_at"]
    search_fields = ["user__email", "name", "prefix"]
    readonly_fields = ["user", "name", "prefix", "created_at", "last_used_at"]
    exclude = ["digest"]

    def has_add_permission(self, request) -> bool:  # noqa: ANN001
        return False
