"""The strategy seam: the run loop asks a strategy which URLs next and tells it what it saw.

A strategy is a small object living for one crawl run. The loop (`crawler.run.loop`) does:

1. `urls = strategy.next_urls(limit)` -> canonical URLs to fetch next (the strategy picks them
   from the persisted frontier, `crawler.run.frontier.Frontier`, or from URLs it learnt itself);
2. fetches, analyses and stores each page, then calls `strategy.observe(observation)`;
3. counts the page as relevant (harvest rate) when `strategy.accepts(observation)`;
4. stops when the page budget is spent or when `strategy.stop_reason()` returns a reason; when
   `next_urls` returns nothing while no fetch is in flight, the loop takes the frontier's
   breadth-first order instead, and stops ("exhausted") only when that is empty too.

New links seen on a page are already in the frontier (with their depth) before `observe` runs.
`next_urls` must return URLs the frontier knows: a strategy that invents URLs (a form
submission, say) stores them first with `frontier.add(urls, depth=...)`; unknown URLs are
skipped. Useful frontier calls: `next_batch(limit)` (hubs, then new URLs breadth-first, then
due pages, marked as taken), `hubs_to_revisit(limit)`, `new_urls(limit)`, `due_urls(limit)`,
`take(urls)`, `refusal(url, depth)`, `canonical(url)`; `frontier.taken` holds this run's URLs. Register a strategy class with `@register` so sites can
name it (`Site.strategy`) and `manage.py crawl --strategy NAME` can pick it.
"""

from __future__ import annotations

import importlib
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from crawler.canonical import pager_links

if TYPE_CHECKING:
    from analyzer.isolation import Reader
    from crawler.fetch.result import FetchError, FetchResult
    from crawler.models import CrawlRun, Site
    from crawler.run.frontier import Frontier
    from crawler.topic import Topic

# Page kinds as the analyzer names them; None when the page was not analysed (error, not HTML).
INFORMATION = "information"
HUB = "hub"
# The area kind of a link to a feed or nested sitemap a page announces (not a link in its body).
ANNOUNCED = "announced"


@dataclass(frozen=True)
class LinkRecord:
    """One outgoing link of a fetched page, already canonicalised."""

    url: str
    anchor: str = ""
    # DOM path of the analyzer area holding the link (e.g. "html/body/div[2]/ul"), "" if none.
    area_path: str = ""
    # "information", "hub", "navigation" or "" when the link sits outside every area.
    area_kind: str = ""


@dataclass
class PageObservation:
    """What the run loop learnt from one fetch, handed to `Strategy.observe`."""

    page_id: int | None
    url: str
    depth: int
    # HTTP status (304 for a conditional hit); None when the fetch failed before a response.
    status: int | None
    new: bool  # first successful fetch of this URL
    changed: bool  # a new PageVersion was stored (always True when `new` with a body)
    kind: str | None  # INFORMATION, HUB or None
    analysis: Any = None  # analyzer.PageAnalysis | None (crawler stays importable without it)
    links: list[LinkRecord] = field(default_factory=list)
    error: FetchError | None = None  # why the fetch failed or was skipped (robots, timeout...)
    # The URL the page's rel=canonical names (canonical, on the served origin), None if none.
    canonical: str | None = None
    # Words a hub gives about its links beyond their anchors: a feed's item titles and
    # summaries, per item URL.
    link_texts: dict[str, str] = field(default_factory=dict)
    body: bytes = b""  # the HTML as fetched, for strategies that read a hub's list items
    # What `Strategy.read_ahead` read of the page as it arrived (None: not read ahead).
    read_ahead: Any = None
    # The links to other pages of the page's own paginated list, which keep its depth
    # (None: not worked out; `pager_links` works them out from `links`).
    pagers: frozenset[str] | None = None
    # The URL handed out when the content came under another address (a redirect, or a
    # script that gave the page a new address while it was rendered); None otherwise.
    requested: str | None = None
    # A redirect not followed: the URL it led to, which the run had fetched already.
    alias_of: str | None = None

    def pager_links(self) -> frozenset[str]:
        """Return the links to other pages of this page's paginated list."""
        if self.pagers is None:
            self.pagers = pager_links(self.url, self.links)
        return self.pagers

    @property
    def ok(self) -> bool:
        """Tell whether the page was fetched (2xx or 304) without error."""
        return (
            self.error is None
            and self.status is not None
            and (200 <= self.status < 300 or self.status == 304)
        )


