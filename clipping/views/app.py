"""The installable app: the web app manifest and the service worker that keeps My clips offline."""

from __future__ import annotations

import json

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

# Bumped when the worker's caching changes: the old caches are dropped on activation.
CACHE_VERSION = "webclip-v1"


@require_GET
@cache_control(max_age=3600, public=True)
def web_manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest: name, start page, colours and icons, in the reader's language."""
    data = {
        "name": settings.SITE_NAME,
        "short_name": settings.SITE_NAME[:12],
        "description": _("Articles that matched your keyword lists."),
        "id": "/",
        "start_url": reverse("clip_index"),
        "scope": "/",
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": "#0a4f7a",
        "icons": [
            {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {
                "src": static("icons/icon-maskable-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
            {"src": static("icons/icon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    return HttpResponse(json.dumps(data), content_type="application/manifest+json")


@require_GET
@cache_control(no_cache=True)
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, served from the root so that its scope is the whole site."""
    context = {
        "cache_version": CACHE_VERSION,
        "offline_pages": [reverse("clip_index"), reverse("dashboard")],
        "static_files": [
            static("vendor/pico/pico.min.css"),
            static("css/app.css"),
            static("css/clips.css"),
            static("js/app.js"),
            static("icons/icon.svg"),
        ],
    }
    body = render_to_string("sw.js", context)
    response = HttpResponse(body, content_type="application/javascript")
    response["Service-Worker-Allowed"] = "/"
    return response
