"""Monitored sites: what to crawl, how often and how politely."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.urls import reverse

from crawler.canonical import same_site

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

    def due(self, now: datetime) -> SiteQuerySet:
        """Enabled sites whose next crawl time has come."""
        return self.enabled().filter(Q(next_crawl_at__isnull=True) | Q(next_crawl_at__lte=now))


class Site(models.Model):
    class Strategy(models.TextChoices):
        BFS = "bfs", "Breadth-first"
        XCRAWL = "xcrawl", "xCrawl (focused: hubs and authorities)"

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
    next_crawl_at = models.DateTimeField(null=True, blank=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = SiteQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

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
