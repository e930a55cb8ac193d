"""What a site's pages taught earlier runs, read at the start of a run, and what this run
learnt, kept for the next ones (`crawler.models.SiteLesson`).

- Irrelevant parameters: a page reached with a parameter (a search result's
  `?ref=search-1-3`) whose rel=canonical names the same URL without it, on pages of
  `PARAMETER_PROOF` different paths; parameters naming a page, an item or a search
  (`KEPT_PARAMETERS`) are never learnt.
- Closed shapes: the URL shapes a run judged traps or copies (`crawler.run.shapes`).
- Rendered shapes: the URL shapes whose scripts added links (`crawler.render.shell`).
- Searches asked: result pages of the site's search fetched before are not asked again by a
  run (`searched_before`); the search's own schedule asks it again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from django.db.models import Q

from crawler import canonical as urltools
from crawler.models import CrawlRun, Page, SiteLesson
from crawler.run.shapes import ShapeWatch
from crawler.sitesearch.template import looks_like_search

PARAMETER_PROOF = 2  # pages of different paths that must show a parameter to be irrelevant
# Parameters that name a page, an item or a search: never learnt as irrelevant.
KEPT_PARAMETERS = urltools.PAGE_PARAMS | frozenset({"id", "q", "query", "s", "search", "lang"})
Kind = SiteLesson.Kind


@dataclass
class Lessons:
    """A site's active lessons at the start of a run, and the parameters learnt since."""

    irrelevant: frozenset[str] = frozenset()  # parameter names (lower case) dropped from URLs
    closed_traps: frozenset[str] = frozenset()
    closed_copies: frozenset[str] = frozenset()
    rendered: frozenset[str] = frozenset()
    # Parameters learnt in this run -> an example URL, and the paths proving each so far.
    learnt: dict[str, str] = field(default_factory=dict)
    proofs: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, site_id: int | None) -> Lessons:
        """Return the active lessons of a site (none for a site not stored)."""
        if site_id is None:
            return cls()
        found: dict[str, set[str]] = {kind: set() for kind in Kind.values}
        rows = SiteLesson.objects.active().filter(site_id=site_id).values_list("kind", "key")
        for kind, key in rows:
            found[kind].add(key)
        return cls(
            irrelevant=frozenset(found[Kind.PARAMETER]),
            closed_traps=frozenset(found[Kind.TRAP]),
            closed_copies=frozenset(found[Kind.COPY]),
            rendered=frozenset(found[Kind.RENDER]),
        )

    def canonicalize(self, url: str) -> str:
        """Return the canonical form of `url`, without the parameters learnt irrelevant."""
        return urltools.canonicalize(url, self.irrelevant)

    def holds_irrelevant(self, url: str) -> bool:
        """Tell whether a URL carries a parameter learnt to change nothing."""
        query = urlsplit(url).query
        return bool(query and self.irrelevant) and any(
            name.lower() in self.irrelevant for name, _ in parse_qsl(query, keep_blank_values=True)
        )

    def shape_watch(self) -> ShapeWatch:
        """Return a run's shape judgements, starting from the shapes closed before."""
        return ShapeWatch(closed_traps=self.closed_traps, closed_copies=self.closed_copies)

    def learn_parameters(self, url: str, declared: str) -> bool:
        """Learn from a page at `url` naming `declared` in rel=canonical; True if it taught a
        parameter to drop from now on."""
        names = urltools.irrelevant_parameters(url, declared) - self.irrelevant - KEPT_PARAMETERS
        learnt = set()
        for name in names:
            paths = self.proofs.setdefault(name, set())
            paths.add(urlsplit(declared).path)
            if len(paths) >= PARAMETER_PROOF:
                learnt.add(name)
                self.learnt[name] = url
        self.irrelevant |= learnt
        return bool(learnt)


def searched_before(site_id: int, now: datetime) -> list[str]:
    """Return the site's search result pages fetched before and not due again: a search is
    asked again by its own schedule (`crawler.hiddenweb.schedule`), never replayed by a run."""
    pages = (
        Page.objects.filter(site_id=site_id, last_fetched_at__isnull=False)
        .filter(Q(next_visit_at__isnull=True) | Q(next_visit_at__gt=now))
        .filter(Q(url__contains="?") | Q(url__icontains="search"))
    )
    return [url for url in pages.values_list("url", flat=True) if looks_like_search(url)]


def respelt_offer(frontier: Any, urls: list[str]) -> list[str]:
    """Return the URLs a strategy offered, each spelt without the parameters learnt to change
    nothing since it saw them (the clean spelling stored, unfetched, at the offered page's
    depth), once, and not taken in this run; the offered spelling is taken (never fetched)."""
    wanted: list[str] = []
    for url in urls:
        clean = frontier.respelt(url) or url
        if clean != url:
            frontier.take([url])
            if clean in frontier.taken or clean in wanted:
                continue
            page = frontier.pages([url]).get(url)
            frontier.add([clean], depth=page.depth if page is not None else 1)
        wanted.append(clean)
    return wanted


def declares_itself(url: str, declared: str) -> bool:
    """Tell whether a page at `url` names itself in rel=canonical without some parameters
    (none of them one that names a page, an item or a search): the page is `declared`."""
    names = urltools.irrelevant_parameters(url, declared)
    return bool(names) and not names & KEPT_PARAMETERS


def keep(
    run: CrawlRun, lessons: Lessons, judged: dict[str, object], rendered: dict[str, str]
) -> dict[str, object]:
    """Store what the run learnt as the site's lessons; return it for the run's record.

    `judged`: the run's shape verdicts (`ShapeWatch.judged`); `rendered`: the shapes it
    learnt to need rendering -> why.
    """
    manager = SiteLesson.objects
    traps = [str(shape) for shape in judged.get("trap_shapes", ())]  # type: ignore[attr-defined]
    copies = [str(shape) for shape in judged.get("copy_shapes", ())]  # type: ignore[attr-defined]
    manager.learn(run.site_id, Kind.PARAMETER, lessons.learnt.items(), run_id=run.id)
    manager.learn(run.site_id, Kind.TRAP, ((s, "") for s in traps), run_id=run.id)
    manager.learn(run.site_id, Kind.COPY, ((s, "") for s in copies), run_id=run.id)
    manager.learn(run.site_id, Kind.RENDER, rendered.items(), run_id=run.id)
    return {
        "irrelevant_parameters": dict(sorted(lessons.learnt.items())),
        "closed_shapes": sorted(set(traps) | set(copies)),
        "rendered_shapes": dict(sorted(rendered.items())),
    }


def clean_page(frontier: Any, page: Page, now: datetime) -> Page | None:
    """Return the page to fetch for a result link: itself, or, when the link carries a
    parameter learnt since to change nothing, its clean spelling (None if taken or fetched)."""
    clean = frontier.respelt(page.url)
    if clean == page.url:
        return page
    if not clean or clean in frontier.taken:
        return None
    found = frontier.add([clean], depth=page.depth, now=now).get(clean)
    target = Page.objects.filter(id=found).select_related("site").first() if found else None
    return target if target is not None and target.last_fetched_at is None else None
