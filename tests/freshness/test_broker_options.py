"""The embedded broker (filesystem://) polls its folder often enough not to be a bottleneck.

kombu's filesystem transport sleeps `polling_interval` (1 s by default) whenever a worker's
prefetch is full or the folder is empty, which made it deliver about one task per second;
config/settings.py sets a short interval. The settings are read in a fresh process, as a
worker started by `make run` reads them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from kombu import Connection

ROOT = Path(__file__).resolve().parents[2]

READ_OPTIONS = """
import json, django
django.setup()
from django.conf import settings
from config.celery_app import app
transport = app.connection_for_read().transport
print(json.dumps({
    "settings": settings.CELERY_BROKER_TRANSPORT_OPTIONS,
    "transport": transport.polling_interval,
    "class": f"{type(transport).__module__}.{type(transport).__name__}",
}))
"""


def broker_options(tmp_path: Path, url: str) -> dict[str, object]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "CELERY_BROKER_URL": url,
        "WEBCLIP_VAR_DIR": str(tmp_path),
    }
    out = subprocess.run(
        [sys.executable, "-c", READ_OPTIONS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_filesystem_broker_polls_every_twenty_milliseconds(tmp_path):
    read = broker_options(tmp_path, "filesystem://")
    assert read["settings"]["polling_interval"] == 0.02
    assert read["transport"] == 0.02  # what the worker's transport uses
    assert read["class"] == "config.broker.Transport"  # each message written whole
    assert read["settings"]["data_folder_in"] == str(tmp_path / "broker" / "queue")


def test_other_brokers_keep_their_own_polling(tmp_path):
    read = broker_options(tmp_path, "redis://127.0.0.1:6379/15")
    assert "polling_interval" not in read["settings"]


def test_messages_round_trip_through_the_configured_folders(tmp_path):
    options = broker_options(tmp_path, "filesystem://")["settings"]
    for key in ("data_folder_in", "processed_folder", "control_folder"):
        Path(options[key]).mkdir(parents=True, exist_ok=True)
    with Connection("filesystem://", transport_options=options) as connection:
        queue = connection.SimpleQueue("round-trip")
        for n in range(50):
            queue.put({"n": n})
        got = []
        for _ in range(50):
            message = queue.get(timeout=5)
            got.append(message.payload["n"])
            message.ack()
        queue.close()
    assert sorted(got) == list(range(50))
    assert list(Path(options["data_folder_in"]).iterdir()) == []


def test_a_consumer_polling_fast_never_reads_a_message_half_written(tmp_path):
    # Queue names differ per test: kombu keeps declared exchanges per process, not per folder.
    options = broker_options(tmp_path, "filesystem://")["settings"]
    for key in ("data_folder_in", "processed_folder", "control_folder"):
        Path(options[key]).mkdir(parents=True, exist_ok=True)
    big = "x" * 200_000  # long writes: a reader racing the writer would see them cut short
    sent = 300

    def produce() -> None:
        with Connection("filesystem://", transport_options=options) as connection:
            queue = connection.SimpleQueue("racing")
            for n in range(sent):
                queue.put({"n": n, "pad": big})
            queue.close()

    producer = threading.Thread(target=produce)
    got = []
    with Connection("filesystem://", transport_options=options) as connection:
        queue = connection.SimpleQueue("racing")
        producer.start()
        while len(got) < sent:
            message = queue.get(timeout=30)
            assert message.payload["pad"] == big
            got.append(message.payload["n"])
            message.ack()
        queue.close()
    producer.join()
    assert sorted(got) == list(range(sent))
    assert list(Path(options["data_folder_in"]).iterdir()) == []
