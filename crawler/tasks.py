"""Celery tasks of the crawler: thin callers of crawler functions.

Routes (config/settings.py CELERY_TASK_ROUTES): `render_*` tasks go to the "render" queue
(hosts with Chromium), the watch dispatcher and watches to "watch", every other crawler task
to "crawl".

Two beat ticks: `dispatch_due_sites` (every minute) starts whole crawl runs on each site's
revisit interval; `dispatch_due_watches` (every 10 seconds) starts watches, short looks at the
feeds, sitemaps and hubs due on their own schedules (`crawler.run.watch`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from crawler import hooks
from crawler.models import Page, Site

logger = logging.getLogger(__name__)

# How long a queued or running watch holds its site's next watch time.
WATCH_LEASE = timedelta(minutes=5)


@shared_task
def dispatch_due_sites() -> int:
    """Enqueue one crawl per due site; a site's next crawl time is claimed before enqueueing."""
    now = timezone.now()
    queued = 0
    for site in Site.objects.due(now).only(
        "id", "revisit_interval", "next_crawl_at", "needs_browser"
    ):
        claim = now + site.revisit_interval
        claimed = Site.objects.filter(id=site.id, next_crawl_at=site.next_crawl_at).update(
            next_crawl_at=claim
        )
        if claimed != 1:
            continue
        try:
            enqueue_crawl(site)
        except Exception:
            # The broker refused the crawl: give the claim back, or the site would wait a
            # whole revisit interval for a crawl that was never queued.
            Site.objects.filter(id=site.id, next_crawl_at=claim).update(
                next_crawl_at=site.next_crawl_at
            )
            raise
        queued += 1
    return queued


@shared_task
def dispatch_due_watches() -> int:
    """Enqueue one watch per site whose feeds, sitemaps or hubs are due (a short look).

    The site's next watch time is claimed for WATCH_LEASE first, so a watch still queued or
    running is not queued twice; the watch sets the real next time when it ends, and a lost
    watch is queued again once the lease runs out.
    """
    now = timezone.now()
    queued = 0
    for site in Site.objects.watch_due(now).only("id", "next_watch_at", "needs_browser"):
        claim = now + WATCH_LEASE
        claimed = Site.objects.filter(id=site.id, next_watch_at=site.next_watch_at).update(
            next_watch_at=claim
        )
        if claimed != 1:
            continue
        try:
            task = render_watch_site if site.needs_browser else watch_site
            task.delay_on_commit(site.id)
        except Exception:
            Site.objects.filter(id=site.id, next_watch_at=claim).update(
                next_watch_at=site.next_watch_at
            )
            raise
        queued += 1
    return queued


@shared_task
def watch_site(site_id: int) -> dict[str, int] | None:
    """Look at a site's due feeds, sitemaps and hubs and fetch what they newly link to."""
    return _watch(site_id)


@shared_task
def render_watch_site(site_id: int) -> dict[str, int] | None:
    """Watch a site that needs a browser (on the render queue)."""
    return _watch(site_id)


def _watch(site_id: int) -> dict[str, int] | None:
    from crawler.run.watch import watch

    try:
        with hooks.gathering():
            done = watch(site_id)
    except Site.DoesNotExist:
        logger.info("Site %s is gone; nothing to watch.", site_id)
        return None
    queue_renders(done.render)
    return {"hubs": done.hubs, "unchanged": done.unchanged, "new_pages": done.new_pages}


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
    from crawler.run.loop import render_stored_page as render

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
        # Stored versions leave in batches, one per heartbeat, not one task per page.
        with hooks.gathering():
            return crawl(site_id, render_shells="defer", to_render=shells).id
    except CrawlAlreadyRunning as exc:
        logger.info("%s", exc)
        return None
    except Site.DoesNotExist:
        logger.info("Site %s is gone; nothing to crawl.", site_id)
        return None
    finally:
        queue_renders(shells)
