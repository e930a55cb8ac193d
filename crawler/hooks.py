"""The one place where fetched pages leave the crawler: page handlers.

Clipping registers its ingest function in its AppConfig.ready:

    from crawler.hooks import register_page_handler
    register_page_handler(ingest_page_version)   # called with a PageVersion id

The crawler calls `hand_on(version_id)` for every new or changed page version that has
informational areas. Handlers run after the storing transaction commits
(`transaction.on_commit`), so they never see an uncommitted row; a handler that needs a worker
enqueues its own Celery task (e.g. `ingest.delay(version_id)`) and returns at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import transaction

logger = logging.getLogger(__name__)

PageHandler = Callable[[int], object]
_handlers: list[PageHandler] = []


def register_page_handler(handler: PageHandler) -> PageHandler:
    """Add a handler called with each new or changed PageVersion id (usable as a decorator)."""
    if handler not in _handlers:
        _handlers.append(handler)
    return handler


def unregister_page_handler(handler: PageHandler) -> None:
    """Remove a handler added with `register_page_handler` (no error if absent)."""
    if handler in _handlers:
        _handlers.remove(handler)


def page_handlers() -> list[PageHandler]:
    """Return the registered handlers, in registration order."""
    return list(_handlers)


def hand_on(version_id: int) -> None:
    """Call every page handler with `version_id` once the current transaction commits."""
    for handler in list(_handlers):
        transaction.on_commit(lambda h=handler: _call(h, version_id), robust=True)


def _call(handler: PageHandler, version_id: int) -> None:
    # robust=True already logs and swallows; calling through here keeps the name in the log.
    logger.debug(
        "Handing PageVersion %s to %s", version_id, getattr(handler, "__qualname__", handler)
    )
    handler(version_id)
