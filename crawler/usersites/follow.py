"""A person's sites: adding one, or following the site already watching its origin (one
origin is never crawled twice), unfollowing, and the crawl status of each in words.

CRAWLER_USER_SITES (`crawler.conf.UserSiteSettings`) is open (crawled at once), approval (an
admin approves each new site) or admins-only (people follow sites already watched).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from analyzer.text.sorting import sort_key
from crawler.conf import user_site_settings
from crawler.fetch import SiteRules, check_url
from crawler.fetch.policy import url_origin
from crawler.models import CrawlRun, Site
from crawler.usersites.preview import Preview, normalized, preview_site, refusal_words
from crawler.usersites.quota import (
    SiteRefused,
    check_quota,
    daily_pages,
    lock_person,
    pages_allowance,
)
from crawler.usersites.status import describe


@dataclass(frozen=True)
class Added:
    """What `add_site` did: a new site, or a subscription to one already watched."""

    site: Site
    created: bool
    already: bool = False  # the person followed it before

    @property
    def message(self) -> str:
        name = {"name": self.site.name}
        if self.already:
            return _("You already follow %(name)s.") % name
        if not self.created:
            return _("%(name)s is already watched; you now follow it.") % name
        if self.site.approval == Site.Approval.PENDING:
            return _("%(name)s is added and waits for an admin's approval.") % name
        return _("%(name)s is added; its first crawl starts within a few minutes.") % name


def add_site(user: Any, url: str, preview: Preview | None = None) -> Added:
    """Add the site of `url` for a person, or subscribe them to the site already watching it.

    `preview`: the one the person saw (from `preview_site`); without it one is made now
    (an import of many feeds at once). Raises SiteRefused with the reason in words.
    """
    conf = user_site_settings()
    url = normalized(url)
    origin = url_origin(url)
    if origin is None:
        raise SiteRefused(_("This is not a web address (http:// or https://)."))
    existing = Site.objects.at_origin(origin)
    if existing:
        return _subscribe(user, existing[0])
    if conf.policy == "admins-only" and not user.is_staff:
        raise SiteRefused(
            _("Only admins add new sites here; you can follow any site that is already watched.")
        )
    check_quota(user)
    if preview is None or preview.url != url:
        preview = preview_site(user, url)
    if preview.existing_id is not None:
        return _subscribe(user, Site.objects.get(id=preview.existing_id))
    if preview.error or preview.plan is None:
        raise SiteRefused(preview.error or _("Nothing to crawl was found at this address."))
    plan = preview.plan
    approved = conf.policy == "open" or user.is_staff
    site = Site(
        name=plan.name,
        root_url=plan.root_url,
        seed_urls="\n".join(plan.seed_urls),
        strategy=plan.strategy,
        revisit_interval=timedelta(hours=plan.revisit_hours),
        page_budget=plan.page_budget,
        max_depth=plan.max_depth,
        crawl_delay=plan.crawl_delay,
        needs_browser=plan.needs_browser,
        allow_private_network=False,
        added_by=user,
        visibility=Site.Visibility.PRIVATE,
        approval=Site.Approval.APPROVED if approved else Site.Approval.PENDING,
    )
    refused = check_url(site.root_url, SiteRules.of(site))
    if refused is not None:
        raise SiteRefused(refusal_words(refused))
    try:
        _save_within_allowances(user, site)
    except IntegrityError:  # someone added the same root URL a moment ago
        return _subscribe(user, Site.objects.get(root_url=plan.root_url))
    return Added(site=site, created=True)


def _save_within_allowances(user: Any, site: Site) -> None:
    """Save a person's new site if their allowances still have room for it.

    Checked again under the person's lock: another request of theirs may have added a site
    while this one was previewing.
    """
    with transaction.atomic():
        lock_person(user)
        check_quota(user)
        if daily_pages(site.page_budget, site.revisit_interval) > pages_allowance(user):
            raise SiteRefused(
                _("Your sites already use your %(pages)s pages a day; remove one to add another.")
                % {"pages": user_site_settings().pages_per_day}
            )
        site.save()
        site.subscribers.add(user)


def _subscribe(user: Any, site: Site) -> Added:
    if site.subscribers.filter(id=user.pk).exists():
        return Added(site=site, created=False, already=True)
    if site.approval == Site.Approval.DENIED:
        raise SiteRefused(_("An admin declined %(name)s; it is not crawled.") % {"name": site.name})
    with transaction.atomic():
        lock_person(user)
        check_quota(user)
        # A private site nobody followed was paused for that reason alone: a follower resumes it.
        paused = _private(site) and not site.enabled and not site.subscribers.exists()
        site.subscribers.add(user)
        if paused:
            Site.objects.filter(id=site.id).update(enabled=True)
            site.enabled = True
    return Added(site=site, created=False)


def unfollow_site(user: Any, site: Site) -> None:
    """End a person's subscription; a private site that nobody follows stops being crawled."""
    with transaction.atomic():
        site.subscribers.remove(user)
        _pause_if_unfollowed(site)


def leave_all_sites(user: Any) -> None:
    """Unfollow every site a person follows or added (their account goes): a private site
    that nobody follows any more stops being crawled, whoever added it."""
    with transaction.atomic():
        sites = Site.objects.filter(Q(subscribers=user) | Q(added_by=user)).distinct()
        for site in sites:
            site.subscribers.remove(user)
            _pause_if_unfollowed(site)


def _private(site: Site) -> bool:
    return site.visibility == Site.Visibility.PRIVATE


def _pause_if_unfollowed(site: Site) -> None:
    if _private(site) and not site.subscribers.exists():
        Site.objects.filter(id=site.id).update(enabled=False)


@dataclass(frozen=True)
class FollowedSite:
    """One row of a person's Sites page."""

    site: Site
    status: str  # the crawl status and last run, in words
    private: bool
    mine: bool  # the person added it


def followed_sites(user: Any, now: datetime | None = None) -> list[FollowedSite]:
    """Return the sites a person follows, each with its crawl status in plain words."""
    now = now or timezone.now()
    last = CrawlRun.objects.filter(site=OuterRef("pk")).order_by("-started_at", "-id")
    sites = (
        Site.objects.followed_by(user)
        .annotate(last_run_id=Subquery(last.values("id")[:1]))
        .order_by("id")
    )
    rows = sorted(sites, key=lambda site: sort_key(site.name))  # as a reader orders names
    runs = CrawlRun.objects.in_bulk([s.last_run_id for s in rows if s.last_run_id])
    return [
        FollowedSite(
            site=site,
            status=describe(site, runs.get(site.last_run_id), now),
            private=site.visibility == Site.Visibility.PRIVATE,
            mine=site.added_by_id == user.pk,
        )
        for site in rows
    ]
