"""Each person's saved language and time zone, for every page they ask for."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone, translation


class PreferencesMiddleware:
    """Activate the signed-in person's language (if they chose one) and time zone.

    Runs after LocaleMiddleware (which read the switcher's cookie or Accept-Language) and
    AuthenticationMiddleware; an empty language leaves LocaleMiddleware's choice standing.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            if user.language:
                translation.activate(user.language)
                request.LANGUAGE_CODE = translation.get_language()
            try:
                timezone.activate(zoneinfo.ZoneInfo(user.time_zone))
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                timezone.deactivate()
        else:
            timezone.deactivate()
        return self.get_response(request)
