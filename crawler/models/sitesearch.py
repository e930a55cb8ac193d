"""A site's search: each form found on its pages, or the URL template an admin gave, one row.

xCrawl searches the site through a row's URL template; hidden-web crawling records every form
it finds (searchable, refused or unmatched), submits the searchable ones and counts how it went.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Case, Q, Value, When

from crawler.models.site import _validate_http_url
from crawler.sitesearch.analysis import Form, FormParseError
from crawler.sitesearch.detect import search_forms
from crawler.sitesearch.template import (
    QUERY,
    URLENCODED,
    SearchTemplate,
    is_search_url,
    looks_like_search,
    parse_template,
)

if TYPE_CHECKING:
    from crawler.models.site import Site


class SiteSearchQuerySet(models.QuerySet["SiteSearch"]):
    def searchable(self) -> SiteSearchQuerySet:
        """Searches the crawler submits: safe, and the keywords have a box to go in."""
        return self.filter(status=SiteSearch.Status.SEARCH)

    def url_templates(self) -> SiteSearchQuerySet:
        """Searches with a GET URL template, an admin's first, then the most recently seen."""
        by_admin = Case(When(source=SiteSearch.Source.ADMIN, then=Value(0)), default=Value(1))
        return (
            self.searchable()
            .filter(method="GET", url_template__contains=QUERY)
            .order_by(by_admin, "-last_seen_at", "-id")
        )

    def record_form(
        self,
        site: Site,
        form: Form,
        *,
        status: str,
        reason: str = "",
        template: SearchTemplate | None = None,
        query_arg: str = "",
        uses_browser: bool = False,
    ) -> tuple[SiteSearch, bool]:
        """Upsert the row of a form found on `site`; return it and whether it was new."""
        defaults = {
            "source": SiteSearch.Source.FOUND,
            "page_url": form.page_url[:2083],
            "action": form.action[:2083],
            "method": form.method,
            "enctype": form.enctype[:100],
            "status": status,
            "reason": reason[:300],
            "url_template": (template.url if template and template.method == "GET" else "")[:4000],
            "query_arg": (template.query_arg if template else query_arg)[:200],
            "fields": [list(pair) for pair in template.fields] if template else [],
            "labels": {e.name: e.label for e in form.elements},
            "uses_browser": uses_browser,
        }
        return self.update_or_create(site=site, fingerprint=form.fingerprint, defaults=defaults)

    def find_template(self, site: Site, html: str | bytes, url: str) -> str | None:
        """Return the URL template of the page's first GET keyword search, kept as a row of `site`.

        A form already on record keeps its row as it is: hidden-web crawling may have judged it.
        """
        try:
            found = search_forms(html, url)
        except FormParseError:
            return None
        for form, template in found:
            if template.method != "GET":
                continue
            if not self.filter(site=site, fingerprint=form.fingerprint).exists():
                self.record_form(site, form, status=SiteSearch.Status.SEARCH, template=template)
            return template.url
        return None


class SiteSearch(models.Model):
    """One of a site's search forms: where it goes, its URL template, and how searching it went."""

    class Source(models.TextChoices):
        FOUND = "found", "Found on the site"
        ADMIN = "admin", "Set by an admin"

    class Status(models.TextChoices):
        SEARCH = "search", "Searched"
        REFUSED = "refused", "Refused (changes state)"
        UNMATCHED = "unmatched", "Not filled (no LVS match)"

    site = models.ForeignKey("crawler.Site", on_delete=models.CASCADE, related_name="searches")
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.FOUND)
    fingerprint = models.CharField(
        max_length=64, help_text="Hash of action, method and fields (of the URL template if given)."
    )
    page_url = models.CharField(max_length=2083, blank=True, help_text="Where the form was found.")
    action = models.CharField(max_length=2083)
    method = models.CharField(max_length=4, default="GET")
    enctype = models.CharField(max_length=100, default=URLENCODED)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SEARCH)
    reason = models.CharField(max_length=300, blank=True)
    url_template = models.CharField(
        max_length=4000, blank=True, help_text="Search URL with {query} where the keywords go."
    )
    query_arg = models.CharField(
        max_length=200, blank=True, help_text="The keyword-query argument."
    )
    fields = models.JSONField(
        default=list, blank=True, help_text="[[name, value], ...] sent; {query} marks the keywords."
    )
    labels = models.JSONField(default=dict, blank=True, help_text="Element name -> label.")
    uses_browser = models.BooleanField(default=False)
    empty_signatures = models.JSONField(
        default=list, blank=True, help_text='Signatures of the "no results" pages probes got.'
    )
    probed_at = models.DateTimeField(null=True, blank=True)
    submissions = models.PositiveIntegerField(default=0)
    with_results = models.PositiveIntegerField(
        default=0, help_text="Submissions whose answer was not a 'no results' page."
    )
    first_seen_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(auto_now=True)
    last_submitted_at = models.DateTimeField(null=True, blank=True)

    objects = SiteSearchQuerySet.as_manager()

    class Meta:
        ordering = ["site", "page_url", "id"]
        verbose_name = "site search"
        verbose_name_plural = "site searches"
        constraints = [
            models.UniqueConstraint(fields=["site", "fingerprint"], name="sitesearch_unique"),
            models.UniqueConstraint(
                fields=["site"], condition=Q(source="admin"), name="sitesearch_one_admin_template"
            ),
        ]

    def __str__(self) -> str:
        if self.source == self.Source.ADMIN:
            return self.url_template
        return f"{self.method} {self.action} ({self.get_status_display()})"

    def save(self, *args, **kwargs) -> None:
        if self.source == self.Source.ADMIN:
            self._describe_template()
        super().save(*args, **kwargs)

    def clean_fields(self, exclude=None) -> None:
        if self.source == self.Source.ADMIN:
            self._describe_template()  # an admin types the template; the rest follows from it
        super().clean_fields(exclude)

    def clean(self) -> None:
        super().clean()
        if self.source == self.Source.ADMIN:
            if QUERY not in self.url_template:
                raise ValidationError({"url_template": f"The template needs a {QUERY} slot."})
            _validate_http_url(self.url_template.replace(QUERY, "q"))

    def _describe_template(self) -> None:
        """Fill an admin's row from its URL template: a GET search, named by its template."""
        parts = parse_template(self.url_template)
        self.action = parts.action[:2083]
        self.method = "GET"
        self.enctype = URLENCODED
        self.query_arg = parts.query_arg[:200]
        self.fields = [list(pair) for pair in parts.fields]
        self.status = self.Status.SEARCH
        self.fingerprint = template_fingerprint(self.url_template)

    @property
    def efficiency(self) -> float | None:
        """Return the share of submissions that returned results (HiWE), None before any."""
        return self.with_results / self.submissions if self.submissions else None


def template_fingerprint(url_template: str) -> str:
    """Return the fingerprint of a search known only by its URL template."""
    return hashlib.sha256(json.dumps(["GET", url_template]).encode()).hexdigest()


def is_search_result(site_id: int | None, url: str) -> bool:
    """Tell whether `url` is a search result page, a hub of results whatever text it shows.

    1. Its shape says so (a /search segment, a ?q= argument...).
    2. It asks one of the site's known searches something: a query string on the endpoint
       (host and path) of the search's URL template or form action.
    """
    if looks_like_search(url):
        return True
    if site_id is None or "?" not in url:
        return False
    rows = SiteSearch.objects.filter(site_id=site_id).values_list("url_template", "action")
    return any(
        (template and is_search_url(url, template)) or (action and is_search_url(url, action))
        for template, action in rows
    )
