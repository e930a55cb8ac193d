"""Register the publishing tick in django-celery-beat: due digests and stalled mail, every 5 minutes."""

from django.db import migrations

NAME = "Send due digests and re-queue stalled mail"


def create_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every_five_minutes, _ = IntervalSchedule.objects.get_or_create(every=300, period="seconds")
    PeriodicTask.objects.get_or_create(
        name=NAME,
        defaults={"task": "clipping.tasks.publish_due", "interval": every_five_minutes, "queue": "publish"},
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("clipping", "0002_clips_matches_mail"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(create_schedule, remove_schedule)]
