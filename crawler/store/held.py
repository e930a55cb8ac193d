"""The rows of a batch of stored pages, held and written together when the batch ends.

`crawler.store.pages` holds what it writes of each page in the `HeldBatch` it is handed (a
crawl run stores a batch of pages in one transaction): the version, the page's own state
and its links, and the frontier's new pages (`hold_new_pages`, their ids reserved from
PostgreSQL's sequence). They are written together when the batch ends: on PostgreSQL in one
round trip, one statement per kind of row for the whole batch. Until then the database does
not show them: code storing the batch reads a page just stored from memory, or writes the
batch's rows first (`HeldBatch.write`).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime, time
from functools import cache

from django.db import DatabaseError, connection, transaction
from django.db.models import Field, Model
from django.utils.functional import Promise

from crawler.conf import crawler_settings
from crawler.models import Link, Page, PageVersion

logger = logging.getLogger(__name__)


class HeldBatch:
    """The rows of a batch of pages stored together, held until `write` (see `writes_held`).

    Passed along explicitly to whatever stores a page of the batch: `record_version` and
    `record_unchanged` hold a page's version, state and links here, the frontier its new
    pages (`hold_new_pages`) and short statements (`hold_statement`).
    """

    def __init__(self) -> None:
        self.new_pages: list[Page] = []  # frontier pages with reserved ids
        self.renumbered: list[Callable[[dict[int, int]], None]] = []
        self.versions: list[PageVersion] = []
        self.updates: list[tuple[Page, tuple[str, ...]]] = []  # page, fields to write
        self.links: list[tuple[object, ...]] = []
        self.after: list[Callable[[], None]] = []  # what needs the rows above (version ids)
        # Statements run after the rows, in the same round trip (`hold_statement`).
        self.statements: list[tuple[str, list[object]]] = []
        self._max_links: int | None = None  # the setting, read once for the batch

    def write(self) -> None:
        """Write the rows held so far: new pages, versions, page states, links."""
        if not (self.new_pages or self.versions or self.updates or self.after or self.statements):
            return
        rows = HeldBatch()
        for name in _ROWS:  # held anew: what runs below may hold more
            setattr(rows, name, getattr(self, name))
            setattr(self, name, [])
        if connection.vendor == "postgresql":
            _write_together(rows)
        else:  # no held new pages here: `holds_new_pages` is PostgreSQL's only
            PageVersion.objects.bulk_create(rows.versions)
            _update_pages(rows.updates)
            insert_links(rows.links)
        for call in rows.after:
            call()

    def hold_statement(self, sql: str, params: Sequence[object]) -> bool:
        """Hold a short statement to run after the batch's rows, in the same round trip;
        return False, holding nothing, unless the database is PostgreSQL.

        For writes that need no answer (a page's depth, the site's next watch): the batch's
        new pages are in by then, so a statement naming them finds them.
        """
        if connection.vendor != "postgresql":
            return False
        self.statements.append((sql, list(params)))
        return True

    def holds_new_pages(self) -> bool:
        """Tell whether new pages can be held (`hold_new_pages`): the database reserves ids
        (PostgreSQL)."""
        return connection.vendor == "postgresql"

    def hold_new_pages(self, pages: list[Page], renumber: Callable[[dict[int, int]], None]) -> None:
        """Hold the insert of new pages until `write` (see `holds_new_pages`).

        Each page carries an id from `reserve_page_ids`. A page another process stored
        meanwhile keeps its own id: `renumber` gets {reserved id: stored id} for those.
        """
        self.new_pages.extend(pages)
        if renumber not in self.renumbered:
            self.renumbered.append(renumber)

    def max_links(self) -> int:
        """Return CRAWLER_MAX_LINKS_PER_PAGE, read once per batch."""
        if self._max_links is None:
            self._max_links = crawler_settings().max_links_per_page
        return self._max_links


_ROWS = ("new_pages", "renumbered", "versions", "updates", "links", "after", "statements")


@contextmanager
def writes_held() -> Iterator[HeldBatch]:
    """Hold the page writes made inside with the batch it yields, and write them together
    when the block ends.

    Meant inside one transaction: if the block raises, the held rows are dropped with it.
    """
    batch = HeldBatch()
    yield batch
    batch.write()


def reserve_page_ids(count: int) -> list[int]:
    """Return `count` new page ids from the database's sequence (PostgreSQL), in order."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [Page._meta.db_table, count],
        )
        return [row[0] for row in cursor.fetchall()]


