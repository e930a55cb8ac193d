"""Builders for the operator dashboard tests: staff, sites with runs, clips stored by a run."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from crawler.models import CrawlRun, Page, PageVersion, Site
from tests.clipping.conftest import make_clip
from tests.conftest import make_user


def make_staff(email: str = "olga@example.com"):
    return make_user(email, is_staff=True)


def make_run(site: Site, *, hours_ago: float, finished: bool = True, **counters: int) -> CrawlRun:
    """Create a crawl run of a site that started some hours ago, with the counters given."""
    started = timezone.now() - timedelta(hours=hours_ago)
    return CrawlRun.objects.create(
        site=site,
        strategy=site.strategy,
        status=CrawlRun.Status.FINISHED if finished else CrawlRun.Status.RUNNING,
        started_at=started,
        heartbeat_at=started + timedelta(minutes=5) if finished else timezone.now(),
        finished_at=started + timedelta(minutes=10) if finished else None,
        page_budget=site.page_budget,
        **counters,
    )


def make_run_clips(run: CrawlRun, count: int) -> None:
    """Store one page version in the run and cut `count` clips from it."""
    page, _ = Page.objects.get_or_create(site=run.site, url=f"{run.site.root_url}run-{run.pk}")
    version = PageVersion.objects.create(page=page, run=run, content_hash=f"{run.pk:064d}")
    for index in range(count):
        clip = make_clip(run.site, url=page.url, title=f"Story {run.pk}.{index}")
        clip.page_version = version
        clip.area_path = f"html/body/article[{index + 1}]"
        clip.save(update_fields=["page_version", "area_path"])
