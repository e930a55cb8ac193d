"""A person's allowances: the sites they follow, and the pages their private sites fetch in a
day; the crawl settings a new site gets within them.

Rules (`crawler.conf.UserSiteSettings`): CRAWLER_USER_SITES_MAX caps the sites one person
follows; CRAWLER_USER_PAGES_PER_DAY the pages their private sites fetch in a day
(`SiteQuerySet.within_daily_pages` holds back the crawls past it).

A site costs what it uses: its plan is sized from the pages the preview found (a 4-page site
gets a run of a dozen pages, not the 200 a site of unknown size gets), and once it has run,
what it counts against the allowance is the most pages its recent runs fetched, times its
runs a day, never more than its plan reserves. So a person's small sites leave room for the
next ones, up to the number of sites they may follow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol
from urllib.parse import urlsplit

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from crawler.conf import user_site_settings
from crawler.fetch import policy_from_settings
from crawler.fetch.policy import url_origin
from crawler.models import CrawlRun, Site
from crawler.strategies.base import INFORMATION

DEFAULT_BUDGET = 200  # pages of one run of a person's site, at most
MIN_BUDGET = 20  # fewer pages a run would not get past the home page of a site of unknown size
# A site whose size the preview measured gets twice its pages a run (room for new ones),
# plus a few for its feed, sitemap and robots.txt.
SIZE_FACTOR = 2
SIZE_MARGIN = 4
MEASURED_RUNS = 3  # the recent finished runs whose largest fetch is a site's measured size
# Revisit intervals tried from the most eager: the first whose runs fit the allowance wins.
INTERVALS = tuple(timedelta(hours=h) for h in (1, 2, 3, 6, 12, 24))


class Found(Protocol):
    """What planning reads of a preview (`crawler.usersites.preview.Preview`)."""

    url: str
    final_url: str
    kind: str
    title: str
    feeds: list[str]
    needs_browser: bool
    robots_delay: float | None
    size: int  # the pages the preview found the site to have (0: unknown)


class SiteRefused(Exception):
    """A URL that cannot become one of the person's sites; the message says why in words."""


@dataclass
class CrawlPlan:
    """The crawl settings a preview picked for a new site."""

    name: str
    root_url: str
    seed_urls: list[str] = field(default_factory=list)
    strategy: str = Site.Strategy.BFS
    revisit_hours: float = 3.0
    page_budget: int = DEFAULT_BUDGET
    max_depth: int = 3
    crawl_delay: float = 1.0
    needs_browser: bool = False

    def describe(self) -> str:
        """Say the plan in words."""
        hours = self.revisit_hours
        count = int(hours) if float(hours).is_integer() else 2  # 1.5 hours: plural
        if self.needs_browser:
            text = ngettext(
                "Crawl every %(hours)s hour, up to %(pages)s pages a time, following links "
                "%(depth)s deep, %(delay)s s between requests, each page rendered in a browser.",
                "Crawl every %(hours)s hours, up to %(pages)s pages a time, following links "
                "%(depth)s deep, %(delay)s s between requests, each page rendered in a browser.",
                count,
            )
        else:
            text = ngettext(
                "Crawl every %(hours)s hour, up to %(pages)s pages a time, following links "
                "%(depth)s deep, %(delay)s s between requests.",
                "Crawl every %(hours)s hours, up to %(pages)s pages a time, following links "
                "%(depth)s deep, %(delay)s s between requests.",
                count,
            )
        return text % {
            "hours": f"{hours:g}",
            "pages": self.page_budget,
            "depth": self.max_depth,
            "delay": f"{self.crawl_delay:g}",
        }


def pages_allowance(user: Any, exclude_id: int | None = None) -> int:
    """Return the pages a day still free for a new private site of the person."""
    used = 0
    own = Site.objects.filter(added_by=user, visibility=Site.Visibility.PRIVATE).exclude(
        approval=Site.Approval.DENIED
    )
    for site in own.exclude(id=exclude_id).filter(enabled=True):
        used += daily_cost(site)
    return max(0, user_site_settings().pages_per_day - used)


