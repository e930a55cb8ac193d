"""The Celery app: JSON only, late acks, limits below the broker's visibility timeout."""

import os
from pathlib import Path

from celery import Celery

from config import broker

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
broker.install()  # filesystem:// writes each message whole (config/broker.py)

app = Celery("webclip", task_cls="celery.contrib.django.task:DjangoTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_configure.connect
def ensure_broker_folders(**kwargs: object) -> None:
    """Create the filesystem broker's folders; kombu expects them to exist."""
    options = app.conf.broker_transport_options or {}
    for key in ("data_folder_in", "data_folder_out", "processed_folder", "control_folder"):
        if options.get(key):
            Path(options[key]).mkdir(parents=True, exist_ok=True)
