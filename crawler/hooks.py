"""The one place where fetched pages leave the crawler: batch handlers of page versions.

Clipping registers its ingest function in its AppConfig.ready:

    from crawler.hooks import register_batch_handler
    register_batch_handler(enqueue_ingest)   # called with a list of PageVersion ids

The crawler calls `hand_on(version_id)` for every new or changed page version that has
informational areas. The id goes to the handlers only after the storing transaction commits
(`transaction.on_commit`), so they never see an uncommitted row; a handler that needs a
worker enqueues its own Celery task and returns at once.

A handler takes a list of ids, so that one task can carry many versions. A crawl run or
watch gathers its hand-ons (`with gathering():`) and gives what it stored so far to the
handlers at each `flush()` (the run loop flushes with its heartbeat, about once a second)
and at the end; outside a gathering each committed version goes alone.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import transaction

logger = logging.getLogger(__name__)

BatchHandler = Callable[[list[int]], object]
_batch_handlers: list[BatchHandler] = []
# The ids committed in this thread's open gathering, waiting for the next flush.
_gathered = threading.local()


def register_batch_handler(handler: BatchHandler) -> BatchHandler:
    """Add a handler called with lists of new or changed PageVersion ids."""
    if handler not in _batch_handlers:
        _batch_handlers.append(handler)
    return handler


def unregister_batch_handler(handler: BatchHandler) -> None:
    """Remove a handler added with `register_batch_handler` (no error if absent)."""
    if handler in _batch_handlers:
        _batch_handlers.remove(handler)


def batch_handlers() -> list[BatchHandler]:
    """Return the registered batch handlers, in registration order."""
    return list(_batch_handlers)


def hand_on(version_id: int) -> None:
    """Give `version_id` to the batch handlers once the current transaction commits.

    They get it at the next flush of this thread's gathering, or alone at once.
    """
    if _batch_handlers:
        transaction.on_commit(lambda: _gather(version_id), robust=True)


@contextmanager
def gathering() -> Iterator[None]:
    """Gather this thread's committed hand-ons for the batch handlers; flush at the end.

    A nested gathering joins the outer one.
    """
    if getattr(_gathered, "ids", None) is not None:
        yield
        return
    _gathered.ids = []
    try:
        yield
    finally:
        try:
            flush()
        finally:
            _gathered.ids = None


def flush() -> int:
    """Give the gathered ids to the batch handlers now; return how many went."""
    ids = getattr(_gathered, "ids", None)
    if not ids:
        return 0
    batch = list(dict.fromkeys(ids))
    ids.clear()
    _call_batch(batch)
    return len(batch)


def _gather(version_id: int) -> None:
    ids = getattr(_gathered, "ids", None)
    if ids is None:
        _call_batch([version_id])
    else:
        ids.append(version_id)


def _call_batch(version_ids: list[int]) -> None:
    for handler in list(_batch_handlers):
        try:
            handler(version_ids)
        except Exception:
            # Like on_commit(robust=True): one broken handler must not stop the others.
            logger.exception("Batch handler %s failed on %s", handler, version_ids)
