"""Politeness slots in an SQLite file: what the workers of one machine share on a file cache."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from crawler.fetch.slots import FileSlots, HostTimes, shared_slots
from crawler.fetch.sync import run_sync


def run(coroutine):
    # Another test in this worker may have left a running event loop in this thread.
    return run_sync(coroutine)


def test_a_file_cache_keeps_its_workers_slots_in_an_sqlite_file_in_its_folder(settings, tmp_path):
    folder = tmp_path / "cache"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(folder),
        }
    }
    slots = shared_slots()
    assert isinstance(slots, FileSlots)
    assert slots.path == str(folder / "politeness.sqlite3") and folder.is_dir()


def test_one_holder_at_a_time_and_the_times_are_shared(tmp_path):
    path = tmp_path / "slots.sqlite3"
    one, two = FileSlots(path), FileSlots(path)  # two workers' connections to one file

    assert run(one.claim("host", "a", 30))[0] is True
    assert run(two.claim("host", "b", 30))[0] is False
    assert run(two.renew("host", "b", 30)) is False and run(one.renew("host", "a", 30)) is True
    run(two.release("host", "b", None))  # not its slot: nothing is freed
    assert run(two.claim("host", "b", 30))[0] is False
    run(one.release("host", "a", 100.0))
    claimed, times = run(two.claim("host", "b", 30))
    assert claimed and times == HostTimes(last_end=100.0)
    run(two.release("host", "b", 90.0))  # an earlier end never moves the last one back
    assert run(one.times("host")).last_end == 100.0

    assert run(one.defer("host", 500.0)) == 1 and run(two.defer("host", 400.0)) == 2
    assert run(two.times("host")) == HostTimes(100.0, 500.0, 2)
    run(one.clear("host"))
    assert run(two.times("host")) == HostTimes(100.0, 500.0, 0)
    assert run(one.times("other")) == HostTimes()


def test_a_lease_that_ran_out_frees_the_host_and_cannot_be_renewed(tmp_path):
    path = tmp_path / "slots.sqlite3"
    one, two = FileSlots(path), FileSlots(path)
    assert run(one.claim("host", "a", 0.05))[0] is True
    time.sleep(0.1)
    assert run(one.renew("host", "a", 30)) is False
    assert run(two.claim("host", "b", 30))[0] is True


@pytest.mark.slow
def test_a_slot_held_by_another_process_is_not_taken_until_it_is_freed(tmp_path):
    path = tmp_path / "slots.sqlite3"
    holder = (
        "import asyncio, sys, time\n"
        "from crawler.fetch.slots import FileSlots\n"
        f"slots = FileSlots({str(path)!r})\n"
        "assert asyncio.run(slots.claim('host', 'other', 30))[0]\n"
        "print('held', flush=True)\n"
        "sys.stdin.readline()\n"
        "asyncio.run(slots.release('host', 'other', time.time()))\n"
        "print('freed', flush=True)\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout.readline().strip() == "held"
        mine = FileSlots(path)
        assert run(mine.claim("host", "mine", 30))[0] is False
        process.stdin.write("\n")
        process.stdin.flush()
        assert process.stdout.readline().strip() == "freed"
        claimed, times = run(mine.claim("host", "mine", 30))
        assert claimed and times.last_end is not None
    finally:
        process.kill()
        process.wait(10)