def daily_cost(site: Site) -> int:
    """Return the pages a day a site counts against its adder's allowance.

    Its plan's reservation (budget times runs a day) until it has run; then the most pages
    one of its last MEASURED_RUNS finished runs fetched, times its runs a day, at most the
    reservation.
    """
    reserved = daily_pages(site.page_budget, site.revisit_interval)
    fetched = list(
        CrawlRun.objects.filter(site=site, status=CrawlRun.Status.FINISHED)
        .order_by("-started_at")
        .values_list("fetched", flat=True)[:MEASURED_RUNS]
    )
    if not fetched:
        return reserved
    return min(reserved, daily_pages(max(max(fetched), 1), site.revisit_interval))


def sized_budget(size: int) -> tuple[int, int]:
    """Return the pages a run wants for a site of `size` pages, and the fewest that will do."""
    if size <= 0:
        return DEFAULT_BUDGET, MIN_BUDGET
    wanted = min(DEFAULT_BUDGET, SIZE_FACTOR * size + SIZE_MARGIN)
    return wanted, min(MIN_BUDGET, wanted)


def daily_pages(page_budget: int, revisit: timedelta) -> int:
    """Return the most pages a site fetches in a day: its budget times its runs a day."""
    runs = math.ceil(timedelta(days=1) / max(revisit, timedelta(minutes=1)))
    return page_budget * runs


def plan_for(user: Any, preview: Found) -> CrawlPlan:
    """Pick crawl settings for the previewed site within the person's daily allowance."""
    allowance = pages_allowance(user)
    if preview.kind in ("feed", "sitemap"):
        wanted, depth = INTERVALS[0 if preview.kind == "feed" else 3], 1
    elif preview.kind == INFORMATION:
        wanted, depth = INTERVALS[3], 2
    else:
        wanted, depth = INTERVALS[1 if preview.feeds else 2], 3
    most, least = sized_budget(preview.size)
    for revisit in [i for i in INTERVALS if i >= wanted]:
        budget = min(most, allowance // daily_pages(1, revisit))
        if budget >= least:
            break
    else:
        raise SiteRefused(
            _("Your sites already use your %(pages)s pages a day; remove one to add another.")
            % {"pages": user_site_settings().pages_per_day}
        )
    # robots.txt's Crawl-delay is obeyed by the fetcher anyway; the site says it too.
    delay = max(1.0, min(preview.robots_delay or 0.0, policy_from_settings().max_crawl_delay))
    root = preview.final_url or preview.url
    name = (preview.title or urlsplit(root).hostname or root).strip()[:200]
    return CrawlPlan(
        name=name,
        root_url=root,
        # Feeds on other origins are no part of this site: each is a site of its own.
        seed_urls=[u for u in preview.feeds if u != root and url_origin(u) == url_origin(root)],
        revisit_hours=revisit.total_seconds() / 3600,
        page_budget=budget,
        max_depth=depth,
        crawl_delay=delay,
        needs_browser=preview.needs_browser,
    )


def check_quota(user: Any) -> None:
    limit = user_site_settings().max_sites
    if Site.objects.followed_by(user).count() >= limit and not user.is_staff:
        raise SiteRefused(
            ngettext(
                "You follow %(count)s site, the most allowed; remove it first.",
                "You follow %(count)s sites, the most allowed; remove one first.",
                limit,
            )
            % {"count": limit}
        )


def lock_person(user: Any) -> None:
    """Hold the person's row until the transaction ends, so that one request at a time checks
    and spends their allowances: a no-op write takes the row's lock on PostgreSQL and the
    database's write lock on SQLite, where select_for_update does nothing."""
    model = get_user_model()
    model.objects.filter(pk=user.pk).update(**{model._meta.pk.attname: user.pk})
