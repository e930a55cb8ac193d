"""Run passes: work each crawl run does besides its links crawl, registered from outside.

The run loop knows no pass by name; an app registers its own in its AppConfig.ready, as the
crawler does for hidden-web crawling (`crawler/apps.py`):

    from crawler.run.passes import register_run_pass
    register_run_pass("hidden-web", search_pass)   # search_pass(context) -> anything

Passes run once before the links crawl, in registration order, in the crawl thread, each
with the run's `RunContext`. A page pass runs on every page the run stores, after the batch
holding it was written (hidden-web reads the search forms of listing and section pages):

    register_page_pass("hidden-web", forms_pass)   # forms_pass(context, observation)

A pass that raises is logged and the crawl goes on, unless the run was taken over; what a
pass keeps from one page to the next lives in `RunContext.state`, under its name.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from crawler.models import CrawlRun, Page, Site
from crawler.run.fetching import FetchBackend
from crawler.run.frontier import Frontier
from crawler.strategies.base import PageObservation
from crawler.topic import Topic


@dataclass(frozen=True)
class RunContext:
    """What a run pass may use of the run: its site, frontier, fetching loop and page budget."""

    site: Site
    frontier: Frontier
    backend: FetchBackend
    call: Callable[[Coroutine[Any, Any, Any]], Any]  # run a coroutine on the fetching loop
    handle: Callable[[Page, Any], object]  # store a fetched page as the run loop does
    budget: Callable[[], int]  # pages the run may still fetch
    topic: Topic | None
    rng: random.Random
    run: CrawlRun | None = None  # the run's row, for what a pass records per run
    state: dict[str, Any] = field(default_factory=dict)  # per pass name, for this run


RunPass = Callable[[RunContext], object]
PagePass = Callable[[RunContext, PageObservation], object]
_passes: dict[str, RunPass] = {}
_page_passes: dict[str, PagePass] = {}


def register_run_pass(name: str, run_pass: RunPass) -> RunPass:
    """Add (or replace) the pass called `name`; every later run makes it."""
    _passes[name] = run_pass
    return run_pass


def unregister_run_pass(name: str) -> None:
    """Remove the pass called `name` (no error if absent)."""
    _passes.pop(name, None)


def run_passes() -> list[tuple[str, RunPass]]:
    """Return the registered passes with their names, in registration order."""
    return list(_passes.items())


def register_page_pass(name: str, page_pass: PagePass) -> PagePass:
    """Add (or replace) the page pass called `name`; every later run makes it on each page."""
    _page_passes[name] = page_pass
    return page_pass


def unregister_page_pass(name: str) -> None:
    """Remove the page pass called `name` (no error if absent)."""
    _page_passes.pop(name, None)


def page_passes() -> list[tuple[str, PagePass]]:
    """Return the registered page passes with their names, in registration order."""
    return list(_page_passes.items())
