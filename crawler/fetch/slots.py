"""Where hosts' politeness slots and times are kept, for crawler.fetch.politeness.HostGate.

A host's turn is a slot held under a lease (a random token that expires unless renewed);
beside it the host's times: when its last request ended, when a 429/503 lets it be asked
again, how many came in a row. `MemorySlots` keeps them in this process; `RedisSlots` in the
Redis cache every worker shares; `FileSlots` in an SQLite file beside the file cache that the
workers of one machine share; `CacheSlots` in any other Django cache.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

# A host's times are forgotten a day after they were last written (longer than any wait).
STATE_TTL = 24 * 3600


@dataclass(frozen=True)
class HostTimes:
    """What the store knows of a host: last request's end, earliest next ask, 429/503 streak."""

    last_end: float | None = None
    not_before: float = float("-inf")
    strikes: int = 0

    def wait(self, delay: float, now: float) -> float:
        """Return how long a request with `delay` must wait at `now`."""
        earliest = self.not_before
        if self.last_end is not None:
            earliest = max(earliest, self.last_end + delay)
        return max(0.0, earliest - now)


class Slots(Protocol):
    """Where hosts' slots and times are kept; times are on the clock `shared` names."""

    shared: bool  # True: wall-clock times other processes read; False: this process's monotonic

    async def claim(self, key: str, token: str, lease: float) -> tuple[bool, HostTimes]:
        """Take the host's slot for `lease` seconds if it is free; return whether, and its times."""
        ...

    async def renew(self, key: str, token: str, lease: float) -> bool:
        """Extend a slot still held under `token`; False if its lease ran out and it was lost."""
        ...

    async def release(self, key: str, token: str, ended: float | None) -> None:
        """Record when the request ended (if it was made) and free the slot held under `token`."""
        ...

    async def times(self, key: str) -> HostTimes:
        """Return the host's times."""
        ...

    async def defer(self, key: str, until: float) -> int:
        """Keep the host unasked until `until` at least; count the strike; return the streak."""
        ...

    async def clear(self, key: str) -> None:
        """Forget the host's 429/503 streak."""
        ...


class MemorySlots:
    """Slots in this process's memory: politeness within one process only."""

    shared = False

    def __init__(self) -> None:
        self._holders: dict[str, tuple[str, float]] = {}
        self._times: dict[str, HostTimes] = {}

    async def claim(self, key: str, token: str, lease: float) -> tuple[bool, HostTimes]:
        holder = self._holders.get(key)
        free = holder is None or holder[1] <= time.monotonic()
        if free:
            self._holders[key] = (token, time.monotonic() + lease)
        return free, self._times.get(key, HostTimes())

    async def renew(self, key: str, token: str, lease: float) -> bool:
        holder = self._holders.get(key)
        if holder is None or holder[0] != token:
            return False
        self._holders[key] = (token, time.monotonic() + lease)
        return True

    async def release(self, key: str, token: str, ended: float | None) -> None:
        if ended is not None:
            old = self._times.get(key, HostTimes())
            self._times[key] = HostTimes(ended, old.not_before, old.strikes)
        if self._holders.get(key, ("",))[0] == token:
            del self._holders[key]

    async def times(self, key: str) -> HostTimes:
        return self._times.get(key, HostTimes())

    async def defer(self, key: str, until: float) -> int:
        old = self._times.get(key, HostTimes())
        new = HostTimes(old.last_end, max(old.not_before, until), old.strikes + 1)
        self._times[key] = new
        return new.strikes

    async def clear(self, key: str) -> None:
        old = self._times.get(key, HostTimes())
        self._times[key] = HostTimes(old.last_end, old.not_before)


