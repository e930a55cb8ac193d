"""Keep one keyword index per worker process in step with the database, change by change.

Every process holds its own in-memory index and refreshes it by comparing (id, updated_at)
of the active lists with what it holds: lists that appeared or changed are compiled and
added, lists deleted or deactivated are removed. No change log is needed, so deletions by
cascade (an account removed) are seen too. A refresh runs at most every
CLIPPING_INDEX_REFRESH_SECONDS; refresh_index() forces one. Each refresh first reads the
active lists' version (count, latest update, sum of ids) in one aggregate query, and reads
the lists themselves only when it differs from the version the index was built from.

Start-up is the expensive part: WordNet lookups and stemming of every distinct line. Each
list's resolution (its lines with the synonyms they resolved to) and each compiled line are
therefore also kept in Django's cache (Redis when several hosts run; see
clipping.matching.shared), so a new worker compiles only what no worker compiled before.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Max, Sum

from clipping.conf import clipping_settings
from clipping.matching import shared
from clipping.matching.compile import CompiledList, compile_text
from clipping.matching.index import KeywordIndex, paused_gc
from clipping.models import KeywordList
from clipping.terms import TermSyntaxError

log = logging.getLogger(__name__)

_CHUNK = 2000  # rows per query


class SharedIndex:
    """A process's index of the active lists and what it knows of their versions."""

    def __init__(self) -> None:
        self.index = KeywordIndex()
        self._versions: dict[int, datetime] = {}
        self._lists_version: tuple[Any, ...] | None = None  # lists_version() the index reflects
        self._refreshed_at: float | None = None
        self._lock = threading.Lock()

    def current(self) -> KeywordIndex:
        """Return the index, refreshed first if the last refresh is older than the setting."""
        every = clipping_settings().index_refresh_seconds
        if self._refreshed_at is None or time.monotonic() - self._refreshed_at >= every:
            self.refresh()
        return self.index

    def refresh(self) -> tuple[int, int]:
        """Apply the database's changes since the last refresh; return (added, removed)."""
        with self._lock, paused_gc():
            version = lists_version()
            if version == self._lists_version:
                self._refreshed_at = time.monotonic()
                return 0, 0
            active = dict(KeywordList.objects.active().values_list("id", "updated_at"))
            gone = [list_id for list_id in self._versions if list_id not in active]
            changed = [
                list_id
                for list_id, updated_at in active.items()
                if self._versions.get(list_id) != updated_at
            ]
            for list_id in gone:
                self.index.remove(list_id)
                del self._versions[list_id]
            added = 0
            for start in range(0, len(changed), _CHUNK):
                rows = _rows(changed[start : start + _CHUNK])
                for list_id, compiled in compile_rows(rows):
                    if compiled is None:
                        self.index.remove(list_id)
                    else:
                        self.index.add(compiled)
                        added += 1
                for row in rows:
                    self._versions[row[0]] = row[1]
            self._lists_version = version
            self._refreshed_at = time.monotonic()
            return added, len(gone)


def lists_version() -> tuple[Any, ...]:
    """Return what changes whenever a list is created, edited, deleted or (de)activated."""
    # Saving a list moves the latest update; a list leaving the active set (deleted,
    # paused, its owner's account deleted) lowers the count and the sum of ids.
    found = KeywordList.objects.active().aggregate(
        count=Count("id"), latest=Max("updated_at"), ids=Sum("id")
    )
    return found["count"], found["latest"], found["ids"]


Row = tuple[int, datetime, str, str, bool, bool, dict[str, Any]]


def _rows(ids: list[int]) -> list[Row]:
    """Return the stored fields the index needs for some lists that are still active."""
    return list(
        KeywordList.objects.active()
        .filter(id__in=ids)
        .values_list(
            "id", "updated_at", "terms", "language", "use_synonyms", "match_all", "synonym_choices"
        )
    )


def compile_rows(rows: list[Row]) -> list[tuple[int, CompiledList | None]]:
    """Compile stored lists, using and feeding the shared cache of compiled work.

    A list whose stored text no longer parses (the rules changed since it was saved) is
    logged and gives None: it matches nothing until its owner fixes it.
    """
    texts = [(terms, language, use, choices) for _, _, terms, language, use, _, choices in rows]
    unshared = shared.fetch(texts, cache)
    compiled: list[tuple[int, CompiledList | None]] = []
    for list_id, _, terms, language, use_synonyms, match_all, choices in rows:
        try:
            compiled.append(
                (list_id, compile_text(list_id, terms, language, use_synonyms, match_all, choices))
            )
        except TermSyntaxError as exc:
            log.warning("Keyword list %s does not parse and matches nothing: %s", list_id, exc)
            compiled.append((list_id, None))
    shared.share(unshared, cache, clipping_settings().index_line_cache_seconds)
    return compiled


# The shared cache key of one compiled line.
_line_key = shared.line_entry


_shared = SharedIndex()


def current_index() -> KeywordIndex:
    """Return this process's index of every active list, refreshed when due."""
    return _shared.current()


def refresh_index() -> tuple[int, int]:
    """Bring this process's index up to date now; return (lists added, lists removed)."""
    return _shared.refresh()
