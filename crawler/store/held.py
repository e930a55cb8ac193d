"""The rows of a batch of stored pages, held and written together when the batch ends.

`crawler.store.pages` holds what it writes of each page here while `writes_held` is open (a
crawl run stores a batch of pages in one transaction): the version, the page's own state
and its links, and the frontier's new pages (`hold_new_pages`, their ids reserved from
PostgreSQL's sequence). They are written together when the block ends, a few statements for
the whole batch instead of a few per page. Until then the database does not show them:
code inside the block reads a page just stored from memory, or calls `write_held` first.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import connection

from crawler.conf import crawler_settings
from crawler.models import Link, Page, PageVersion


class _Held:
    """Rows `record_version`, `record_unchanged` and `hold_new_pages` hold until `write_held`."""

    def __init__(self) -> None:
        self.new_pages: list[Page] = []  # frontier pages with reserved ids
        self.renumbered: list[Callable[[dict[int, int]], None]] = []
        self.versions: list[PageVersion] = []
        self.updates: list[tuple[Page, tuple[str, ...]]] = []  # page, fields to write
        self.links: list[tuple[object, ...]] = []
        self.after: list[Callable[[], None]] = []  # what needs the rows above (version ids)
        self.max_links: int | None = None  # the setting, read once for the batch


_holding = threading.local()


def held_now() -> _Held | None:
    """Return the rows held by the open `writes_held` of this thread, None if none is open."""
    return getattr(_holding, "held", None)


@contextmanager
def writes_held() -> Iterator[None]:
    """Hold the page writes made inside and write them together when the block ends.

    Meant inside one transaction: if the block raises, the held rows are dropped with it.
    Nested use holds everything until the outermost block ends.
    """
    if held_now() is not None:
        yield
        return
    _holding.held = _Held()
    try:
        yield
        write_held()
    finally:
        _holding.held = None


def write_held() -> None:
    """Write the rows held so far (see `writes_held`): versions, page states, links."""
    held = held_now()
    if held is None or not (held.new_pages or held.versions or held.updates or held.after):
        return
    _holding.held = _Held()
    if held.new_pages:
        remap = _insert_pages(held.new_pages)
        if remap:  # stored meanwhile by another process: its id, not the reserved one
            held.links = [(*row[:2], remap.get(row[2], row[2]), *row[3:]) for row in held.links]
            for renumber in held.renumbered:
                renumber(remap)
    PageVersion.objects.bulk_create(held.versions)
    _update_pages(held.updates)
    insert_links(held.links)
    for call in held.after:
        call()


def holds_new_pages() -> bool:
    """Tell whether new pages can be held (`hold_new_pages`): writes are held, and the
    database reserves ids (PostgreSQL)."""
    return held_now() is not None and connection.vendor == "postgresql"


def hold_new_pages(pages: list[Page], renumber: Callable[[dict[int, int]], None]) -> None:
    """Hold the insert of new pages until `write_held` (see `holds_new_pages`).

    Each page carries an id from `reserve_page_ids`. A page another process stored
    meanwhile keeps its own id: `renumber` gets {reserved id: stored id} for those.
    """
    held = held_now()
    assert held is not None
    held.new_pages.extend(pages)
    if renumber not in held.renumbered:
        held.renumbered.append(renumber)


def reserve_page_ids(count: int) -> list[int]:
    """Return `count` new page ids from the database's sequence (PostgreSQL), in order."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [Page._meta.db_table, count],
        )
        return [row[0] for row in cursor.fetchall()]


def _insert_pages(pages: list[Page]) -> dict[int, int]:
    """Insert pages with their reserved ids, in one statement per 500; return {reserved id:
    stored id} for the pages another process stored meanwhile (their rows are kept)."""
    quote = connection.ops.quote_name
    fields = Page._meta.concrete_fields
    columns = ", ".join(quote(field.column) for field in fields)
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    remap = {}
    for start in range(0, len(pages), 500):
        chunk = pages[start : start + 500]
        params = [
            field.get_db_prep_save(field.pre_save(page, True), connection)
            for page in chunk
            for field in fields
        ]
        with connection.cursor() as cursor:
            # Our own table and column names; the values are parameters.
            cursor.execute(
                f"INSERT INTO {quote(Page._meta.db_table)} ({columns}) "  # noqa: S608
                f"VALUES {', '.join([row] * len(chunk))} "
                "ON CONFLICT (site_id, url) DO UPDATE SET url = EXCLUDED.url RETURNING id, url",
                params,
            )
            stored = dict((url, page_id) for page_id, url in cursor.fetchall())
        for page in chunk:
            if stored[page.url] != page.pk:
                remap[page.pk] = stored[page.url]
                page.pk = stored[page.url]
    return remap


def _update_pages(updates: list[tuple[Page, tuple[str, ...]]]) -> None:
    """Write the named fields of each page, in the order given (a page written twice keeps
    its last state): one statement per run of pages with the same fields, run per page."""
    quote = connection.ops.quote_name
    table = quote(Page._meta.db_table)
    runs: list[tuple[tuple[str, ...], list[list[object]]]] = []
    for page, names in updates:
        if not runs or runs[-1][0] != names:
            runs.append((names, []))
        fields = [Page._meta.get_field(name) for name in names]
        runs[-1][1].append(
            [field.get_db_prep_save(getattr(page, field.attname), connection) for field in fields]
            + [page.pk]
        )
    for names, rows in runs:
        columns = (Page._meta.get_field(name).column for name in names)
        assignments = ", ".join(f"{quote(column)} = %s" for column in columns)
        with connection.cursor() as cursor:
            # Our own table and column names; the values are parameters.
            cursor.executemany(f"UPDATE {table} SET {assignments} WHERE id = %s", rows)  # noqa: S608


def max_links() -> int:
    """Return CRAWLER_MAX_LINKS_PER_PAGE, read once per batch of held writes."""
    held = held_now()
    if held is None:
        return crawler_settings().max_links_per_page
    if held.max_links is None:
        held.max_links = crawler_settings().max_links_per_page
    return held.max_links


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
