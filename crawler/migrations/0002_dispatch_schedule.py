"""Register the periodic dispatcher in django-celery-beat so admins can see and edit it."""

from django.db import migrations


def create_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every_minute, _ = IntervalSchedule.objects.get_or_create(every=60, period="seconds")
    PeriodicTask.objects.get_or_create(
        name="Dispatch due crawls",
        defaults={"task": "crawler.tasks.dispatch_due_sites", "interval": every_minute, "queue": "crawl"},
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name="Dispatch due crawls").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("crawler", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(create_schedule, remove_schedule)]
