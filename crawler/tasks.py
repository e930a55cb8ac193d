"""Celery tasks of the crawler: thin callers of crawler functions.

Routes (config/settings.py CELERY_TASK_ROUTES): `render_*` tasks go to the "render" queue
(hosts with Chromium), every other crawler task to "crawl".
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

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


def queue_renders(page_ids: Iterable[int]) -> None:
    """Queue script shells stored by a crawl for the render queue, after the commit."""
    for page_id in page_ids:
        render_page.delay_on_commit(page_id)


@shared_task
def find_sites(engine_id: int) -> int:
    """Ask one search engine for new sites for the topic; return how many are proposed."""
    from crawler.strategies.xcrawl.discover import find_sites_with

    discovery = find_sites_with(engine_id)
    return len(discovery.proposed) if discovery is not None else 0


def _crawl(site_id: int) -> int | None:
    from crawler.run.claims import CrawlAlreadyRunning
    from crawler.run.loop import crawl

    # Script shells found on the way are rendered by the render queue, not here; those
    # stored before a failure are queued too.
    shells: list[int] = []
    try:
        return crawl(site_id, render_shells="defer", to_render=shells).id
    except CrawlAlreadyRunning as exc:
        logger.info("%s", exc)
        return None
    except Site.DoesNotExist:
        logger.info("Site %s is gone; nothing to crawl.", site_id)
        return None
    finally:
        queue_renders(shells)
