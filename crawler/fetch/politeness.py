"""Politeness: one request per host at a time, a delay between them, Retry-After backoff.

A host's turn is a slot held under a lease, and its times (when the last request ended, when
a 429/503 lets it be asked again, how many came in a row) live beside the slot in a `Slots`
store (crawler.fetch.slots): process memory for the fetcher used as a plain library
(`MemorySlots`), the shared Django cache for crawl workers (`CacheSlots`, atomic on Redis),
so every process on every machine takes turns with the same host. A process killed while
holding a slot frees it when its lease runs out; a live holder renews the lease while it
waits and asks.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Protocol
from urllib.parse import urlsplit

from crawler.fetch.slots import HostTimes, MemorySlots, Slots

logger = logging.getLogger(__name__)

# How long a worker waits before asking again for a slot another process holds.
POLL_SECONDS = (0.02, 0.08)


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


def host_key(url: str) -> str:
    """Return the host politeness counts by: the hostname, and the port when one is given."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{host}:{port}" if port is not None else host


class HostGate:
    """Let one request per host through at a time, spaced by the host's delay.

    The delay counts from the end of one request to the start of the next, and each
    request brings its own delay (robots.txt may raise it after the first request). A
    429/503 sets a time before which the host is not asked (`defer`); consecutive ones double
    our own backoff when the server names no wait. With shared slots this holds across
    every process that uses the same store.
    """

    def __init__(self, clock: Clock, slots: Slots | None = None, *, lease: float = 10.0) -> None:
        self.clock = clock
        self.slots: Slots = slots if slots is not None else MemorySlots()
        self.lease = lease
        # Times others read must be on a clock they share; alone, the monotonic one is safer.
        self.now = clock.time if self.slots.shared else clock.monotonic
        # One coroutine per host in this process asks the store; the others queue here.
        self._locks: dict[str, asyncio.Lock] = {}
        # Each host's 429/503 streak as its slot's claim found it: while a slot is held no
        # other request to the host can add to it, so a streak of 0 needs no clearing.
        self._strikes: dict[str, int] = {}

    async def wait_for(self, host: str, delay: float) -> float:
        """Return how long a request to `host` with `delay` would wait now."""
        return (await self.slots.times(host)).wait(delay, self.now())

    @asynccontextmanager
    async def slot(self, host: str, delay: float, max_wait: float) -> AsyncIterator[None]:
        """Hold the host's only slot; raise Deferred if its next turn is over `max_wait` away.

        1. Take the slot in the store, asking again while another process holds it (a
           holder that died frees it when its lease runs out); a host deferred for longer
           than `max_wait` raises at once.
        2. Keep renewing the lease in the background, from a third of it on, until the slot
           is released.
        3. Sleep out the host's delay or Retry-After, then let the request through.
        4. Record the request's end and free the slot, whatever happened.
        """
        lock = self._locks.setdefault(host, asyncio.Lock())
        async with lock:
            token = uuid.uuid4().hex
            try:
                times = await self._claim(host, token, max_wait)
            except asyncio.CancelledError:
                # The store may have given the slot as the fetch was cancelled (a run stopped
                # midway): free it, or every worker waits out its lease for the host.
                await self.slots.release(host, token, None)
                raise
            self._strikes[host] = times.strikes
            # A request that outlasts a third of the lease starts renewing it: most end first,
            # and a timer costs less than a task started and cancelled for each.
            keeping: list[asyncio.Task[None]] = []
            timer = asyncio.get_running_loop().call_later(
                self.lease / 3,
                lambda: keeping.append(asyncio.ensure_future(self._keep(host, token))),
            )
            ended: float | None = None
            try:
                wait = times.wait(delay, self.now())
                if wait > max_wait:
                    raise Deferred(wait)
                if wait > 0:
                    await self.clock.sleep(wait)
                try:
                    yield
                finally:
                    ended = self.now()
            finally:
                timer.cancel()
                for keeper in keeping:
                    keeper.cancel()
                    with suppress(asyncio.CancelledError):
                        await keeper
                await self.slots.release(host, token, ended)

    async def _claim(self, host: str, token: str, max_wait: float) -> HostTimes:
        while True:
            claimed, times = await self.slots.claim(host, token, self.lease)
            if claimed:
                return times
            deferred = times.not_before - self.now()
            if deferred > max_wait:
                raise Deferred(deferred)
            # Real time, not the clock's: this is another process's turn, not a politeness wait.
            await asyncio.sleep(random.uniform(*POLL_SECONDS))  # noqa: S311 - jitter only

    async def _keep(self, host: str, token: str) -> None:
        """Renew the slot's lease now and every third of it."""
        while True:
            if not await self.slots.renew(host, token, self.lease):
                logger.warning("lost the politeness slot of %s: its lease ran out", host)
                return
            await asyncio.sleep(self.lease / 3)

    async def defer(self, host: str, retry_after: float | None, base: float, cap: float) -> float:
        """Keep the host unasked for a while after a 429/503; return the wait chosen.

        Called while the slot is held, so no other request slips in before the wait is known.
        """
        strikes = (await self.slots.times(host)).strikes + 1
        wait = base * 2 ** (strikes - 1) if retry_after is None else retry_after
        wait = min(wait, cap)
        self._strikes[host] = await self.slots.defer(host, self.now() + wait)
        return wait

    async def clear(self, host: str) -> None:
        """Forget a host's strikes after a normal answer (no call to the store if none)."""
        if self._strikes.get(host, 1):
            await self.slots.clear(host)
            self._strikes[host] = 0
