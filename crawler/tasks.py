"""Celery tasks of the crawler: thin callers of crawler functions.

Routes (config/settings.py CELERY_TASK_ROUTES): `render_*` tasks go to the "render" queue
(hosts with Chromium), every other crawler task to "crawl".
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.utils import timezone

from crawler.models import Page, Site

logger = logging.getLogger(__name__)


@shared_task
def dispatch_due_sites() -> int:
    """Enqueue one crawl per due site; a site's next crawl time is claimed before enqueueing."""
    now = timezone.now()
    queued = 0
    for site in Site.objects.due(now).only(
        "id", "revisit_interval", "next_crawl_at", "needs_browser"
    ):
        claimed = Site.objects.filter(id=site.id, next_crawl_at=site.next_crawl_at).update(
            next_crawl_at=now + site.revisit_interval
        )
        if claimed == 1:
            enqueue_crawl(site)
            queued += 1
    return queued


def enqueue_crawl(site: Site) -> None:
    """Queue a crawl of the site once the current transaction commits, on the right queue."""
    task = render_site if site.needs_browser else crawl_site
    task.delay_on_commit(site.id)


@shared_task
def crawl_site(site_id: int) -> int | None:
    """Run one crawl of a site; return the run id, or None if it was already being crawled."""
    return _crawl(site_id)


@shared_task
def render_site(site_id: int) -> int | None:
    """Run one crawl of a site that needs a browser (on the render queue)."""
    return _crawl(site_id)


@shared_task
def render_page(page_id: int) -> int | None:
    """Render one script-shell page in the browser and store it; return the new version id."""
    from crawler.run.loop import render_page as render

    try:
        return render(page_id)
    except Page.DoesNotExist:
        logger.info("Page %s is gone; nothing to render.", page_id)
        return None


def _crawl(site_id: int) -> int | None:
    from crawler.run.claims import CrawlAlreadyRunning
    from crawler.run.loop import crawl

    try:
        # Script shells found on the way are rendered by the render queue, not here.
        return crawl(site_id, render_shells="defer").id
    except CrawlAlreadyRunning as exc:
        logger.info("%s", exc)
        return None
    except Site.DoesNotExist:
        logger.info("Site %s is gone; nothing to crawl.", site_id)
        return None
