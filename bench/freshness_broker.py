"""The embedded broker alone: one Celery worker draining no-op tasks from filesystem://.

Run by bench/freshness.py --broker with kombu's default polling interval (1.0) and the one
config/settings.py sets (0.02). Prints idle CPU of the worker, latency of tasks sent at 5/s,
and how fast 300 queued tasks drain. A small Celery app of its own on Webclip's filesystem
transport (config/broker.py), so only the broker counts.

Usage: .venv/bin/python bench/freshness_broker.py POLLING_INTERVAL
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from celery import Celery

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.freshness_stack import tree_cpu  # noqa: E402
from config import broker  # noqa: E402

broker.install()  # the transport Webclip uses: each message file written whole

FOLDER = os.environ.get("FRESHNESS_BROKER_DIR") or tempfile.mkdtemp(prefix="webclip-broker-")
LOG = Path(FOLDER) / "done.log"
OPTIONS = {
    "data_folder_in": f"{FOLDER}/queue",
    "data_folder_out": f"{FOLDER}/queue",
    "processed_folder": f"{FOLDER}/processed",
    "control_folder": f"{FOLDER}/control",
    "store_processed": False,
    "polling_interval": float(os.environ.get("FRESHNESS_POLLING", "1.0")),
}
app = Celery("freshness_broker", broker="filesystem://")
app.conf.update(
    broker_transport_options=OPTIONS,
    task_acks_late=True,
    worker_prefetch_multiplier=1,
    task_ignore_result=True,
    worker_enable_remote_control=False,
    broker_connection_retry_on_startup=True,
)


@app.task(name="freshness_broker.noop")
def noop(sent: float) -> None:
    with open(LOG, "a") as out:
        out.write(f"{sent} {time.time()}\n")


def done() -> list[tuple[float, float]]:
    if not LOG.exists():
        return []
    return [tuple(map(float, line.split())) for line in LOG.read_text().splitlines()]


def main() -> None:
    interval = sys.argv[1]
    for sub in ("queue", "processed", "control"):
        Path(FOLDER, sub).mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "FRESHNESS_BROKER_DIR": FOLDER, "FRESHNESS_POLLING": interval}
    os.environ.update(env)
    OPTIONS["polling_interval"] = float(interval)
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "bench.freshness_broker", "worker",
         "--concurrency", "2", "-l", "warning", "--without-mingle", "--without-gossip",
         "--without-heartbeat"],
        cwd=Path(__file__).resolve().parent.parent, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        time.sleep(8)
        before = tree_cpu(worker.pid)
        time.sleep(10)
        idle = (tree_cpu(worker.pid) - before) / 10
        for _ in range(50):
            noop.delay(time.time())
            time.sleep(0.2)
        deadline = time.time() + 120
        while len(done()) < 50 and time.time() < deadline:
            time.sleep(0.2)
        latency = sorted(end - sent for sent, end in done())
        LOG.unlink(missing_ok=True)
        started = time.time()
        for _ in range(300):
            noop.delay(time.time())
        while len(done()) < 300 and time.time() - started < 300:
            time.sleep(0.2)
        drained = time.time() - started
        count = len(done())
    finally:
        worker.terminate()
        worker.wait()
    print(
        f"filesystem:// polling_interval {interval} s: idle worker {idle * 100:.1f}% of a core; "
        f"tasks sent at 5/s wait median {statistics.median(latency) * 1000:.0f} ms, "
        f"max {latency[-1] * 1000:.0f} ms; 300 queued tasks drained at {count / drained:.1f}/s"
    )


if __name__ == "__main__":
    main()
