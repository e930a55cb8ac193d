"""Sites people add themselves: first a preview of what the crawler finds, then the site.

A person gives a URL: a home page, a section or a feed. `preview_site` fetches it as a crawl
would (the run's backend, `crawler.run.fetching`: robots.txt, the SSRF guard, size and time
limits, politeness), analyses it (`crawler.extract`), and fetches a few of the articles it
leads to, to show the titles a crawl would clip. It then picks crawl settings that fit the
person's daily page allowance. `add_site` saves the site, or subscribes the person to the
site already watching that origin: one origin is never crawled twice.

A person never reaches a private network: the site's allow_private_network flag is the
admins' alone and stays off here; only the operator's CRAWLER_USER_SITE_NETWORKS opens
networks to people's sites (`Site.allowed_networks`).

Rules (`crawler.conf.UserSiteSettings`): CRAWLER_USER_SITES is open (crawled at once),
approval (an admin approves each new site) or admins-only (people follow sites already
watched); CRAWLER_USER_SITES_MAX caps the sites one person follows; CRAWLER_USER_PAGES_PER_DAY
the pages their private sites fetch in a day (`SiteQuerySet.within_daily_pages` holds back
the crawls past it). A person's site is private, its clips theirs alone, until an admin
shares it with everyone.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.db import IntegrityError, transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone
from django.utils.timesince import timesince, timeuntil
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from crawler.canonical import canonicalize, same_site
from crawler.conf import user_site_settings
from crawler.extract.page import extract
from crawler.fetch import (
    ErrorKind,
    FetchError,
    RobotsRules,
    SiteRules,
    check_url,
    policy_from_settings,
)
from crawler.fetch.policy import url_origin
from crawler.fetch.sync import run_sync
from crawler.models import CrawlRun, Site
from crawler.run.fetching import FetchBackend, is_html, looks_like_script_shell
from crawler.sitesearch.detect import find_search_template
from crawler.strategies.base import HUB, INFORMATION

DEFAULT_BUDGET = 200  # pages of one run of a person's site, at most
MIN_BUDGET = 20  # fewer pages a run would not get past the home page
# Revisit intervals tried from the most eager: the first whose runs fit the allowance wins.
INTERVALS = tuple(timedelta(hours=h) for h in (1, 2, 3, 6, 12, 24))
TITLES_SHOWN = 5
LINKS_SHOWN = 5

KIND_WORDS = {
    "feed": gettext_lazy("a news feed (RSS or Atom): each item is an article to clip"),
    "sitemap": gettext_lazy("a sitemap: a list of the site's pages"),
    HUB: gettext_lazy("a page of links to articles (a home page or a section)"),
    INFORMATION: gettext_lazy("an article page"),
}


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


@dataclass
class Preview:
    """What the crawler found at a URL, and how it would crawl the site."""

    url: str
    final_url: str = ""
    error: str = ""  # why the site cannot be added ("" when it can)
    kind: str = ""  # "feed", "sitemap", HUB or INFORMATION
    title: str = ""
    titles: list[str] = field(default_factory=list)  # what a crawl would clip
    feeds: list[str] = field(default_factory=list)
    sitemaps: list[str] = field(default_factory=list)
    search_url: str = ""  # the site's keyword search, with its {query} slot
    needs_browser: bool = False
    robots: str = ""  # the robots.txt verdict in words
    robots_delay: float | None = None  # its Crawl-delay for us, in seconds
    existing_id: int | None = None  # the site already watching this origin
    existing_name: str = ""
    plan: CrawlPlan | None = None

    @property
    def kind_words(self) -> str:
        words = KIND_WORDS.get(self.kind)
        return str(words) if words is not None else self.kind or _("unknown")

    def to_dict(self) -> dict[str, Any]:
        """Return the preview as JSON-safe data (kept in the session until it is added)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Preview:
        values = dict(data)
        plan = values.pop("plan", None)
        return cls(**values, plan=CrawlPlan(**plan) if plan else None)


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


def normalized(url: str) -> str:
    """Return the URL as typed, with https:// when no scheme was given."""
    url = url.strip()
    if url and "://" not in url:
        url = f"https://{url}"
    return url


def candidate(user: Any, url: str) -> Site:
    """Return the unsaved site a person's URL would become (their rules, no private network)."""
    host = (urlsplit(url).hostname or "").lower()
    return Site(
        name=host[:200] or url[:200],
        root_url=url,
        added_by=user,
        allow_private_network=False,
        visibility=Site.Visibility.PRIVATE,
    )


def preview_site(user: Any, url: str) -> Preview:
    """Fetch and analyse `url` as the crawler would; say what a site of it would give."""
    url = normalized(url)
    preview = Preview(url=url, final_url=url)
    origin = url_origin(url)
    if origin is None:
        preview.error = _("This is not a web address (http:// or https://).")
        return preview
    if _mark_existing(preview, origin):
        return preview
    site = candidate(user, url)
    refused = check_url(url, SiteRules.of(site))
    if refused is not None:
        preview.error = _refusal_words(refused)
        return preview
    run_sync(_explore(site, preview, user_site_settings().preview_pages))
    if preview.error:
        return preview
    final_origin = url_origin(preview.final_url)
    if final_origin and final_origin != origin and _mark_existing(preview, final_origin):
        return preview
    try:
        preview.plan = plan_for(user, preview)
    except SiteRefused as exc:
        preview.error = str(exc)
    return preview