class Strategy(ABC):
    """Choose what a crawl run fetches next; subclasses set `name` and register themselves."""

    name: ClassVar[str]

    def __init__(
        self,
        site: Site,
        run: CrawlRun,
        frontier: Frontier,
        *,
        rng: random.Random,
        topic: Topic | None,
    ) -> None:
        self.site = site
        self.run = run
        self.frontier = frontier
        self.rng = rng
        self.topic = topic

    @abstractmethod
    def next_urls(self, limit: int) -> list[str]:
        """Return up to `limit` canonical URLs to fetch next; empty means nothing is left."""

    @abstractmethod
    def observe(self, observation: PageObservation) -> None:
        """Learn from one fetched (or failed) page."""

    def read_ahead(self, fetched: FetchResult) -> Reader | None:
        """Say what `observe` will want read of a new page, as soon as it arrives: a function
        defined at a module's top level, without Django, and its last arguments.

        The analysing process that analyses the page calls `function(body, url, analysis,
        *args)` beside the analysis (`analyzer.isolation`), so neither the run's storing
        thread nor its interpreter spends time on it; its result (None if it failed)
        reaches `observe` as `PageObservation.read_ahead`. Called on the run's event loop:
        it must be quick and must not touch the database. Default: nothing to read.
        """
        return None

    def accepts(self, observation: PageObservation) -> bool:
        """Tell whether a page counts as relevant for the harvest rate (default: information pages)."""
        return observation.ok and observation.kind == INFORMATION

    def stop_reason(self) -> str | None:
        """Return why the run should stop now (e.g. "no-new-hubs"), or None to go on."""
        return None

    def close(self) -> None:
        """Write what the strategy keeps in memory; the loop calls it once the run ends."""
        return None

    def search_fetches(self) -> int:
        """Return how many fetches of this run were pages of the site's search."""
        return 0

    def learned(self) -> dict[str, object]:
        """Return what the strategy learnt in this run (e.g. topic terms), for the run record."""
        return {}


_REGISTRY: dict[str, type[Strategy]] = {}
S = TypeVar("S", bound=type[Strategy])


class UnknownStrategy(LookupError):
    """No strategy is registered under that name."""


def register(cls: S) -> S:
    """Register a strategy class under its `name` (usable as a class decorator)."""
    name = getattr(cls, "name", "")
    if not name:
        raise TypeError(f"{cls.__qualname__} needs a non-empty `name` to be registered.")
    existing = _REGISTRY.get(name)
    if existing is not None and existing is not cls:
        raise ValueError(f"Strategy {name!r} is already registered by {existing.__qualname__}.")
    _REGISTRY[name] = cls
    return cls


def get_strategy(name: str) -> type[Strategy]:
    """Return the strategy class registered under `name`."""
    load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise UnknownStrategy(f"No crawl strategy named {name!r} (known: {known}).") from None


def strategy_names() -> list[str]:
    """Return the names of every registered strategy."""
    load_builtin()
    return sorted(_REGISTRY)


# Modules that register strategies on import; a missing optional one (written by another
# part of the project) is skipped so the crawler still runs breadth-first.
BUILTIN = ("crawler.strategies.bfs", "crawler.strategies.xcrawl.strategy")


def load_builtin() -> None:
    """Import the modules that register the built-in strategies."""
    for module in BUILTIN:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