def _write_together(held: HeldBatch) -> None:
    """Write a batch's held rows in one round trip to PostgreSQL.

    One statement per kind of row, each reading the batch's rows of its kind from one JSON
    parameter with the table's own row type (`json_populate_recordset`): a short statement
    whatever the number of rows, whose rows the json module encodes in C, where a parameter
    per value costs the driver Python work per value. The new pages come first, so the links
    to them find them; a page another process stored meanwhile keeps its own id
    (`_take_stored_ids`).
    """
    statements: list[tuple[str, list[object]]] = []
    if held.new_pages:
        statements.append(
            _insert(
                Page,
                _PAGE_FIELDS(),
                held.new_pages,
                "ON CONFLICT (site_id, url) DO UPDATE SET url = EXCLUDED.url RETURNING id, url",
            )
        )
    if held.versions:
        statements.append(_insert(PageVersion, _VERSION_FIELDS(), held.versions, "RETURNING id"))
    statements.extend(_page_updates(held.updates))
    if held.links:
        statements.append(_link_insert(held.links))
    statements.extend(held.statements)
    with connection.cursor() as cursor:
        # Our own table and column names; the rows are parameters.
        cursor.execute(
            ";\n".join(sql for sql, _ in statements),
            [value for _, params in statements for value in params],
        )
        stored = {}
        if held.new_pages:
            stored = {url: page_id for page_id, url in cursor.fetchall()}
            cursor.nextset()
        if held.versions:
            for version, (version_id,) in zip(held.versions, cursor.fetchall(), strict=True):
                version.pk = version_id
                version._state.adding = False
                version._state.db = connection.alias
    if stored:
        _take_stored_ids(held, stored)


def _take_stored_ids(held: HeldBatch, stored: dict[str, int]) -> None:
    """Give the new pages another process stored first that process's ids, in memory and in
    the links just written to them (their foreign keys are checked at commit)."""
    remap = {}
    for page in held.new_pages:
        if stored[page.url] != page.pk:
            remap[page.pk] = stored[page.url]
            page.pk = stored[page.url]
    if not remap:
        return
    table, column = _quote(Link._meta.db_table), _quote(Link._meta.get_field("target_page").column)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {column} = moved.stored "  # noqa: S608
            f"FROM unnest(%s::bigint[], %s::bigint[]) AS moved(reserved, stored) "
            f"WHERE {table}.{column} = moved.reserved",
            [list(remap), list(remap.values())],
        )
    for renumber in held.renumbered:
        renumber(remap)


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


@cache
def _PAGE_FIELDS() -> tuple[Field, ...]:  # noqa: N802 - a constant once the models are loaded
    return tuple(Page._meta.concrete_fields)


@cache
def _VERSION_FIELDS() -> tuple[Field, ...]:  # noqa: N802 - a constant once the models are loaded
    return tuple(f for f in PageVersion._meta.concrete_fields if not f.primary_key)


def _records(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """Return rows of column values as a JSON array of objects, the text
    `json_populate_recordset` reads into the table's row type (each value by its column's
    input function: timestamps as ISO text, bytea as \\x-hex, jsonb columns as JSON)."""
    return json.dumps(
        [dict(zip(columns, row, strict=True)) for row in rows],
        default=_json_value,
        allow_nan=False,
        separators=(",", ":"),
    )


def _json_value(value: object) -> object:
    """Return a value json cannot write as the text its column type reads."""
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return "\\x" + bytes(value).hex()
    if isinstance(value, Promise):  # a lazy translation
        return str(value)
    raise TypeError(f"cannot store a {type(value).__name__} value")


def _field_value(field: Field, row: Model, add: bool) -> object:
    """Return the value a field of a model instance is stored with, as JSON can carry it."""
    value = field.pre_save(row, add)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value).replace("inf", "Infinity").replace("nan", "NaN")  # float8's spelling
    return value


def _from_records(model: type[Model], alias: str = "") -> str:
    table = _quote(model._meta.db_table)
    return f"json_populate_recordset(NULL::{table}, %s::json){alias}"


def _insert(
    model: type[Model], fields: Sequence[Field], rows: Sequence[Model], tail: str
) -> tuple[str, list[object]]:
    """Return an INSERT of `rows` (model instances) from JSON records, and the records."""
    columns = [field.column for field in fields]
    names = ", ".join(_quote(column) for column in columns)
    sql = (
        f"INSERT INTO {_quote(model._meta.db_table)} ({names}) "  # noqa: S608
        f"SELECT {names} FROM {_from_records(model)} {tail}"
    )
    records = _records(columns, ([_field_value(f, row, True) for f in fields] for row in rows))
    return sql, [records]


