"""Django for a benchmark: settings loaded, a throwaway database, clipping left out if asked."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def setup_django(*, crawl_only: bool = False) -> None:
    """Load the project's settings; with `crawl_only`, stored pages are handed to nobody.

    Without clipping's handlers a crawl queues no ingest tasks: the benchmark measures the
    crawl, and no task naming its throwaway database is left on the broker.
    """
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("WEBCLIP_TESTING", "1")
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's loop, DB between
    import django

    django.setup()
    if crawl_only:
        from crawler import hooks

        for batch_handler in hooks.batch_handlers():
            hooks.unregister_batch_handler(batch_handler)


@contextmanager
def throwaway_database(name: str) -> Iterator[None]:
    """Create database `name` with every migration applied, use it, and drop it at the end."""
    from django.conf import settings
    from django.db import connection

    settings.DEBUG = False  # no query log growing with every page
    settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = name
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(name, verbosity=0)
