"""Crawl strategies: the seam (`base`) and the built-in strategies that plug into it."""

from __future__ import annotations

import importlib

from crawler.strategies.base import (
    HUB,
    INFORMATION,
    LinkRecord,
    PageObservation,
    Strategy,
    UnknownStrategy,
    get_strategy,
    register,
    strategy_names,
)

__all__ = [
    "HUB",
    "INFORMATION",
    "LinkRecord",
    "PageObservation",
    "Strategy",
    "UnknownStrategy",
    "get_strategy",
    "load_builtin",
    "register",
    "strategy_names",
]

# Modules that register strategies on import; a missing optional one (written by another
# part of the project) is skipped so the crawler still runs breadth-first.
BUILTIN = ("crawler.strategies.bfs", "crawler.strategies.xcrawl")


def load_builtin() -> None:
    """Import the modules that register the built-in strategies."""
    for module in BUILTIN:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
