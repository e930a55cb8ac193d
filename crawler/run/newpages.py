"""The queue of a site's never-fetched pages in breadth-first order, read a window at a time."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django.db.models import Case, IntegerField, Q, QuerySet, Value, When

from crawler.models import Page
from crawler.models.pages import PageQuerySet

# Seeds, sitemaps and feeds come before analyzer hubs and ordinary pages.
ROLE_ORDER = Case(
    When(role=Page.Role.SEED, then=Value(0)),
    When(role=Page.Role.SITEMAP, then=Value(1)),
    When(role=Page.Role.FEED, then=Value(2)),
    default=Value(3),
    output_field=IntegerField(),
)


# (id, url, depth, last_fetched_at) of a page, as the bands read them.
Row = tuple[int, str, int, datetime | None]
BANDS: dict[str, int] = {
    Page.Role.SEED: 0,
    Page.Role.SITEMAP: 1,
    Page.Role.FEED: 2,
}  # as ROLE_ORDER


class NewQueue:
    """The first never-fetched pages of a site in breadth-first order (depth, band, id).

    Read from the database `WINDOW` rows at a time, each read starting after the last row
    read (keyset), so the run asks once per window, not once per batch. It stays the true
    head of the order: a page added that sorts before the last row read, or moved up, takes
    its place among the rows read (`place`); one that sorts after it is read by a later `fill`.
    """

    WINDOW = 256

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.keys: list[tuple[int, int, int]] = []  # (depth, band, id) of each row, in order
        # The rows read, as records, until handed out (see `Frontier.pages`).
        self.pages: dict[str, Page] = {}
        self.last: tuple[int, int, int] | None = None  # (depth, band, id) of the last row read
        self.complete = False  # the last read found every remaining row

    def fill(self, pages: PageQuerySet) -> bool:
        """Read the next window after the last row read; return whether any row came."""
        if self.complete:
            return False
        # Typed loosely: the stubs do not know the annotated "band".
        rows: QuerySet[Any] = pages.unfetched().annotate(band=ROLE_ORDER)
        if self.last is not None:
            depth, band, page_id = self.last
            rows = rows.filter(
                Q(depth__gt=depth)
                | Q(depth=depth, band__gt=band)
                | Q(depth=depth, band=band, id__gt=page_id)
            )
        found = list(rows.order_by("depth", "band", "id")[: self.WINDOW])
        self.complete = len(found) < self.WINDOW
        if found:
            self.last = (found[-1].depth, found[-1].band, found[-1].id)
            self.rows.extend((p.id, p.url, p.depth, p.last_fetched_at) for p in found)
            self.keys.extend((p.depth, p.band, p.id) for p in found)
            self.pages.update((p.url, p) for p in found)
        return bool(found)

    def place(self, page: Page) -> None:
        """Put a never-fetched page at its place in the order: among the rows read if it sorts
        before the last one (moved there if it was read already), else left to a later read."""
        if self.last is None:
            return  # nothing read yet: the next read starts at the head
        key = (page.depth, BANDS.get(page.role, 3), page.pk)
        if key > self.last:
            self.complete = False
            return
        if page.url in self.pages:
            at = next(i for i, row in enumerate(self.rows) if row[1] == page.url)
            del self.rows[at], self.keys[at]
        at = bisect.bisect_left(self.keys, key)
        self.keys.insert(at, key)
        self.rows.insert(at, (page.pk, page.url, page.depth, page.last_fetched_at))
        self.pages[page.url] = page

    def drop(self, page_ids: list[int]) -> None:
        """Remove deleted pages."""
        gone = set(page_ids)
        kept = [at for at, row in enumerate(self.rows) if row[0] not in gone]
        self.rows = [self.rows[at] for at in kept]
        self.keys = [self.keys[at] for at in kept]
        self.pages = {url: page for url, page in self.pages.items() if page.id not in gone}


def windows(rows: QuerySet[Any], limit: int) -> Iterator[Row]:
    """Yield the rows of a query, read a window at a time as they are needed."""
    offset = 0
    window = max(limit * 2, 64)
    while True:
        found = list(rows[offset : offset + window])
        if not found:
            return
        offset += window
        yield from found
