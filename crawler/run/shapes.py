"""Judge URL shapes from the pages themselves: generated traps and copies, within one run.

A shape (`crawler.canonical.url_shape`: `/events/?date=*`, `/posts/*/print/`) is the family
of pages one template of the site generates. Static URL checks (`crawler.canonical.is_trap`)
catch what a URL alone gives away; these judgements catch what only the answers do:

1. Trap: after `TRAP_PROBE` fetched pages of a shape, if nearly all were empty (no
   information page, no new link to a page of another shape, and no text or the same
   visible text as the shape's previous page but for numbers and a word or two, such as a
   date), the shape is an endless generated space (a calendar, a date-paged archive
   without content, faceted filters). Its later URLs are refused, and every fetch spent
   on it counts as a trap fetch.
2. Copy: a page whose rel=canonical names another page of the site (on its own origins,
   or its production host, mapped) is a duplicate fetch; once
   `COPY_PROBE` pages of a shape (one for a view: /print/, /amp/) pointed elsewhere and
   none named itself, the shape is a family of copies (print views, AMP pages, session
   URLs) and is refused. A page of a paginated list naming the list's first page is no
   copy (many sites do it by mistake). A canonical on another website (a mirror's article
   naming the encyclopedia, a syndicated story naming its agency) names no page this crawl
   could fetch instead: the page is the site's content, never a copy. Such canonicals are
   recorded for the run (`elsewhere`), and nothing is refused for them.
3. Suspect shapes (with a query, or a view of a page) are probed with one page before
   more of them are handed out (`unproven`).

A shape judged a trap or a copy stays closed for every later run and watch of the site: the
run keeps its verdicts (`crawler.models.SiteLesson`), and the next run starts with them
(`closed_traps`, `closed_copies`) until an admin reopens one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from crawler.canonical import pager_key, url_shape

TRAP_PROBE = 6  # pages of a shape fetched before judging it
TRAP_EMPTY_SHARE = 0.8  # share of empty pages that makes it a trap
COPY_PROBE = 2  # copies pointing elsewhere before the shape is refused
# A shape ending in a view of a page (/x/print/): one copy confirms what the URL says.
VIEW_SEGMENTS = frozenset({"print", "printable", "amp", "mobile", "m", "embed", "preview"})
FOREIGN_KEPT = 20  # canonicals on another website kept per run as examples for admins
SAME_TEXT = 0.85  # shared words / words of the smaller page: "the same page, another date"
_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)


@dataclass
class ShapeRecord:
    """What one run saw of a URL shape."""

    fetched: int = 0
    empty: int = 0
    copies: int = 0
    originals: int = 0
    last_text: str | None = None  # the last page's visible text, its words read when needed
    trap: bool = False
    copy: bool = False


class ShapeWatch:
    """Per-run judgements of URL shapes, consulted by the frontier before every fetch."""

    def __init__(
        self, *, closed_traps: Iterable[str] = (), closed_copies: Iterable[str] = ()
    ) -> None:
        self.shapes: dict[str, ShapeRecord] = {}
        # Shapes earlier runs closed: never fetched, and not judged again in this run.
        self.closed: dict[str, str] = {shape: "duplicate" for shape in closed_copies}
        self.closed |= {shape: "trap" for shape in closed_traps}
        self.seen: set[str] = set()  # link targets seen on fetched pages in this run
        self.trap_fetches = 0
        self.duplicate_fetches = 0
        # Pages whose canonical names a URL on another website: (page, canonical) examples.
        self.foreign: list[tuple[str, str]] = []
        self.foreign_count = 0

    def elsewhere(self, url: str, canonical: str) -> None:
        """Note a page whose rel=canonical names a URL outside the site (no copy)."""
        self.foreign_count += 1
        if len(self.foreign) < FOREIGN_KEPT:
            self.foreign.append((url, canonical))

    def unproven(self, url: str) -> bool:
        """Tell whether the URL's shape may be a trap or a copy and none of it was fetched yet.

        Suspect shapes: those with a query (calendars, filters, sessions) and views of a
        page (/print/, /amp/). The run fetches one page of such a shape before the others.
        """
        shape = url_shape(url)
        if shape in self.shapes or shape in self.closed:
            return False
        return "?" in shape or shape.rstrip("/").rsplit("/", 1)[-1] in VIEW_SEGMENTS

    def probing(self, url: str, others: Iterable[str]) -> bool:
        """Tell whether a URL of the same, never fetched, shape is among `others`."""
        shape = url_shape(url)
        return any(url_shape(other) == shape for other in others)

    def refusal(self, url: str) -> str | None:
        """Return "trap" or "duplicate" when the URL's shape was judged one, else None."""
        shape = url_shape(url)
        if shape in self.closed:
            return self.closed[shape]
        record = self.shapes.get(shape)
        if record is None:
            return None
        if record.trap:
            return "trap"
        if record.copy:
            return "duplicate"
        return None

    def observe(
        self,
        url: str,
        *,
        text: str | None,
        links: Iterable[str],
        canonical: str | None,
        informative: bool = False,
    ) -> tuple[int, int]:
        """Learn from one fetched page; return (trap fetches, duplicate fetches) it revealed.

        `text` is the page's visible text (None when it has none), `informative` whether
        the analyzer called it an information page (an article is never empty), `links` its
        outgoing link URLs, `canonical` the URL its rel=canonical names (mapped and
        canonicalised) when it is a page of the site, None without one (see `elsewhere`).
        """
        shape = url_shape(url)
        record = self.shapes.setdefault(shape, ShapeRecord())
        record.fetched += 1
        fresh_elsewhere = 0
        for link in links:
            if link not in self.seen:
                self.seen.add(link)
                if url_shape(link) != shape:
                    fresh_elsewhere += 1
        # Generated: nothing new but more of its own shape, and the text of its sibling
        # with a date changed. A list whose items are all known already shows other
        # titles than its siblings: exhausted, not a trap. (Words are read only here.)
        if not informative and fresh_elsewhere <= 1:
            words = _words(text)
            if not words or _similar(words, _words(record.last_text)):
                record.empty += 1
        record.last_text = text
        traps = duplicates = 0
        if record.trap:
            traps = 1
        elif record.fetched >= TRAP_PROBE and record.empty >= TRAP_EMPTY_SHARE * record.fetched:
            record.trap = True
            traps = record.fetched  # the probe was spent on the trap too
        if canonical is not None and pager_key(canonical)[0] == pager_key(url)[0]:
            # Pages of a list naming the list's first page: a common slip, not a copy.
            canonical = url
        if canonical is not None and canonical != url:
            record.copies += 1
            duplicates = 1
            probe = 1 if shape.rstrip("/").rsplit("/", 1)[-1] in VIEW_SEGMENTS else COPY_PROBE
            if record.copies >= probe and record.originals == 0:
                record.copy = True
        elif canonical == url:
            record.originals += 1
        self.trap_fetches += traps
        self.duplicate_fetches += duplicates
        return traps, duplicates

    def judged(self) -> dict[str, object]:
        """Return the shapes judged traps and copies and the canonicals elsewhere, for the run."""
        return {
            "trap_shapes": sorted(s for s, r in self.shapes.items() if r.trap),
            "copy_shapes": sorted(s for s, r in self.shapes.items() if r.copy),
            "foreign_canonicals": [list(pair) for pair in self.foreign],
            "foreign_canonical_count": self.foreign_count,
        }


def _words(text: str | None) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower())) if text else frozenset()


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    """Tell whether two pages' word sets are the same but for a few words (overlap coefficient)."""
    if not b:
        return False
    return len(a & b) / min(len(a), len(b)) >= SAME_TEXT
