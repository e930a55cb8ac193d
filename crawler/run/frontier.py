"""The persisted frontier of a site: which known URLs a crawl run may fetch, and in what order.

The frontier is the site's `Page` rows: a discovered URL becomes a Page at once (unfetched),
so killing a worker loses nothing and the next run continues where the last stopped. One run
takes URLs in three bands:

1. hubs (seeds, sitemaps, feeds, analyzer hubs) not fetched within the site's minimum revisit
   interval, because new URLs appear there;
2. new URLs, breadth-first (by depth, then discovery order);
3. known pages whose adaptive revisit time has come.

Trap protection happens on the way in (`refusal`): off-site hosts, the site's exclude
patterns, links to images and other files that are no HTML page, the depth limit, the
URL-shape checks of `crawler.canonical` (length, repeated segments), and the shapes this run
or an earlier one found to be traps or copies (`crawler.run.shapes`, `crawler.run.lessons`).
Parameters learnt to change nothing are dropped from URLs (`canonical`); a stored URL spelt
with one is not handed out again (`_pick`): its clean spelling is stored in its place.

Depth: a link is one step deeper than the page holding it, except a link to another page of
the same paginated list (`crawler.canonical.is_pager_link`): the pages of a list are one hub,
so `max_depth` counts the links followed from a seed through hubs and articles, never the
"older posts" clicks needed to reach an old article.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import suppress
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.db.models import Q, QuerySet
from django.utils import timezone

from crawler import canonical as urltools
from crawler.models import Page, Site
from crawler.models.pages import PageQuerySet
from crawler.run.lessons import Lessons, searched_before
from crawler.run.newpages import ROLE_ORDER, NewQueue, Row, windows
from crawler.sitesearch.template import looks_like_search
from crawler.store import held


class Frontier:
    """Admit, store and hand out the URLs of one site for one crawl run."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.hosts = site.host_list()
        self.excludes = site.exclude_list()
        # URLs handed out in this run; a URL is fetched at most once per run.
        self.taken: set[str] = set()
        # URLs handed out by next_batch and not yet stored, with their band.
        self.in_flight: dict[str, str] = {}
        # What this run knows of the stored pages (url -> id, depth, role), and of URLs
        # looked up and not stored, so that links seen again cost no query.
        self._known: dict[str, tuple[int, int, str]] = {}
        self._absent: set[str] = set()
        # Whether `_known` holds every stored page of the site (read whole at the first add
        # when the site is not too big): then a URL it lacks is not stored, and costs no query.
        self._whole: bool | None = None
        # The pages this run stored and has not handed out yet (see `pages`).
        self._created: dict[str, Page] = {}
        self._ids: deque[int] = deque()  # page ids reserved and not used yet (see `_insert`)
        # Production origins of the site -> the origin it is served under (learnt from the
        # seed's rel=canonical or the sitemap), so their URLs are crawled here.
        self.aliases: dict[str, str] = {}
        self.lessons = Lessons.of(site.pk)  # what the site's pages taught (`crawler.run.lessons`)
        self.shapes = self.lessons.shape_watch()
        self.searches_quiet = False  # set when the site's searches found nothing new to ask
        self._canonical: dict[str, str] = {}  # url as found -> canonical (see `canonical`)
        self._judged: dict[str, tuple[str | None, str | None]] = {}  # see `refusal`
        # The first never-fetched pages in breadth-first order, read a window at a time
        # (see `new_urls`), and until when the hub band is known to be empty.
        self._new = NewQueue()
        self._no_hubs_until: datetime | None = None

    # --- Admission ---------------------------------------------------------------------------

    def canonical(self, url: str) -> str:
        """Return the canonical form of `url` (the key pages are stored under).

        Raises BadURL. Remembered for the run: a site's menus and sidebars repeat the same
        links on every page.
        """
        found = self._canonical.get(url)
        if found is None:
            found = urltools.mapped(self.lessons.canonicalize(url), self.aliases)
            if len(self._canonical) >= _CANONICAL_KEPT:
                self._canonical.clear()  # only time is lost
            self._canonical[url] = found
        return found

    def learn_alias(self, production: str, served: str) -> bool:
        """Crawl URLs of a production origin on the served one; True if it was new."""
        if production in self.aliases or not urltools.same_site(served, self.hosts):
            return False
        self.aliases[production] = served
        self._canonical.clear()  # URLs of the production origin now map elsewhere
        return True

    def learn_parameters(self, url: str, declared: str) -> bool:
        """Learn from a page at `url` naming `declared` in rel=canonical which parameters
        change nothing (`Lessons.learn_parameters`); True if it taught one."""
        if not self.lessons.learn_parameters(url, declared):
            return False
        self._canonical.clear()  # URLs with these parameters now have another spelling
        return True

    def refusal(self, url: str, depth: int = 0) -> str | None:
        """Return why `url` may not be crawled ("off-site", "excluded", "depth", ...), or None.

        What the URL alone decides is remembered for the run: a page's links are judged
        again each time a page links to them.
        """
        found = self._judged.get(url)
        if found is None:
            found = self._judged[url] = self._judge(url)
            if len(self._judged) >= _CANONICAL_KEPT:
                self._judged.clear()  # only time is lost
        scope, trap = found
        if scope is not None:
            return scope
        if depth > self.site.max_depth:
            return "depth"
        if self.searches_quiet and looks_like_search(url):
            return "search not due"
        return trap or self.shapes.refusal(url)

    def in_scope(self, url: str) -> bool:
        """Tell whether `url` is a page of this site the crawl could fetch (depth aside).

        A URL on another website, excluded, or no HTML page is out of scope: a page naming
        it as its original (rel=canonical) is no copy of anything this crawl reaches.
        """
        try:
            return self.refusal(self.canonical(url)) not in _OUT_OF_SCOPE
        except urltools.BadURL:
            return False

    def _judge(self, url: str) -> tuple[str | None, str | None]:
        """Return what the URL alone says: (out of scope, why; trap-shaped, why)."""
        if urlsplit(url).scheme not in {"http", "https"}:
            return "scheme", None
        if not urltools.same_site(url, self.hosts):
            return "off-site", None
        if urltools.excluded(url, self.excludes):
            return "excluded", None
        if urltools.non_html(url):
            return "not_html", None
        return None, urltools.is_trap(url, 0, max(self.site.max_depth, 0))

    def add(
        self,
        urls: Iterable[str],
        *,
        depth: int,
        role: str = Page.Role.PAGE,
        now: datetime | None = None,
        batch: held.HeldBatch | None = None,
    ) -> dict[str, int]:
        """Store the admissible URLs as pages (new ones unfetched) and return url -> page id.

        URLs must be canonical already. Known pages are returned whatever their depth (the web
        graph links to them); an existing page keeps its depth unless this path is shorter,
        and becomes a feed or sitemap when discovered as one. With a `batch` of pages stored
        together, the new pages and shorter paths are held with its rows.
        """
        wanted = list(dict.fromkeys(urls))
        if self._whole is None:
            self._whole = self._read_whole()
        if not self._whole:
            self._recall([u for u in wanted if u not in self._known and u not in self._absent])
        ids, new = self._update_known(wanted, depth, role, batch)
        if new:
            ids.update(self._create(new, depth, role, now or timezone.now(), batch))
        return ids

    def _update_known(
        self, wanted: list[str], depth: int, role: str, batch: held.HeldBatch | None
    ) -> tuple[dict[str, int], list[str]]:
        """Return the ids of the known URLs among `wanted` (recording a shorter path or a
        feed's role) and the admissible new ones."""
        ids: dict[str, int] = {}
        new: list[str] = []
        shallower: list[int] = []
        promoted: list[int] = []
        moved: list[tuple[str, int, str]] = []  # url, new depth, new role
        for url in wanted:
            known = self._known.get(url)
            if known is None:
                if self.refusal(url, depth) is None:
                    new.append(url)
                continue
            page_id, known_depth, known_role = known
            ids[url] = page_id
            was = (known_depth, known_role)
            if depth < known_depth and self.refusal(url, depth) is None:
                shallower.append(page_id)
                known_depth = depth
            if role != Page.Role.PAGE and known_role == Page.Role.PAGE:
                promoted.append(page_id)
                known_role = role
            self._known[url] = (page_id, min(depth, known_depth), known_role)
            if (known_depth, known_role) != was:
                moved.append((url, known_depth, known_role))
        if shallower and not (
            batch is not None and batch.hold_statement(_SHALLOWER, [depth, shallower, depth])
        ):
            Page.objects.filter(id__in=shallower, depth__gt=depth).update(depth=depth)
        if promoted:
            Page.objects.filter(id__in=promoted).update(role=role)
        if moved:
            self._moved_up(moved)
        return ids, new

    def _create(
        self, new: list[str], depth: int, role: str, now: datetime, batch: held.HeldBatch | None
    ) -> dict[str, int]:
        """Store pages for new URLs, unfetched, and return url -> page id."""
        pages = [
            Page(site=self.site, url=u, depth=depth, role=role, first_seen_at=now) for u in new
        ]
        self._insert(pages, batch)
        self._absent.difference_update(new)
        ids: dict[str, int] = {}
        for created in pages:
            self._known[created.url] = (created.pk, depth, role)
            ids[created.url] = created.pk
            self._created[created.url] = created
            self._new.place(created)
        while len(self._created) > _CREATED_KEPT:  # only a query is lost
            del self._created[next(iter(self._created))]
        return ids

    def _moved_up(self, moved: list[tuple[str, int, str]]) -> None:
        """Give never-fetched pages a shorter path or a feed's role where they are kept in
        memory, and put them at their new place in the queue of new pages (reading those
        the queue does not hold)."""
        unread = {}
        for url, depth, role in moved:
            page_id = self._known[url][0]
            kept = [p for p in (self._created.get(url), self._new.pages.get(url)) if p is not None]
            for page in kept:
                page.depth, page.role = depth, role
            if kept:
                self._new.place(kept[-1])
            else:
                unread[page_id] = (depth, role)
        if not unread or self._new.last is None:
            return
        for page in self._pages().unfetched().filter(id__in=list(unread)):
            page.depth, page.role = unread[page.id]
            self._new.place(page)

    def _insert(self, pages: list[Page], batch: held.HeldBatch | None) -> None:
        """Store new pages, giving each its id.

        In a batch of pages stored together (on PostgreSQL) the ids are reserved now, in
        order, and the rows are written with the batch's own, in one statement.
        """
        if batch is not None and batch.holds_new_pages():
            if len(self._ids) < len(pages):
                self._ids.extend(held.reserve_page_ids(max(len(pages), _IDS_RESERVED)))
            for page in pages:
                page.pk = self._ids.popleft()
            batch.hold_new_pages(pages, self._renumber)
            return
        # Ids reserved earlier are now smaller than the ones these pages get: the queue
        # hands out pages in id order, so they are not used.
        self._ids.clear()
        # A page another process stored meanwhile is "updated" to itself, so that every
        # row comes back with its id (RETURNING) and no second query is needed.
        Page.objects.bulk_create(
            pages,
            update_conflicts=True,
            unique_fields=["site", "url"],
            update_fields=["url"],
            batch_size=500,
        )

    def _renumber(self, remap: dict[int, int]) -> None:
        """Take the ids of pages another process stored first instead of the reserved ones."""
        for url, (page_id, depth, role) in list(self._known.items()):
            if page_id in remap:
                self._known[url] = (remap[page_id], depth, role)

    def _read_whole(self) -> bool:
        """Read every stored page of the site into the in-memory index, if there are at most
        `_WHOLE_SITE` of them; return whether it did."""
        pages = Page.objects.filter(site=self.site)
        if pages.count() > _WHOLE_SITE:
            return False
        for url, page_id, depth, role in pages.values_list("url", "id", "depth", "role"):
            self._known[url] = (page_id, depth, role)
        return True

    def _recall(self, urls: list[str]) -> None:
        """Load the stored pages among same-site `urls` into the in-memory index."""
        candidates = [u for u in urls if urltools.same_site(u, self.hosts)]
        for start in range(0, len(candidates), 500):
            chunk = candidates[start : start + 500]
            rows = Page.objects.filter(site=self.site, url__in=chunk).values_list(
                "url", "id", "depth", "role"
            )
            for url, page_id, depth, role in rows:
                self._known[url] = (page_id, depth, role)
            self._absent.update(u for u in chunk if u not in self._known)

    def seed(self, now: datetime | None = None) -> dict[str, int]:
        """Store the seeds and /sitemap.xml; take the searches asked before (`searched_before`)."""
        self.take(searched_before(self.site.id, now or timezone.now()))
        seeds = [self.canonical(u) for u in self.site.seeds()]
        ids = self.add(seeds, depth=0, role=Page.Role.SEED, now=now)
        root = urlsplit(seeds[0])
        ids |= self.add(
            [f"{root.scheme}://{root.netloc}/sitemap.xml"], depth=1, role=Page.Role.SITEMAP, now=now
        )
        return ids

    # --- Handing out ---------------------------------------------------------------------------

    def next_batch(self, limit: int, now: datetime | None = None) -> list[str]:
        """Take up to `limit` URLs: hubs to revisit, then new URLs breadth-first, then due pages.

        A band starts only when the one before is empty and none of its URLs is still being
        fetched, since a hub in flight may still reveal new URLs, and a new page deeper ones.
        An empty list while URLs are in flight means "wait", not "exhausted".
        """
        now = now or timezone.now()
        for band, offer in (
            (HUBS, self.hubs_to_revisit),
            (NEW, self.new_urls),
            (DUE, self.due_urls),
        ):
            urls = offer(limit, now)
            if urls:
                self.take(urls)
                self.in_flight.update(dict.fromkeys(urls, band))
                return urls
            if band in self.in_flight.values():
                return []
        return []

    def pages(self, urls: list[str]) -> dict[str, Page]:
        """Return the stored pages of `urls` (url -> page), with the run's site record.

        The never-fetched pages the queue read, or this run stored, come from memory (a
        shorter path or a new role is written there too); the rest take one query.
        """
        found: dict[str, Page] = {}
        for url in urls:
            created, queued = self._created.pop(url, None), self._new.pages.pop(url, None)
            kept = queued or created
            if kept is not None:
                found[url] = kept
        rest = [url for url in urls if url not in found]
        if rest:
            found |= {p.url: p for p in Page.objects.filter(site=self.site, url__in=rest)}
        for page in found.values():
            page.site = self.site  # one Site record for every page, and no join
        return found

    def take(self, urls: Iterable[str]) -> None:
        """Mark URLs as handed out in this run so no band offers them again."""
        self.taken.update(urls)

    def done(self, url: str) -> None:
        """Note that a URL handed out by `next_batch` has been fetched and stored."""
        self.in_flight.pop(url, None)

    def hubs_to_revisit(self, limit: int, now: datetime | None = None) -> list[str]:
        """Return fetched hubs last fetched before the site's minimum revisit interval.

        An empty answer stands for a second: a run's own fetches never add to this band (they
        are taken), only time does.
        """
        now = now or timezone.now()
        if (
            self._no_hubs_until is not None
            and self._no_hubs_until > now > self._no_hubs_until - _HUBS_QUIET
        ):
            return []
        cutoff = now - self.site.min_page_revisit
        pages = (
            self._pages()
            .hubs()
            .filter(last_fetched_at__lt=cutoff)
            .filter(Q(failures=0) | Q(next_visit_at__lte=now))
            .annotate(band=ROLE_ORDER)
            .order_by("band", "depth", "id")
        )
        picked = self._pick(self._windows(pages, limit), limit)
        self._no_hubs_until = None if picked else now + _HUBS_QUIET
        return picked

    def new_urls(self, limit: int, now: datetime | None = None) -> list[str]:
        """Return never-fetched URLs, shallowest first (breadth-first), seeds before others.

        They come from a queue of the first ones in that order, read from the database a
        window at a time after the last one read (see `NewQueue`), not a query per call.
        """
        return self._pick(self._new_rows(), limit)

    def due_urls(self, limit: int, now: datetime | None = None) -> list[str]:
        """Return known pages whose revisit time has come, the most overdue first."""
        pages = self._pages().due(now or timezone.now()).order_by("next_visit_at", "id")
        return self._pick(self._windows(pages, limit), limit)

    def _pages(self) -> PageQuerySet:
        return Page.objects.filter(site=self.site)

    def _windows(self, pages: QuerySet[Page], limit: int) -> Iterator[Row]:
        """Yield the rows of a query, read a window at a time as they are needed."""
        return windows(pages.values_list("id", "url", "depth", "last_fetched_at"), limit)

    def _new_rows(self) -> Iterator[Row]:
        """Yield the never-fetched pages in breadth-first order, from the queue, refilled from
        the database after its last row when it runs out."""
        queue = self._new
        index = 0
        while True:
            if index >= len(queue.rows) and not queue.fill(self._pages()):
                return
            row = queue.rows[index]
            if row[1] in self.taken:
                del queue.rows[index], queue.keys[index]  # fetched in this run: never again
                queue.pages.pop(row[1], None)
                continue
            index += 1
            yield row

    def _pick(self, rows: Iterator[Row], limit: int) -> list[str]:
        """Return up to `limit` URLs not yet taken, dropping unfetched ones now refused."""
        if limit <= 0:
            return []
        picked: list[str] = []
        refused: list[int] = []
        renamed: dict[str, int] = {}  # clean spelling -> depth, for URLs with a learnt parameter
        for page_id, url, depth, fetched_at in rows:
            if url in self.taken or url in picked:
                continue
            if fetched_at is not None and looks_like_search(url):
                refused.append(page_id)  # asked again by its search's schedule, not revisited
                continue
            if (clean := self.respelt(url)) != url:
                self.take([url])  # its clean spelling is fetched instead, never this one
                refused.append(page_id)
                if clean:
                    renamed[clean] = min(depth, renamed.get(clean, depth))
                continue
            if self.shapes.unproven(url) and self.shapes.probing(url, [*picked, *self.in_flight]):
                continue  # one page of a new shape first: it may be a trap or a copy
            if self.refusal(url, depth if fetched_at is None else 0) is not None:
                # The admin narrowed the scope since discovery, or the shape was closed:
                # forget never-fetched URLs, and do not revisit fetched ones.
                refused.append(page_id)
                continue
            picked.append(url)
            if len(picked) >= limit:
                break
        if refused:
            self._forget(refused)
        for clean, depth in renamed.items():
            self.add([clean], depth=depth)
        return picked

    def respelt(self, url: str) -> str:
        """Return a stored URL without the parameters learnt irrelevant ("" if it cannot be)."""
        if not self.lessons.holds_irrelevant(url):
            return url
        with suppress(urltools.BadURL):
            return self.canonical(url)
        return ""

    def _forget(self, refused: list[int]) -> None:
        """Delete never-fetched pages now refused; keep fetched ones from being due again."""
        Page.objects.filter(id__in=refused, last_fetched_at__isnull=True).delete()
        Page.objects.filter(id__in=refused, next_visit_at__isnull=False).update(next_visit_at=None)
        self._known = {u: k for u, k in self._known.items() if k[0] not in refused}
        self._created = {u: p for u, p in self._created.items() if p.pk not in refused}
        self._new.drop(refused)

    def pending(self, now: datetime | None = None) -> int:
        """Count URLs still waiting in the frontier: never fetched, or due."""
        due = Q(last_fetched_at__isnull=True) | Q(next_visit_at__lte=now or timezone.now())
        return int(self._pages().filter(due).count())


HUBS, NEW, DUE = "hubs", "new", "due"

_HUBS_QUIET = timedelta(seconds=1)  # how long an empty hub band is not asked again
_OUT_OF_SCOPE = frozenset({"scheme", "off-site", "excluded", "not_html"})  # see `_judge`
_CANONICAL_KEPT = 50_000  # URLs whose canonical form a run remembers
_CREATED_KEPT = 20_000  # new pages a run keeps in memory until it hands them out
_IDS_RESERVED = 256  # page ids reserved at a time
_WHOLE_SITE = 100_000  # stored pages a run reads whole into its index (see `add`)
# A shorter path to known pages, held with a batch's rows (our own names; values are parameters).
_SHALLOWER = 'UPDATE "crawler_page" SET "depth" = %s WHERE "id" = ANY(%s) AND "depth" > %s'