def _mark_existing(preview: Preview, origin: str) -> bool:
    found = Site.objects.at_origin(origin)
    if not found:
        return False
    preview.existing_id, preview.existing_name = found[0].id, found[0].name
    return True


async def _explore(site: Site, preview: Preview, samples: int) -> None:
    """Fill the preview from the page, its robots.txt and a few of its articles."""
    backend = FetchBackend(site)
    try:
        robots = await backend.fetcher.robots(preview.url, backend.rules)
        preview.robots = _robots_words(robots, preview.url)
        preview.robots_delay = robots.crawl_delay
        preview.sitemaps = list(robots.sitemaps)[:LINKS_SHOWN]
        fetched = await backend.fetch(preview.url)
        if fetched.error is not None or not fetched.succeeded:
            preview.error = _refusal_words(
                fetched.error
                or FetchError(
                    ErrorKind.HTTP,
                    _("the server answered %(status)s") % {"status": fetched.status},
                )
            )
            return
        preview.final_url = fetched.final_url
        extracted = extract(fetched, canonicalize)
        summary_kind = str(extracted.summary.get("kind", ""))
        preview.kind = summary_kind if summary_kind in ("feed", "sitemap") else extracted.kind or ""
        if not preview.kind:
            preview.error = _("Webclip cannot read this page (%(kind)s).") % {
                "kind": summary_kind or _("no content")
            }
            return
        preview.title = extracted.title or ""
        preview.feeds = list(dict.fromkeys(extracted.feeds))[:LINKS_SHOWN]
        preview.sitemaps = list(dict.fromkeys([*preview.sitemaps, *extracted.sitemaps]))[
            :LINKS_SHOWN
        ]
        if is_html(fetched):
            preview.needs_browser = looks_like_script_shell(fetched.body)
            preview.search_url = find_search_template(fetched.body, fetched.final_url) or ""
        titles = _clip_titles(extracted) if preview.kind == INFORMATION else []
        articles = [u for u in _article_links(extracted, fetched.final_url) if u != preview.url]
        results = await asyncio.gather(*(backend.fetch(u) for u in articles[:samples]))
        for result in results:
            if result.succeeded and is_html(result):
                titles.extend(_clip_titles(extract(result, canonicalize)))
        preview.titles = list(dict.fromkeys(t for t in titles if t))[:TITLES_SHOWN]
    finally:
        await backend.aclose()


def _clip_titles(extracted: Any) -> list[str]:
    """Return the titles of an article page's clippable areas (teasers are not clipped)."""
    analysis = extracted.analysis
    if analysis is None or extracted.kind != INFORMATION:
        return []
    titles = [a.title for a in analysis.informational_areas if not a.teaser and a.text.strip()]
    return [t.strip() for t in titles if t.strip()][:2] or [extracted.title or ""]


def _article_links(extracted: Any, base: str) -> list[str]:
    """Return the on-site links a crawl would take for articles: items, content, teasers.

    Links of navigational areas (menus, footers) lead to sections, not articles.
    """
    kinds = ("feed", "sitemap", HUB, INFORMATION)
    urls = [link.url for link in extracted.links if link.area_kind in kinds]
    analysis = extracted.analysis
    if analysis is not None:
        urls += [a.follow_url for a in analysis.informational_areas if a.teaser and a.follow_url]
    host = [(urlsplit(base).hostname or "").lower()]
    return [url for url in dict.fromkeys(urls) if url and same_site(url, host)]


def _robots_words(robots: RobotsRules, url: str) -> str:
    if robots.unreachable:
        return _("robots.txt could not be read (%(reason)s); crawls wait until it can.") % {
            "reason": robots.unreachable
        }
    if robots.parser is None:
        return _("No robots.txt: crawlers may visit every page.")
    if not robots.allows(url):
        return _("robots.txt asks crawlers to stay away from this page; Webclip obeys it.")
    delay = robots.crawl_delay
    if delay:
        return _("robots.txt allows this page, and asks for %(delay)s s between requests.") % {
            "delay": f"{delay:g}"
        }
    return _("robots.txt allows this page.")


def _refusal_words(error: FetchError) -> str:
    match error.kind:
        case ErrorKind.SSRF:
            return _("Webclip does not visit private or local network addresses.")
        case ErrorKind.ROBOTS:
            return _(
                "The site's robots.txt asks crawlers to stay away from this page; Webclip obeys it."
            )
        case ErrorKind.URL:
            return _("This address cannot be fetched: %(reason)s.") % {"reason": error.message}
        case ErrorKind.TIMEOUT | ErrorKind.CONNECTION | ErrorKind.BACKOFF:
            return _("The site could not be reached (%(reason)s). Try again later.") % {
                "reason": error.message
            }
        case ErrorKind.CONTENT_TYPE:
            return _("This address is not a web page, feed or sitemap.")
        case _:
            return _("The page could not be fetched (%(reason)s).") % {"reason": error}


