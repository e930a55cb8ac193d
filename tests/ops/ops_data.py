"""Builders for the operator dashboard tests: staff, and clips stored by a crawl run."""

from __future__ import annotations

from crawler.models import CrawlRun, Page, PageVersion
from tests.factories import make_clip, make_user


def make_staff(email: str = "olga@example.com"):
    return make_user(email, is_staff=True)


def make_run_clips(run: CrawlRun, count: int) -> None:
    """Store one page version in the run and cut `count` clips from it."""
    page, _ = Page.objects.get_or_create(site=run.site, url=f"{run.site.root_url}run-{run.pk}")
    version = PageVersion.objects.create(page=page, run=run, content_hash=f"{run.pk:064d}")
    for index in range(count):
        clip = make_clip(run.site, url=page.url, title=f"Story {run.pk}.{index}")
        clip.page_version = version
        clip.area_path = f"html/body/article[{index + 1}]"
        clip.save(update_fields=["page_version", "area_path"])
