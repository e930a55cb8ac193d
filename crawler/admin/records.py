"""Admin pages of records: what happened, read and never edited."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse


class RecordAdmin(admin.ModelAdmin):
    """A record opens read-only, with neither Save nor Delete, and no bulk delete.

    Deleting stays allowed to the model itself, so that deleting what owns the records (a site
    takes its runs along) is not refused; no page of the record offers it.
    """

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_actions(self, request: HttpRequest) -> dict:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        context = {**(extra_context or {}), "show_delete": False}
        return super().change_view(request, object_id, form_url, extra_context=context)

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: Any = None
    ) -> HttpResponse:
        raise PermissionDenied