class CacheSlots:
    """Slots in a Django cache shared by every worker (the `default` one unless named).

    On Redis (production) every step is one atomic command or script: `RedisSlots`. On other
    caches the slot is taken with `cache.add` and the times are written by the slot's holder:
    exact on the local-memory cache (one process), best effort across processes on the file
    and database caches, where two workers may both take a slot whose lease just ran out.
    """

    shared = True

    def __init__(self, alias: str = "default") -> None:
        from django.core.cache import caches

        # One backend object for every thread the calls run in: Django would make one per
        # call (asyncio.to_thread copies the context its cache handles live in), each with
        # its own connections. The Redis, local-memory and file backends are thread-safe.
        self.backend = caches[alias]

    def _cache(self) -> Any:
        return self.backend

    def _keys(self, key: str) -> tuple[str, str]:
        return f"politeness:slot:{key}", f"politeness:times:{key}"

    async def claim(self, key: str, token: str, lease: float) -> tuple[bool, HostTimes]:
        return await asyncio.to_thread(self._claim, key, token, lease)

    async def renew(self, key: str, token: str, lease: float) -> bool:
        return await asyncio.to_thread(self._renew, key, token, lease)

    async def release(self, key: str, token: str, ended: float | None) -> None:
        await asyncio.to_thread(self._release, key, token, ended)

    async def times(self, key: str) -> HostTimes:
        return await asyncio.to_thread(self._read, key)

    async def defer(self, key: str, until: float) -> int:
        return await asyncio.to_thread(self._defer, key, until)

    async def clear(self, key: str) -> None:
        await asyncio.to_thread(self._clear, key)

    def _claim(self, key: str, token: str, lease: float) -> tuple[bool, HostTimes]:
        slot, _ = self._keys(key)
        claimed = self._cache().add(slot, token, lease)
        return claimed, self._read(key)

    def _renew(self, key: str, token: str, lease: float) -> bool:
        cache, (slot, _) = self._cache(), self._keys(key)
        if cache.get(slot) != token:
            return False
        cache.set(slot, token, lease)
        return True

    def _release(self, key: str, token: str, ended: float | None) -> None:
        cache, (slot, _) = self._cache(), self._keys(key)
        if ended is not None:
            old = self._read(key)
            self._write(
                key, HostTimes(max(ended, old.last_end or ended), old.not_before, old.strikes)
            )
        if cache.get(slot) == token:
            cache.delete(slot)

    def _read(self, key: str) -> HostTimes:
        stored = self._cache().get(self._keys(key)[1])
        return HostTimes(*stored) if stored else HostTimes()

    def _write(self, key: str, times: HostTimes) -> None:
        values = (times.last_end, times.not_before, times.strikes)
        self._cache().set(self._keys(key)[1], values, STATE_TTL)

    def _defer(self, key: str, until: float) -> int:
        old = self._read(key)
        self._write(key, HostTimes(old.last_end, max(old.not_before, until), old.strikes + 1))
        return old.strikes + 1

    def _clear(self, key: str) -> None:
        old = self._read(key)
        if old.strikes:
            self._write(key, HostTimes(old.last_end, old.not_before))


# Redis scripts: KEYS[1] is the slot (its value the holder's token, expiring with the lease),
# KEYS[2] the host's times (a hash: last_end, not_before, strikes).
_CLAIM = """
local got = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
local t = redis.call('HMGET', KEYS[2], 'last_end', 'not_before', 'strikes')
return {got and 1 or 0, t[1] or '', t[2] or '', t[3] or ''}
"""
_RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
"""
_RELEASE = """
if ARGV[2] ~= '' then
  local last = tonumber(redis.call('HGET', KEYS[2], 'last_end') or '-1e308')
  if tonumber(ARGV[2]) > last then redis.call('HSET', KEYS[2], 'last_end', ARGV[2]) end
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""
_DEFER = """
local before = tonumber(redis.call('HGET', KEYS[2], 'not_before') or '-1e308')
if tonumber(ARGV[1]) > before then redis.call('HSET', KEYS[2], 'not_before', ARGV[1]) end
local strikes = redis.call('HINCRBY', KEYS[2], 'strikes', 1)
redis.call('EXPIRE', KEYS[2], ARGV[2])
return strikes
"""


class RedisSlots(CacheSlots):
    """Slots in a Django Redis cache, every step atomic (a command or a Lua script).

    Asked from the event loop itself (redis.asyncio, one client per loop): a fetch waits for
    its slot on the network only, never for a thread to be free and scheduled.
    """

    def __init__(self, alias: str = "default") -> None:
        super().__init__(alias)
        # Django's Redis backend has no compare-and-delete, nor an asyncio client: its
        # server list (the first one is the one written to) serves our own clients.
        self.url = self.backend._servers[0]  # type: ignore[attr-defined]
        self._clients: dict[asyncio.AbstractEventLoop, Any] = {}

    def _client(self) -> Any:
        import redis.asyncio

        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            self._clients = {k: c for k, c in self._clients.items() if not k.is_closed()}
            client = self._clients[loop] = redis.asyncio.Redis.from_url(self.url)
        return client

    def _redis_keys(self, key: str) -> list[str]:
        return [self.backend.make_and_validate_key(name) for name in self._keys(key)]

    async def claim(self, key: str, token: str, lease: float) -> tuple[bool, HostTimes]:
        got, last_end, not_before, strikes = await self._client().eval(
            _CLAIM, 2, *self._redis_keys(key), token, _ms(lease)
        )
        return bool(got), _times(last_end, not_before, strikes)

    async def renew(self, key: str, token: str, lease: float) -> bool:
        return bool(await self._client().eval(_RENEW, 2, *self._redis_keys(key), token, _ms(lease)))

    async def release(self, key: str, token: str, ended: float | None) -> None:
        end = "" if ended is None else repr(ended)
        await self._client().eval(_RELEASE, 2, *self._redis_keys(key), token, end, STATE_TTL)

    async def times(self, key: str) -> HostTimes:
        found = await self._client().hmget(
            self._redis_keys(key)[1], "last_end", "not_before", "strikes"
        )
        return _times(*found)

    async def defer(self, key: str, until: float) -> int:
        keys = self._redis_keys(key)
        return int(await self._client().eval(_DEFER, 2, *keys, repr(until), STATE_TTL))

    async def clear(self, key: str) -> None:
        await self._client().hdel(self._redis_keys(key)[1], "strikes")

    async def aclose(self) -> None:
        """Close the idle connections of the running event loop's client.

        A fetch still holding a slot (a run stopped midway) keeps its connection and its
        client, so that freeing the slot, even as the fetch is cancelled, still reaches
        Redis: a slot left taken would keep the host from every worker for a lease.
        """
        client = self._clients.get(asyncio.get_running_loop())
        if client is not None:
            await client.connection_pool.disconnect(inuse_connections=False)


