"""Compile keyword lists into the token keys their terms match (keys.py), each line compiled
once per process (lines.py) under the key its synonyms resolved to (resolution.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from clipping.matching.keys import CompiledTerm, stem_space
from clipping.matching.lines import CompiledLine, cached_line, line_cache
from clipping.matching.resolution import (
    cached_keyed_lines,
    frozen_choices,
    line_key,
    needs_resolution,
    resolutions,
)
from clipping.matching.synonyms import Choices, effective_synonyms
from clipping.terms import MAX_TERMS, NOTHING_TO_LOOK_FOR, Term, TermSyntaxError


@dataclass(frozen=True)
class ListSpec:
    """What the index needs of one keyword list, free of the database."""

    id: int
    language: str
    terms: list[Term]
    use_synonyms: bool = True
    match_all: bool = False
    choices: Mapping[str, Mapping[str, bool]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CompiledList:
    """A keyword list reduced to keys: what to look for, what excludes, where."""

    id: int
    positives: tuple[CompiledTerm, ...]
    exclusions: tuple[CompiledTerm, ...]
    sites: tuple[str, ...]
    excluded_sites: tuple[str, ...]
    match_all: bool


# Buckets of a list being compiled: terms, exclusions, sites, excluded sites.
Buckets = tuple[list[Any], list[Any], list[Any], list[Any]]


def compile_list(spec: ListSpec) -> CompiledList:
    """Turn a list's parsed terms into keys in its language, with synonyms if it wants them."""
    lines = line_cache(stem_space(spec.language), spec.use_synonyms)
    buckets: Buckets = ([], [], [], [])
    resolved = effective_synonyms(spec.terms, spec.language, spec.use_synonyms, spec.choices)
    for term, effective in zip(spec.terms, resolved, strict=True):
        key = line_key(term.raw, effective)
        bucket, value = cached_line(lines, key, term, spec.language, effective)
        buckets[bucket].append(value)
    return _compiled(spec.id, buckets, spec.match_all)


def compile_text(
    list_id: int,
    text: str,
    language: str,
    use_synonyms: bool = True,
    match_all: bool = False,
    choices: Choices | None = None,
) -> CompiledList:
    """Compile a list straight from its stored text, reusing lines compiled before.

    The index is built from the database at start-up: popular lines recur in thousands of
    lists, so each is parsed and compiled once per process (once per resolution of its
    synonyms, which depends on the list's other terms). Raises TermSyntaxError like
    parse_terms for a text the list form would have refused.
    """
    lines = line_cache(stem_space(language), use_synonyms)
    buckets: Buckets = ([], [], [], [])
    frozen = frozen_choices(choices)
    resolved: Sequence[str] | None
    known: list[CompiledLine | None] | None = None
    if needs_resolution(language, use_synonyms):
        resolved = resolutions.get((text, language, bool(use_synonyms), frozen))
    else:  # its line keys are its lines
        resolved = [line for line in map(str.strip, text.splitlines()) if line]
    if resolved is not None and len(resolved) <= MAX_TERMS:
        known = [lines.get(key) for key in resolved]
        if None not in known:  # every line compiled or shared already: no parsing, no WordNet
            positives = [value for bucket, value in known if not bucket]  # type: ignore[misc]
            if positives and len(positives) == len(known):  # most lists: terms only
                terms = cast(list[CompiledTerm], positives)
                return CompiledList(list_id, tuple(terms), (), (), (), match_all)
            for bucket, value in known:  # type: ignore[misc]
                buckets[bucket].append(value)
            if buckets[0]:  # else parsed below, to be refused as compile_text refuses it
                return _compiled(list_id, buckets, match_all)
            buckets = ([], [], [], [])
    keyed = cached_keyed_lines(text, language, use_synonyms, frozen)
    looked: Sequence[str | None] = [None] * len(keyed)
    if resolved is not None and known is not None and len(known) == len(keyed):
        looked = resolved  # lines looked up above under the same key: not looked up again
    else:
        known = [None] * len(keyed)
    for (key, term, effective), at, line in zip(keyed, looked, known, strict=True):
        if line is None or (at is not key and at != key):
            line = cached_line(lines, key, term, language, effective)
        buckets[line[0]].append(line[1])
    if len(keyed) > MAX_TERMS:
        raise TermSyntaxError(f"A list holds at most {MAX_TERMS} terms; this one has {len(keyed)}.")
    if not buckets[0]:
        raise TermSyntaxError(NOTHING_TO_LOOK_FOR if keyed else "Add at least one term.")
    return _compiled(list_id, buckets, match_all)


def _compiled(list_id: int, buckets: Buckets, match_all: bool) -> CompiledList:
    positives, exclusions, sites, excluded_sites = buckets
    return CompiledList(
        id=list_id,
        positives=tuple(positives),
        exclusions=tuple(exclusions),
        sites=tuple(sites),
        excluded_sites=tuple(excluded_sites),
        match_all=match_all,
    )