def pages_allowance(user: Any, exclude_id: int | None = None) -> int:
    """Return the pages a day still free for a new private site of the person."""
    used = 0
    own = Site.objects.filter(added_by=user, visibility=Site.Visibility.PRIVATE).exclude(
        approval=Site.Approval.DENIED
    )
    for site in own.exclude(id=exclude_id).filter(enabled=True):
        used += daily_pages(site.page_budget, site.revisit_interval)
    return max(0, user_site_settings().pages_per_day - used)


def daily_pages(page_budget: int, revisit: timedelta) -> int:
    """Return the most pages a site fetches in a day: its budget times its runs a day."""
    runs = math.ceil(timedelta(days=1) / max(revisit, timedelta(minutes=1)))
    return page_budget * runs


def plan_for(user: Any, preview: Preview) -> CrawlPlan:
    """Pick crawl settings for the previewed site within the person's daily allowance."""
    allowance = pages_allowance(user)
    if preview.kind in ("feed", "sitemap"):
        wanted, depth = INTERVALS[0 if preview.kind == "feed" else 3], 1
    elif preview.kind == INFORMATION:
        wanted, depth = INTERVALS[3], 2
    else:
        wanted, depth = INTERVALS[1 if preview.feeds else 2], 3
    for revisit in [i for i in INTERVALS if i >= wanted]:
        budget = min(DEFAULT_BUDGET, allowance // daily_pages(1, revisit))
        if budget >= MIN_BUDGET:
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
        seed_urls=[u for u in preview.feeds if u != root],
        revisit_hours=revisit.total_seconds() / 3600,
        page_budget=budget,
        max_depth=depth,
        crawl_delay=delay,
        needs_browser=preview.needs_browser,
    )


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
    _check_quota(user)
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
        raise SiteRefused(_refusal_words(refused))
    try:
        with transaction.atomic():
            site.save()
            site.subscribers.add(user)
    except IntegrityError:  # someone added the same root URL a moment ago
        return _subscribe(user, Site.objects.get(root_url=plan.root_url))
    return Added(site=site, created=True)


def _check_quota(user: Any) -> None:
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


def _subscribe(user: Any, site: Site) -> Added:
    if site.subscribers.filter(id=user.pk).exists():
        return Added(site=site, created=False, already=True)
    if site.approval == Site.Approval.DENIED:
        raise SiteRefused(_("An admin declined %(name)s; it is not crawled.") % {"name": site.name})
    _check_quota(user)
    site.subscribers.add(user)
    return Added(site=site, created=False)


def unfollow_site(user: Any, site: Site) -> None:
    """End a person's subscription; a private site that nobody follows stops being crawled."""
    with transaction.atomic():
        site.subscribers.remove(user)
        if site.visibility == Site.Visibility.PRIVATE and not site.subscribers.exists():
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
        .order_by("name", "id")
    )
    rows = list(sites)
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


def describe(site: Site, run: CrawlRun | None, now: datetime) -> str:
    """Say a site's crawl status and last run in words a reader understands."""
    if site.approval == Site.Approval.PENDING:
        return _("Waiting for an admin to approve it; it is not crawled until then.")
    if site.approval == Site.Approval.DENIED:
        if site.review_note:
            return _("An admin declined it: %(note)s") % {"note": site.review_note}
        return _("An admin declined it.")
    if not site.enabled:
        return _("Paused: it is not crawled.")
    if run is None:
        return _("Not crawled yet; the first crawl starts within a few minutes.")
    ago = timesince(run.started_at, now).split(",")[0]
    if run.finished_at is None:
        return ngettext(
            "Being crawled now (started %(ago)s ago, %(count)s page so far).",
            "Being crawled now (started %(ago)s ago, %(count)s pages so far).",
            run.fetched,
        ) % {"ago": ago, "count": run.fetched}
    following = ""
    if site.next_crawl_at and site.next_crawl_at > now:
        when = timeuntil(site.next_crawl_at, now).split(",")[0]
        following = " " + _("Next crawl in %(when)s.") % {"when": when}
    if run.status == CrawlRun.Status.FAILED:
        reason = (run.error or _("an error")).strip().splitlines()[0][:200]
        failed = _("The last crawl, %(ago)s ago, failed: %(reason)s.")
        return failed % {"ago": ago, "reason": reason} + following
    stopped = ""
    if run.status == run.Status.INTERRUPTED:
        stopped = " " + _("It was stopped before the end.")
    counts = {
        "ago": ago,
        "pages": run.fetched,
        "new": run.new,
        "changed": run.changed,
        "errors": run.errors,
    }
    last = ngettext(
        "Last crawled %(ago)s ago: %(pages)s page fetched, %(new)s new, %(changed)s changed, "
        "%(errors)s errors.",
        "Last crawled %(ago)s ago: %(pages)s pages fetched, %(new)s new, %(changed)s changed, "
        "%(errors)s errors.",
        run.fetched,
    )
    return last % counts + stopped + following
