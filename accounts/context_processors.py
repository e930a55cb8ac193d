"""Template context for every page: the language and theme switchers, the time-zone report."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest

from accounts.views import SESSION_TIME_ZONE, THEME_COOKIE, THEMES


def preferences(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        report_zone = not user.time_zone_confirmed
    else:
        session = getattr(request, "session", None)
        report_zone = session is not None and SESSION_TIME_ZONE not in session
    theme = request.COOKIES.get(THEME_COOKIE, "auto")
    return {
        "LANGUAGES": settings.LANGUAGES,
        "REPORT_TIME_ZONE": report_zone,
        "THEME": theme if theme in THEMES else "auto",
        "THEMES": THEMES,
    }
