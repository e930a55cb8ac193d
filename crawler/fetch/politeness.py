"""Politeness: one request per host at a time, a delay between them, Retry-After backoff."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Protocol


class Clock(Protocol):
    """Time as the fetcher sees it; tests pass a fake one to measure waits."""

    def monotonic(self) -> float:
        """Return seconds on a clock that never goes back."""
        ...

    def time(self) -> float:
        """Return the wall-clock time as a Unix timestamp (for HTTP dates)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait `seconds`."""
        ...


class SystemClock:
    """The real clock."""

    def monotonic(self) -> float:
        """Return time.monotonic()."""
        return time.monotonic()

    def time(self) -> float:
        """Return time.time()."""
        return time.time()

    async def sleep(self, seconds: float) -> None:
        """Sleep with asyncio."""
        await asyncio.sleep(seconds)


class Deferred(Exception):
    """The host may not be asked again for `wait` seconds, longer than we wait in a fetch."""

    def __init__(self, wait: float) -> None:
        super().__init__(f"host asked us to wait {wait:.0f} s")
        self.wait = wait


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Return the seconds a Retry-After header asks for (delta or HTTP date), None if unusable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now)


class HostGate:
    """Let one request per host through at a time, spaced by the host's delay.

    The delay counts from the end of one request to the start of the next, and each
    request brings its own delay (robots.txt may raise it after the first request). A
    429/503 sets a time before which the host is not asked (`defer`); consecutive ones double
    our own backoff when the server names no wait.
    """

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._locks: dict[str, asyncio.Lock] = {}
        self._last_end: dict[str, float] = {}
        self._not_before: dict[str, float] = {}
        self._strikes: dict[str, int] = {}

    def wait_for(self, host: str, delay: float) -> float:
        """Return how long a request to `host` with `delay` would wait now."""
        last_end = self._last_end.get(host)
        earliest = self._not_before.get(host, float("-inf"))
        if last_end is not None:
            earliest = max(earliest, last_end + delay)
        return max(0.0, earliest - self.clock.monotonic())

    @asynccontextmanager
    async def slot(self, host: str, delay: float, max_wait: float) -> AsyncIterator[None]:
        """Hold the host's only slot; raise Deferred if its next turn is over `max_wait` away."""
        lock = self._locks.setdefault(host, asyncio.Lock())
        async with lock:
            wait = self.wait_for(host, delay)
            if wait > max_wait:
                raise Deferred(wait)
            if wait > 0:
                await self.clock.sleep(wait)
            try:
                yield
            finally:
                self._last_end[host] = self.clock.monotonic()

    def defer(self, host: str, retry_after: float | None, base: float, cap: float) -> float:
        """Keep the host unasked for a while after a 429/503; return the wait chosen."""
        strikes = self._strikes.get(host, 0) + 1
        self._strikes[host] = strikes
        wait = base * 2 ** (strikes - 1) if retry_after is None else retry_after
        wait = min(wait, cap)
        self._not_before[host] = self.clock.monotonic() + wait
        return wait

    def clear(self, host: str) -> None:
        """Forget a host's strikes after a normal answer."""
        self._strikes.pop(host, None)
