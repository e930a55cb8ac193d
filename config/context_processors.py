"""Template context shared by every page."""

from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, object]:
    return {
        "SITE_NAME": settings.SITE_NAME,
        "SHOW_MAILBOX": settings.DEBUG and settings.EMAIL_PROVIDER == "file",
    }
