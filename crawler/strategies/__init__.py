"""Crawl strategies: the seam (`base`) and the built-in strategies that plug into it."""

from __future__ import annotations

from crawler.strategies.base import (
    HUB,
    INFORMATION,
    LinkRecord,
    PageObservation,
    Strategy,
    UnknownStrategy,
    get_strategy,
    load_builtin,
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
