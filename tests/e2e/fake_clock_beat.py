"""A beat process on a fake clock, stepping in lockstep with the test that started it.

    python -m tests.e2e.fake_clock_beat NAME START STEP_SECONDS STEPS KEY

Each step waits until the test opens it (Redis key KEY:clock), travels to START plus the
step's time, and runs the project's scheduler (django-celery-beat's DatabaseScheduler, as
`celery beat` runs it) until nothing more is due; with CELERY_TASK_ALWAYS_EAGER the tasks it
sends run here, at that time. It then reports the step done (KEY:done:NAME).
"""

from __future__ import annotations

import os
import sys
import time
from datetime import datetime, timedelta

MOST_TICKS_A_STEP = 20


def main(name: str, start: str, step_seconds: str, steps: str, key: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    import redis
    import time_machine
    from django.conf import settings
    from django_celery_beat.schedulers import DatabaseScheduler

    from config.celery_app import app

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    origin = datetime.fromisoformat(start)
    scheduler = None
    for step in range(int(steps)):
        while int(client.get(f"{key}:clock") or -1) < step:
            time.sleep(0.002)
        with time_machine.travel(origin + timedelta(seconds=step * int(step_seconds))):
            scheduler = scheduler or DatabaseScheduler(app=app)
            for _ in range(MOST_TICKS_A_STEP):
                if scheduler.tick() > 0:  # nothing more is due at this time
                    break
        client.set(f"{key}:done:{name}", step)


if __name__ == "__main__":
    main(*sys.argv[1:])
