"""Run a coroutine to its end from synchronous code, whether or not this thread runs a loop.

`asyncio.run` refuses to start inside a thread whose event loop is running (Playwright's
synchronous API keeps one running in the thread that uses it); the coroutine then runs in a
short-lived thread of its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Return what `coroutine` returns, run on a new event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-sync") as pool:
        return pool.submit(asyncio.run, coroutine).result()
