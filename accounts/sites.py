"""The Sites framework's one row, named from SITE_URL and SITE_NAME after every migrate.

allauth greets and signs its mail with the current Site's name and domain; left alone it
says "example.com", or the request's host ("Hello from 127.0.0.1:8000").
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS


def name_the_site(sender: object, using: str = DEFAULT_DB_ALIAS, **kwargs: object) -> None:
    """Create or update the Site with SITE_ID: domain from SITE_URL, name from SITE_NAME."""
    from django.contrib.sites.models import Site

    if Site._meta.db_table not in _tables(using):
        return
    domain = urlsplit(settings.SITE_URL).netloc or "localhost"
    Site.objects.using(using).update_or_create(
        pk=settings.SITE_ID, defaults={"domain": domain, "name": settings.SITE_NAME}
    )
    Site.objects.clear_cache()
    Site.objects.db_manager(using).get_current()  # cached: pages and feeds ask for it often


def _tables(using: str) -> list[str]:
    from django.db import connections

    with connections[using].cursor() as cursor:
        return connections[using].introspection.table_names(cursor)
