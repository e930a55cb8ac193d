"""Hub and feed schedules: per-site feed poll and hub minimum, a hub's gained links, and the
"Dispatch due watches" tick (every 10 seconds) in django-celery-beat."""

import datetime

from django.db import migrations, models
from django.utils import timezone

WATCHES = "Dispatch due watches"


def create_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every_ten_seconds, _ = IntervalSchedule.objects.get_or_create(every=10, period="seconds")
    PeriodicTask.objects.get_or_create(
        name=WATCHES,
        defaults={
            "task": "crawler.tasks.dispatch_due_watches",
            "interval": every_ten_seconds,
            "queue": "watch",
        },
    )
    # Sites crawled before: their first watch finds what is due and schedules the next.
    apps.get_model("crawler", "Site").objects.update(next_watch_at=timezone.now())


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=WATCHES).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("crawler", "0010_run_searches_and_renders"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [
        migrations.AddField(
            model_name="page",
            name="gained_links",
            field=models.PositiveIntegerField(
                default=0, help_text="Links the last visit found that the page did not have before."
            ),
        ),
        migrations.AddField(
            model_name="site",
            name="feed_poll_interval",
            field=models.DurationField(
                default=datetime.timedelta(seconds=120),
                help_text="How often the site's feeds and sitemaps are asked for news, with conditional requests (HH:MM:SS).",
            ),
        ),
        migrations.AddField(
            model_name="site",
            name="min_hub_revisit",
            field=models.DurationField(
                default=datetime.timedelta(seconds=300),
                help_text="Shortest revisit interval of a hub page (home page, sections); hubs that gain new links on most visits come back this often, quiet ones less often.",
            ),
        ),
        migrations.AddField(
            model_name="site",
            name="next_watch_at",
            field=models.DateTimeField(
                blank=True,
                db_index=True,
                help_text="When the site's next feed, sitemap or hub falls due (a short watch run).",
                null=True,
            ),
        ),
        migrations.RunPython(create_schedule, remove_schedule),
    ]
