"""Register the demo news site (python -m demo) as a monitored site; idempotent."""

from datetime import timedelta

from django.core.management.base import BaseCommand

from crawler.models import Site


class Command(BaseCommand):
    help = "Register The Daily Demo (served by `python -m demo`) as a monitored site."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8100/")
        parser.add_argument("--revisit-seconds", type=int, default=60)

    def handle(self, *args, url: str, revisit_seconds: int, **options) -> None:
        site, created = Site.objects.update_or_create(
            root_url=url,
            defaults={
                "name": "The Daily Demo",
                "strategy": Site.Strategy.XCRAWL,
                "revisit_interval": timedelta(seconds=revisit_seconds),
                "min_page_revisit": timedelta(seconds=revisit_seconds),
                "page_budget": 200,
                "crawl_delay": 0.1,
                "allow_private_network": True,
                "needs_browser": False,
                "enabled": True,
            },
        )
        self.stdout.write(
            f"{'Registered' if created else 'Updated'} demo site {site.root_url} (id {site.pk})."
        )
