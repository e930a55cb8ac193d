"""Monitored sites: what to crawl, how often and how politely."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q, Sum
from django.db.models.functions import Coalesce
from django.urls import reverse

from crawler.canonical import same_site
from crawler.conf import user_site_settings
from crawler.models.origins import SiteOrigin

# An allowed-hosts line: a name or IPv4 address ("*." or "." covers subdomains), or an IPv6
# address in brackets; either with an optional port.
_HOST_ENTRY = re.compile(
    r"(?:\*?\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?(?::\d{1,5})?|\[[0-9A-Fa-f:.]+\](?::\d{1,5})?"
)


def _validate_http_url(value: str) -> None:
    parts = urlsplit(value)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise ValidationError(f"{value!r} is not an http:// or https:// URL.")


def _lines(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


class SiteQuerySet(models.QuerySet["Site"]):
    def enabled(self) -> SiteQuerySet:
        return self.filter(enabled=True)

    def approved(self) -> SiteQuerySet:
        return self.filter(approval=Site.Approval.APPROVED)

    def due(self, now: datetime) -> SiteQuerySet:
        """Enabled, approved sites whose next crawl time has come, their adder under quota."""
        return (
            self.enabled()
            .approved()
            .filter(Q(next_crawl_at__isnull=True) | Q(next_crawl_at__lte=now))
            .within_daily_pages(now)
        )

    def watch_due(self, now: datetime) -> SiteQuerySet:
        """Enabled, approved sites one of whose feeds, sitemaps or hubs is due for a look."""
        return self.enabled().approved().filter(next_watch_at__lte=now).within_daily_pages(now)

    def within_daily_pages(self, now: datetime) -> SiteQuerySet:
        """Drop people's private sites whose adder fetched a day's page allowance already.

        The pages of every run started in the last 24 hours on the sites a person added count;
        shared sites (the admins' pool) never do.
        """
        from crawler.models.runs import CrawlRun

        spent = (
            CrawlRun.objects.filter(
                site__added_by=models.OuterRef("added_by"),
                site__visibility=Site.Visibility.PRIVATE,
                started_at__gte=now - timedelta(days=1),
            )
            .values("site__added_by")
            .annotate(total=Sum("fetched"))
            .values("total")
        )
        quota = user_site_settings().pages_per_day
        return self.annotate(adder_pages_today=Coalesce(models.Subquery(spent[:1]), 0)).filter(
            Q(visibility=Site.Visibility.SHARED)
            | Q(added_by__isnull=True)
            | Q(adder_pages_today__lt=quota)
        )

    def shared(self) -> SiteQuerySet:
        """The admins' pool: every person's lists are matched against these sites."""
        return self.filter(visibility=Site.Visibility.SHARED)

    def followed_by(self, user: object) -> SiteQuerySet:
        """The sites a person added or subscribed to: their Sites page."""
        return self.filter(subscribers=user)

    def visible_to(self, user: object) -> SiteQuerySet:
        """The sites whose clips may reach a person: the shared pool and their own."""
        return self.filter(Q(visibility=Site.Visibility.SHARED) | Q(subscribers=user)).distinct()

    def at_origin(self, origin: str) -> list[Site]:
        """Return the sites that crawl `origin` (scheme://host[:port]), shared ones first.

        Read from the sites' origin rows (`SiteOrigin`), by index.
        """
        from crawler.fetch.policy import url_origin

        origin = url_origin(f"{origin}/") or origin
        found = self.filter(claims__origin=origin).distinct().order_by("id")
        return sorted(found, key=lambda site: site.visibility != Site.Visibility.SHARED)

    def audience(self, site_id: int | None) -> frozenset[int] | None:
        """Return the ids of the people a site's clips may reach; None means everyone."""
        if site_id is None:
            return None
        visibility = self.filter(id=site_id).values_list("visibility", flat=True).first()
        if visibility != Site.Visibility.PRIVATE:
            return None
        through = Site.subscribers.through.objects.filter(site_id=site_id)
        return frozenset(through.values_list("user_id", flat=True))


class Site(models.Model):
    class Strategy(models.TextChoices):
        BFS = "bfs", "Breadth-first"
        XCRAWL = "xcrawl", "xCrawl (focused: hubs and authorities)"

    class Visibility(models.TextChoices):
        SHARED = "shared", "Shared: matched against every person's lists"
        PRIVATE = "private", "Private: its subscribers' lists only"

    class Approval(models.TextChoices):
        APPROVED = "approved", "Approved"
        PENDING = "pending", "Waiting for an admin"
        DENIED = "denied", "Denied"

    name = models.CharField(max_length=200)
    root_url = models.URLField(max_length=2083, unique=True, validators=[_validate_http_url])
    seed_urls = models.TextField(
        blank=True, help_text="Extra start URLs, one per line (the root URL is always a seed)."
    )
    allowed_hosts = models.TextField(
        blank=True,
        help_text="Host names the crawler may visit, one per line. Empty: the root URL's host only.",
    )
    exclude_patterns = models.TextField(
        blank=True, help_text="Regular expressions, one per line; matching URLs are never fetched."
    )
    strategy = models.CharField(max_length=10, choices=Strategy.choices, default=Strategy.BFS)
    revisit_interval = models.DurationField(
        default=timedelta(hours=1), help_text="How often a crawl run starts (HH:MM:SS)."
    )
    min_page_revisit = models.DurationField(
        default=timedelta(minutes=10), help_text="Shortest revisit interval of one page."
    )
    max_page_revisit = models.DurationField(
        default=timedelta(days=7), help_text="Longest revisit interval of one page."
    )
    feed_poll_interval = models.DurationField(
        default=timedelta(minutes=2),
        help_text="How often the site's feeds and sitemaps are asked for news, with "
        "conditional requests (HH:MM:SS).",
    )
    min_hub_revisit = models.DurationField(
        default=timedelta(minutes=5),
        help_text="Shortest revisit interval of a hub page (home page, sections); hubs that "
        "gain new links on most visits come back this often, quiet ones less often.",
    )
    page_budget = models.PositiveIntegerField(
        default=500, help_text="Most pages fetched in one run."
    )
    max_depth = models.PositiveSmallIntegerField(
        default=8, help_text="Most links followed from a seed."
    )
    crawl_delay = models.FloatField(
        default=1.0, help_text="Seconds between requests to one host (robots.txt may ask more)."
    )
    needs_browser = models.BooleanField(
        default=False, help_text="Render every page in Chromium (JavaScript sites)."
    )
    obey_robots = models.BooleanField("obey robots.txt", default=True)
    allow_private_network = models.BooleanField(
        default=False,
        help_text="Allow loopback and private addresses (only for sites on your own network).",
    )
    enabled = models.BooleanField(default=True)
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="sites_added",
        help_text="The person who added the site on their Sites page (empty: an admin).",
    )
    subscribers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="followed_sites",
        help_text="People who follow the site; a private site's clips reach only them.",
    )
    visibility = models.CharField(
        max_length=10,
        choices=Visibility.choices,
        default=Visibility.SHARED,
        help_text="Shared sites are the pool every person's lists are matched against.",
    )
    approval = models.CharField(
        max_length=10,
        choices=Approval.choices,
        default=Approval.APPROVED,
        help_text="Only approved sites are crawled.",
    )
    review_note = models.CharField(
        max_length=300, blank=True, help_text="Why the site was denied, shown to its subscribers."
    )
    next_crawl_at = models.DateTimeField(null=True, blank=True, db_index=True)
    next_watch_at = models.DateTimeField(
        null=True,
        blank=True,
        db_index=True,
        help_text="When the site's next feed, sitemap or hub falls due (a short watch run).",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = SiteQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        super().save(*args, **kwargs)
        SiteOrigin.sync(self)

    def get_absolute_url(self) -> str:
        return reverse("admin:crawler_site_change", args=[self.pk])

    def clean(self) -> None:
        super().clean()
        errors: dict[str, list[str]] = {}
        # A root URL that is not http(s) already has its error from the field's validator.
        if self.root_url and urlsplit(self.root_url).scheme in {"http", "https"}:
            refused = self.url_refusal(self.root_url)
            if refused:
                errors.setdefault("root_url", []).append(refused)
        hosts = set(self.host_list())
        for url in _lines(self.seed_urls):
            try:
                _validate_http_url(url)
            except ValidationError as exc:
                errors.setdefault("seed_urls", []).extend(exc.messages)
                continue
            if hosts and not same_site(url, hosts):
                errors.setdefault("seed_urls", []).append(f"{url} is not on an allowed host.")
            refused = self.url_refusal(url)
            if refused:
                errors.setdefault("seed_urls", []).append(refused)
        for host in _lines(self.allowed_hosts):
            # The forms crawler.canonical.same_site reads: name or address, "*." or "." for
            # subdomains, an optional port.
            if not _HOST_ENTRY.fullmatch(host):
                errors.setdefault("allowed_hosts", []).append(f"{host!r} is not a host name.")
        for pattern in _lines(self.exclude_patterns):
            try:
                re.compile(pattern)
            except re.error as exc:
                errors.setdefault("exclude_patterns", []).append(f"{pattern!r}: {exc}")
        if (
            self.min_page_revisit
            and self.max_page_revisit
            and self.min_page_revisit > self.max_page_revisit
        ):
            errors.setdefault("max_page_revisit", []).append(
                "Must not be shorter than the minimum."
            )
        if errors:
            raise ValidationError(errors)

    def url_refusal(self, url: str) -> str | None:
        """Return why the crawler would refuse to fetch `url` for this site, or None."""
        from crawler.fetch import ErrorKind, SiteRules, check_url

        error = check_url(url, SiteRules.of(self))
        if error is None:
            return None
        message = f"The crawler refuses {url}: {error.message}."
        if error.kind == ErrorKind.SSRF and not self.allow_private_network:
            flagged = replace(SiteRules.of(self), allow_private_network=True)
            if check_url(url, flagged) is None:
                message += " Tick “Allow private network” if this site is on your own network."
        return message

    def seeds(self) -> list[str]:
        return [self.root_url, *(u for u in _lines(self.seed_urls) if u != self.root_url)]

    def host_list(self) -> list[str]:
        hosts = [h.lower() for h in _lines(self.allowed_hosts)]
        root_host = (urlsplit(self.root_url).hostname or "").lower()
        return hosts or ([root_host] if root_host else [])

    def exclude_list(self) -> list[str]:
        return _lines(self.exclude_patterns)

    def origins(self) -> set[str]:
        """Return the origins this site claims: root URL, seeds, allowed hosts on its scheme.

        A person's site claims its root URL's origin alone: the feeds and pages it names on
        other origins are no claim on them.
        """
        from crawler.fetch.policy import site_origins, url_origin

        if self.added_by_id is not None:
            return {o for o in [url_origin(self.root_url)] if o}
        origins = set(site_origins(self))
        scheme = urlsplit(self.root_url).scheme
        for entry in _lines(self.allowed_hosts):
            if not entry.startswith(("*", ".")):
                origin = url_origin(f"{scheme}://{entry}/")
                if origin:
                    origins.add(origin)
        return origins

    @property
    def allowed_networks(self) -> tuple[str, ...]:
        """Return the private networks a person's own site may reach (an operator setting).

        Read by `crawler.fetch.SiteRules.of`; admins' sites use allow_private_network instead.
        """
        if self.added_by_id is None:
            return ()
        return user_site_settings().networks()
