"""Types of the C accelerator (clipping/matching/_speedups.c)."""

from collections.abc import Callable, Iterable, Sequence

API: int

def scan(
    sequence: list[str],
    concepts: dict[str, list[int]],
    follows: dict[str, dict[str, int]],
    prefixes: dict[str, int],
    separator: str,
    found: dict[int, list[tuple[int, int]]],
    several: list[int],
    limit: int,
) -> None: ...
def collect(
    found: dict[int, list[tuple[int, int]]],
    simple: list[list[int]],
    judged: list[list[int]],
    spans_of: dict[int, tuple],
    context: tuple,
    limit: int,
    new_text: Sequence[tuple[int, int]],
) -> tuple[dict[int, tuple], set[int]]: ...
def merge(groups: Sequence[tuple], limit: int, new_text: Sequence[tuple[int, int]]) -> tuple: ...
def spans(
    where: list[tuple[int, int]],
    starts: list[int],
    ends: list[int],
    term: str,
    span_type: type,
    limit: int,
    new_text: Sequence[tuple[int, int]],
) -> tuple: ...
def judge(
    list_ids: Iterable[int],
    entries: dict[int, tuple],
    found: dict[int, list[tuple[int, int]]],
    host: str | None,
    host_allowed: Callable[[str | None, tuple[str, ...], tuple[str, ...]], bool],
    spans_of: dict[int, tuple],
    context: tuple,
    limit: int,
    new_text: Sequence[tuple[int, int]],
    matches: dict[int, tuple],
) -> None: ...
def add_postings(
    terms: tuple,
    by_identity: dict[int, int],
    stored: list,
    postings: list[list[int]],
    list_id: int,
    concept_of: Callable[[object], int],
) -> tuple[int, ...]: ...
