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