def _page_updates(
    updates: list[tuple[Page, tuple[str, ...]]],
) -> list[tuple[str, list[object]]]:
    """Return one UPDATE per run of pages with the same fields (see `_update_pages`), each
    from JSON records; a page twice in a run is written with its last state.

    The ids are also given as an array: the planner guesses a hundred records in any JSON
    parameter and would join them to a scan of the whole page table, every site's pages.
    """
    table = _quote(Page._meta.db_table)
    statements = []
    for names, pages in _runs(updates):
        last = {page.pk: page for page in pages}
        fields = [Page._meta.get_field(name) for name in names]
        assignments = ", ".join(
            f"{_quote(field.column)} = held.{_quote(field.column)}" for field in fields
        )
        sql = (
            f"UPDATE {table} SET {assignments} "  # noqa: S608
            f"FROM {_from_records(Page, ' AS held')} "
            f"WHERE {table}.id = ANY(%s::bigint[]) AND {table}.id = held.id"
        )
        rows = ([*(_field_value(f, page, False) for f in fields), pk] for pk, page in last.items())
        records = _records([*(f.column for f in fields), "id"], rows)
        statements.append((sql, [records, list(last)]))
    return statements


def _link_insert(rows: list[tuple[object, ...]]) -> tuple[str, list[object]]:
    """Return an INSERT of Link rows (values in `_LINK_COLUMNS` order) from JSON records,
    and the records."""
    names = ", ".join(_quote(column) for column in _LINK_COLUMNS)
    sql = (
        f"INSERT INTO {_quote(Link._meta.db_table)} ({names}) "  # noqa: S608
        f"SELECT {names} FROM {_from_records(Link)}"
    )
    return sql, [_records(_LINK_COLUMNS, rows)]


def _runs(
    updates: list[tuple[Page, tuple[str, ...]]],
) -> list[tuple[tuple[str, ...], list[Page]]]:
    """Group updates into runs of pages with the same fields, in the order given."""
    runs: list[tuple[tuple[str, ...], list[Page]]] = []
    for page, names in updates:
        if not runs or runs[-1][0] != names:
            runs.append((names, []))
        runs[-1][1].append(page)
    return runs


def _update_pages(updates: list[tuple[Page, tuple[str, ...]]]) -> None:
    """Write the named fields of each page, in the order given (a page written twice keeps
    its last state): one statement per run of pages with the same fields, run per page."""
    table = _quote(Page._meta.db_table)
    for names, pages in _runs(updates):
        fields = [Page._meta.get_field(name) for name in names]
        assignments = ", ".join(f"{_quote(field.column)} = %s" for field in fields)
        rows = [
            [field.get_db_prep_save(field.pre_save(page, False), connection) for field in fields]
            + [page.pk]
            for page in pages
        ]
        with connection.cursor() as cursor:
            # Our own table and column names; the values are parameters.
            cursor.executemany(f"UPDATE {table} SET {assignments} WHERE id = %s", rows)  # noqa: S608


_LINK_COLUMNS = ("from_page_id", "target_url", "target_page_id", "anchor", "area_path", "area_kind")


def insert_links(rows: list[tuple[object, ...]]) -> None:
    """Insert Link rows (values in `_LINK_COLUMNS` order): by COPY on PostgreSQL, else one
    short statement run for each.

    Every stored page writes its links: plain rows, not a model instance and its field
    conversions per link, keep that cheap.
    """
    if not rows:
        return
    quote = connection.ops.quote_name
    # Our own table and column names; the values are parameters.
    table = quote(Link._meta.db_table)
    columns = ", ".join(quote(column) for column in _LINK_COLUMNS)
    values = ", ".join(["%s"] * len(_LINK_COLUMNS))
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # COPY streams the rows: no statement per row for the server to run.
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({values})", rows)  # noqa: S608


@contextmanager
def stored_together(*, relaxed: bool = False) -> Iterator[HeldBatch]:
    """Store the pages processed with the batch it yields in one transaction.

    A page processed in the batch opens no savepoint of its own (each costs round trips to
    the database): whatever fails rolls the whole transaction back, which keeps every page
    whole or absent. The pages' own rows are written together at the end (`HeldBatch`).
    `relaxed`: the connection's commits already skip waiting for the disk
    (`commits_relaxed`); else this transaction's do.
    """
    with transaction.atomic(), writes_held() as batch:
        if connection.vendor == "postgresql" and not relaxed:
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")  # see `commits_relaxed`
        yield batch


@contextmanager
def commits_relaxed() -> Iterator[None]:
    """Let the commits of this connection not wait for the disk while the block runs.

    A killed worker loses nothing by it, and a database crash loses at most the last
    moments of pages, which the frontier (written in the same transactions) fetches again.
    Consistency is unaffected. A crawl run sets it once for its connection (one round trip
    per batch less, `stored_together(relaxed=True)`); `stored_together` alone sets it per
    transaction.
    """
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO OFF")
    try:
        yield
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute("RESET synchronous_commit")
        except DatabaseError:
            # An aborted transaction refuses it; its rollback, or closing the broken
            # connection, ends the setting anyway.
            logger.info("Could not reset synchronous_commit after a crawl run.")