def _times(last_end: Any, not_before: Any, strikes: Any) -> HostTimes:
    return HostTimes(
        float(last_end) if last_end else None,
        float(not_before) if not_before else float("-inf"),
        int(strikes or 0),
    )


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


class FileSlots:
    """Slots in an SQLite file: shared by every process of one machine (the file cache's).

    A file cache keeps one value per file: a claim and a release cost seven file operations
    in a worker thread. Here each is one short transaction, atomic across processes, run on
    the event loop itself. The file is written without waiting for the disk (WAL, no sync):
    a crash loses at most turns and times that expire anyway.
    """

    shared = True

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()  # one connection for every thread of this process
        self._db = sqlite3.connect(
            self.path, timeout=5, isolation_level=None, check_same_thread=False
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS slot (host TEXT PRIMARY KEY, token TEXT, expires REAL,"
            " last_end REAL, not_before REAL, strikes INTEGER NOT NULL DEFAULT 0)"
        )

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _row(self, db: sqlite3.Connection, key: str) -> tuple[Any, ...] | None:
        query = "SELECT token, expires, last_end, not_before, strikes FROM slot WHERE host = ?"
        row: tuple[Any, ...] | None = db.execute(query, (key,)).fetchone()
        return row

    async def claim(self, key: str, token: str, lease: float) -> tuple[bool, HostTimes]:
        now = time.time()
        with self._writing() as db:
            row = self._row(db, key)
            free = row is None or row[0] is None or row[1] <= now
            if free:
                db.execute(
                    "INSERT INTO slot (host, token, expires) VALUES (?, ?, ?) ON CONFLICT(host)"
                    " DO UPDATE SET token = excluded.token, expires = excluded.expires",
                    (key, token, now + lease),
                )
        return free, _row_times(row)

    async def renew(self, key: str, token: str, lease: float) -> bool:
        now = time.time()
        with self._writing() as db:
            renewed = db.execute(
                "UPDATE slot SET expires = ? WHERE host = ? AND token = ? AND expires > ?",
                (now + lease, key, token, now),
            )
            return renewed.rowcount == 1

    async def release(self, key: str, token: str, ended: float | None) -> None:
        with self._writing() as db:
            if ended is not None:
                db.execute(
                    "INSERT INTO slot (host, last_end) VALUES (?, ?) ON CONFLICT(host) DO UPDATE"
                    " SET last_end = MAX(COALESCE(last_end, excluded.last_end), excluded.last_end)",
                    (key, ended),
                )
            db.execute(
                "UPDATE slot SET token = NULL, expires = NULL WHERE host = ? AND token = ?",
                (key, token),
            )

    async def times(self, key: str) -> HostTimes:
        with self._lock:
            return _row_times(self._row(self._db, key))

    async def defer(self, key: str, until: float) -> int:
        with self._writing() as db:
            db.execute(
                "INSERT INTO slot (host, not_before, strikes) VALUES (?, ?, 1) ON CONFLICT(host)"
                " DO UPDATE SET strikes = strikes + 1,"
                " not_before = MAX(COALESCE(not_before, excluded.not_before), excluded.not_before)",
                (key, until),
            )
            row = self._row(db, key)
        return int(row[4]) if row is not None else 1

    async def clear(self, key: str) -> None:
        with self._writing() as db:
            db.execute("UPDATE slot SET strikes = 0 WHERE host = ?", (key,))

    async def aclose(self) -> None:
        with self._lock:
            self._db.close()


def _row_times(row: tuple[Any, ...] | None) -> HostTimes:
    if row is None:
        return HostTimes()
    _, _, last_end, not_before, strikes = row
    return HostTimes(last_end, float("-inf") if not_before is None else not_before, strikes)


def shared_slots(alias: str = "default") -> Slots:
    """Return slots shared by the processes that share the Django cache `alias`: on Redis
    when it is Redis, in an SQLite file in its folder when it is a file cache, else in it."""
    from django.conf import settings
    from django.core.cache import caches
    from django.core.cache.backends.filebased import FileBasedCache
    from django.core.cache.backends.redis import RedisCache

    cache = caches[alias]
    if isinstance(cache, RedisCache):
        return RedisSlots(alias)
    if isinstance(cache, FileBasedCache):
        folder = settings.CACHES[alias]["LOCATION"]
        os.makedirs(folder, exist_ok=True)
        return FileSlots(os.path.join(folder, "politeness.sqlite3"))
    return CacheSlots(alias)
