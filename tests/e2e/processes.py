"""Real Celery workers and beat as separate processes, pointed at the test database and broker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
CELERY = str(Path(sys.executable).with_name("celery"))
LOG_TAIL_LINES = 80


# For process tests whose subject is not the pacing of instant mail (crashes, the pipeline's
# steps): each clip mailed as it comes. The shipped pacing has its own end-to-end walk.
UNPACED = {"CLIPPING_INSTANT_GATHER_SECONDS": "0", "CLIPPING_INSTANT_SPACING_SECONDS": "0"}


def service_env(*, smtp_port: int, site_url: str, **extra: str) -> dict[str, str]:
    """The environment a worker needs to share this test's database, broker, cache and SMTP server."""
    db = connection.settings_dict
    env = {
        k: v for k, v in os.environ.items() if k not in {"WEBCLIP_TESTING", "PYTEST_XDIST_WORKER"}
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
            "CACHE_URL": settings.CACHES["default"]["LOCATION"],
            "CACHE_KEY_PREFIX": settings.CACHES["default"]["KEY_PREFIX"],
            "EMAIL_PROVIDER": "smtp",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(smtp_port),
            "EMAIL_TIMEOUT": "5",
            "SITE_URL": site_url,
            "DEBUG": "1",
            "LOG_LEVEL": "WARNING",
        }
    )
    env.update(extra)
    return env


@dataclass
class Processes:
    """Start and stop worker and beat processes; every one is killed at the end."""

    env: dict[str, str]
    log_dir: Path
    running: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def _start(self, name: str, args: list[str]) -> subprocess.Popen[bytes]:
        log = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 (closed with the process)
        process = subprocess.Popen(  # noqa: S603
            args,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.running[name] = process
        return process

    def worker(self, name: str, queues: str, concurrency: int = 1) -> subprocess.Popen[bytes]:
        return self._start(
            name,
            [
                CELERY,
                "-A",
                "config",
                "worker",
                "-Q",
                queues,
                "-n",
                f"{name}@%h",
                "--concurrency",
                str(concurrency),
                "--without-mingle",
                "--without-gossip",
                "-l",
                "info",
            ],
        )

    def beat(self) -> subprocess.Popen[bytes]:
        schedule = self.log_dir / "beat-schedule"
        return self._start(
            "beat", [CELERY, "-A", "config", "beat", "-l", "info", "-s", str(schedule)]
        )

    def kill(self, name: str) -> None:
        """SIGKILL a process group: the worker gets no chance to clean up."""
        process = self.running.pop(name)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    def stop_all(self) -> None:
        for name in list(self.running):
            process = self.running.pop(name)
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(process.pid, signal.SIGKILL)
            # pytest shows what a test printed only when it fails: the logs then tell why.
            tail = self.log(name).splitlines()[-LOG_TAIL_LINES:]
            print(f"--- last {len(tail)} lines of the {name} log ---", *tail, sep="\n")

    def log(self, name: str) -> str:
        path = self.log_dir / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""


def wait_until(
    condition: Callable[[], object], timeout: float, what: str, interval: float = 0.25
) -> object:
    """Poll until condition() is truthy; fail with `what` after timeout seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


# --- Crashes: killing a pool process, the broker's redelivery, idleness -------------------------

QUEUES = ("crawl", "render", "publish", "celery")


def pool_children(process: subprocess.Popen[bytes]) -> list[int]:
    """Return the pids of a prefork worker's pool processes (its direct children)."""
    children: list[int] = []
    for task in Path(f"/proc/{process.pid}/task").glob("*/children"):
        children.extend(int(pid) for pid in task.read_text().split())
    return children


def kill_pool_child(process: subprocess.Popen[bytes], timeout: float = 10) -> int:
    """SIGKILL the pool process of a worker started with concurrency 1; return its pid.

    The worker's main process stays up: it sees the task's process lost and, with
    task_reject_on_worker_lost, gives the message back to the broker at once.
    """
    (child,) = wait_until(lambda: pool_children(process), timeout, "the worker's pool process")
    os.kill(child, signal.SIGKILL)
    return child


def broker_client():
    """Return a Redis client on this test run's broker."""
    import redis

    return redis.Redis.from_url(settings.CELERY_BROKER_URL)


def age_unacked(seconds: float) -> int:
    """Make messages unacknowledged by a dead worker look `seconds` older; return how many.

    The Redis transport restores a message once its visibility timeout passed (a new worker
    does so as it starts): this lets that time pass without waiting for it.
    """
    client = broker_client()
    aged = 0
    for tag, score in client.zrange("unacked_index", 0, -1, withscores=True):
        client.zadd("unacked_index", {tag: score - seconds})
        aged += 1
    return aged


def broker_idle() -> bool:
    """Tell whether no task waits in any queue and none is held by a worker."""
    client = broker_client()
    return not client.hlen("unacked") and not any(client.llen(queue) for queue in QUEUES)


def purge_queues() -> None:
    """Drop every message of this test run's broker database (earlier tests' rows are gone)."""
    broker_client().delete(*QUEUES, "unacked", "unacked_index")


def wait_for_log(processes: Processes, name: str, text: str, timeout: float = 60) -> None:
    """Wait until the process's log shows `text` (e.g. a worker's "ready.")."""
    wait_until(lambda: text in processes.log(name), timeout, f"{name} to log {text!r}", 0.05)


def start_fake_clock_beat(
    processes: Processes, name: str, start: str, step_seconds: int, steps: int, key: str
) -> subprocess.Popen[bytes]:
    """Start a beat on a fake clock (tests/e2e/fake_clock_beat.py) under `processes`."""
    args = [sys.executable, "-m", "tests.e2e.fake_clock_beat", name, start]
    return processes._start(name, [*args, str(step_seconds), str(steps), key])
