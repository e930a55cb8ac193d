"""Share what workers compiled through a cache, so that a new worker does not redo it.

Compiling a list costs WordNet lookups (which senses its terms mean among its other terms)
and stemming (each line's keys). Both are kept in a cache every worker reads (Django's:
Redis when several hosts run), under keys that carry COMPILE_VERSION, so workers never read
another version's work:

1. a list's resolution: the line keys of its stored text (each line with the synonyms its
   senses resolved to in that list), keyed by a digest of the text, its language, synonym
   setting and switches;
2. a compiled line, keyed by a digest of its line key: its keys and notes.

`fetch` seeds this process's caches with both for the lists it is about to compile and
returns what nobody shared yet; `share` puts that into the cache once compiled. `cache` is
anything with Django's `get_many` and `set_many`.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Mapping
from typing import Protocol

from clipping.matching.lines import (
    COMPILE_VERSION,
    CompiledLine,
    from_shared,
    shareable,
    unknown_lines,
)
from clipping.matching.resolution import (
    Resolution,
    needs_resolution,
    resolution,
    resolved_keys,
    seed_resolution,
    shared_resolution,
)
from clipping.matching.synonyms import Choices
from clipping.terms import TermSyntaxError

log = logging.getLogger(__name__)

CHUNK = 2000  # keys per cache round trip
# A stored list: (terms, language, use_synonyms, choices).
Text = tuple[str, str, bool, Choices | None]


class Cache(Protocol):
    def get_many(self, keys: list[str]) -> Mapping[str, object]: ...

    def set_many(self, data: dict[str, object], timeout: int | None = ...) -> object: ...


class Unshared:
    """What this process compiled that the cache did not hold: lines and resolutions."""

    def __init__(self) -> None:
        self.lines: dict[str, tuple[dict[str, CompiledLine], str]] = {}
        self.resolutions: dict[str, Resolution] = {}


def line_entry(space: str, use_synonyms: bool, line: str) -> str:
    """Return the cache key of one compiled line (its line_key: with its synonyms)."""
    digest = hashlib.blake2b(line.encode(), digest_size=16).hexdigest()
    return f"matching:line:{COMPILE_VERSION}:{space}:{int(use_synonyms)}:{digest}"


def resolution_entry(found: Resolution) -> str:
    """Return the cache key of a list's resolution."""
    digest = hashlib.blake2b(repr(found).encode(), digest_size=16).hexdigest()
    return f"matching:list:{COMPILE_VERSION}:{digest}"


def fetch(texts: Iterable[Text], cache: Cache) -> Unshared:
    """Seed this process's caches with what other workers shared for these lists.

    1. The resolutions of lists whose line keys depend on WordNet.
    2. The compiled lines this process does not hold, now that every list's line keys are
       known (resolved here for lists nobody shared).
    """
    unshared = Unshared()
    texts = list(texts)
    wanted = {
        resolution_entry(found): found
        for terms, language, use_synonyms, choices in texts
        if needs_resolution(language, use_synonyms)
        for found in [resolution(terms, language, use_synonyms, choices)]
    }
    for key, value in _get_many(cache, list(wanted)):
        try:
            if not isinstance(value, tuple) or any(
                line is not None and not isinstance(line, str) for line in value
            ):
                raise ValueError("not a tuple of line keys")
            seed_resolution(wanted[key], value)
        except ValueError:
            log.warning("Ignoring a malformed list resolution in the shared cache: %s", key)
            continue  # resolved here, and shared again
        del wanted[key]
    unshared.resolutions = wanted
    missing = unshared.lines
    for (space, use_synonyms), (local, lines) in unknown_lines(texts).items():
        for line in lines:
            missing[line_entry(space, use_synonyms, line)] = (local, line)
    for key, value in _get_many(cache, list(missing)):
        try:
            compiled = from_shared(value)  # type: ignore[arg-type]
        except ValueError:
            log.warning("Ignoring a malformed compiled line in the shared cache: %s", key)
            continue  # compiled here, and shared again
        local, line = missing.pop(key)
        local[line] = compiled
    return unshared


def share(unshared: Unshared, cache: Cache, timeout: int | None) -> None:
    """Put the lines and resolutions this process compiled into the cache."""
    ready: dict[str, object] = {}
    for key, (local, line) in unshared.lines.items():
        compiled = local.get(line)
        if compiled is not None:
            ready[key] = shareable(compiled)
    for key, found in unshared.resolutions.items():
        try:
            ready[key] = shared_resolution(resolved_keys(found))
        except TermSyntaxError:
            continue  # a list that no longer parses matches nothing: nothing to share
    keys = list(ready)
    for start in range(0, len(keys), CHUNK):
        cache.set_many({key: ready[key] for key in keys[start : start + CHUNK]}, timeout=timeout)


def _get_many(cache: Cache, keys: list[str]) -> Iterable[tuple[str, object]]:
    for start in range(0, len(keys), CHUNK):
        yield from cache.get_many(keys[start : start + CHUNK]).items()
