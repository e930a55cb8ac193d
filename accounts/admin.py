from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from accounts.models import User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    ordering = ["email"]
    list_display = ["email", "delivery_mode", "mail_paused", "is_staff", "date_joined"]
    list_filter = ["delivery_mode", "mail_paused", "is_staff", "is_active"]
    search_fields = ["email"]
    readonly_fields = ["date_joined", "last_login", "feed_token"]
    fieldsets = [
        (None, {"fields": ["email", "password"]}),
        (
            "Notifications",
            {
                "fields": [
                    "delivery_mode",
                    "digest_hour",
                    "digest_weekday",
                    "time_zone",
                    "mail_paused",
                    "mail_blocked_reason",
                    "feed_token",
                ]
            },
        ),
        (
            "Permissions",
            {"fields": ["is_active", "is_staff", "is_superuser", "groups", "user_permissions"]},
        ),
        ("Dates", {"fields": ["last_login", "date_joined"]}),
    ]
    add_fieldsets = [(None, {"classes": ["wide"], "fields": ["email", "password1", "password2"]})]
