"""Hidden-web models: the LVS table, and what was searched on each form (`SiteSearch`)."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from crawler.models.sitesearch import SiteSearch

if TYPE_CHECKING:
    from crawler.fetch.result import FetchResult
    from crawler.models.runs import CrawlRun


class LabelValueSetQuerySet(models.QuerySet["LabelValueSet"]):
    def of_source(self, source: str) -> LabelValueSetQuerySet:
        return self.filter(source=source)


class LabelValueSet(models.Model):
    """One LVS row (HiWE): a label, its aliases, and a fuzzy set of values (`LabelValue`)."""

    class Source(models.TextChoices):
        ADMIN = "admin", "Admin"
        USERS = "users", "Users' keywords"
        LEARNED = "learned", "Learned from crawled forms"

    label = models.CharField(max_length=200)
    aliases = models.TextField(
        blank=True, help_text="Other labels that share these values, one per line."
    )
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.ADMIN)
    language = models.CharField(
        max_length=12, default="en", help_text="Language the labels are normalised in."
    )
    updated_at = models.DateTimeField(auto_now=True)

    objects = LabelValueSetQuerySet.as_manager()

    class Meta:
        ordering = ["label", "source"]
        verbose_name = "label value set"
        constraints = [
            models.UniqueConstraint(fields=["label", "source"], name="deepweb_lvs_label_source")
        ]

    def __str__(self) -> str:
        return f"{self.label} ({self.get_source_display()})"

    def alias_list(self) -> list[str]:
        return [line.strip() for line in self.aliases.splitlines() if line.strip()]


class LabelValue(models.Model):
    """One value of an LVS row with its weight in [0, 1] (the crawler's confidence in it)."""

    row = models.ForeignKey(LabelValueSet, on_delete=models.CASCADE, related_name="values")
    value = models.CharField(max_length=500)
    weight = models.FloatField(
        default=1.0, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)]
    )

    class Meta:
        ordering = ["-weight", "value"]
        constraints = [
            models.UniqueConstraint(fields=["row", "value"], name="deepweb_lvs_value_unique"),
            models.CheckConstraint(
                condition=Q(weight__gte=0.0) & Q(weight__lte=1.0), name="deepweb_lvs_weight_range"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.value} ({self.weight:g})"


class FormQuery(models.Model):
    """One value assignment tried on a form, so the next run tries the least recent first."""

    form = models.ForeignKey(SiteSearch, on_delete=models.CASCADE, related_name="queries")
    key_hash = models.CharField(max_length=64)
    assignment = models.JSONField(help_text="[[element name, value], ...]")
    keyword = models.CharField(max_length=500, blank=True)
    submissions = models.PositiveIntegerField(default=0)
    with_results = models.PositiveIntegerField(default=0)
    last_submitted_at = models.DateTimeField(null=True, blank=True)
    last_had_results = models.BooleanField(null=True)

    class Meta:
        ordering = ["form", "-last_submitted_at"]
        constraints = [
            models.UniqueConstraint(fields=["form", "key_hash"], name="deepweb_query_unique")
        ]
        verbose_name = "form query"
        verbose_name_plural = "form queries"

    def __str__(self) -> str:
        return self.keyword or str(self.assignment)

    @staticmethod
    def hash_key(key: str) -> str:
        """Return the hash stored for an assignment's key."""
        return hashlib.sha256(key.encode()).hexdigest()


class RunSearch(models.Model):
    """One text typed into one of a site's search forms by a run: pages walked, what it found."""

    site = models.ForeignKey("crawler.Site", on_delete=models.CASCADE, related_name="+")
    run = models.ForeignKey(
        "crawler.CrawlRun", on_delete=models.CASCADE, null=True, blank=True, related_name="searches"
    )
    form = models.ForeignKey(
        SiteSearch, on_delete=models.SET_NULL, null=True, blank=True, related_name="run_searches"
    )
    query = models.CharField(max_length=500, help_text="What was typed into the search box.")
    keyword = models.CharField(max_length=500, blank=True, help_text="The user's keyword.")
    variant = models.CharField(
        max_length=12, blank=True, help_text="typed, quoted, inflected or synonym."
    )
    had_results = models.BooleanField(default=False)
    pages = models.PositiveIntegerField(default=0, help_text="Result pages walked.")
    results = models.PositiveIntegerField(default=0, help_text="Result links new to this form.")
    new_articles = models.PositiveIntegerField(
        default=0, help_text="Result links the site's crawl had never fetched."
    )
    stopped = models.CharField(max_length=40, blank=True, help_text="Why the walk ended.")
    style = models.CharField(
        max_length=80, blank=True, help_text="What the site's search was found to do."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "id"]
        verbose_name = "search made by a run"
        verbose_name_plural = "searches made by runs"

    def __str__(self) -> str:
        return self.query


class RunRenderQuerySet(models.QuerySet["RunRender"]):
    def note(self, run: CrawlRun, url: str, result: FetchResult) -> RunRender:
        """Record a page the run rendered, from the notes rendering left on its result."""
        notes = result.render_notes
        return self.create(
            site_id=run.site_id,
            run=run,
            url=url[:2083],
            reason=str(notes.get("reason", ""))[:60],
            requests=len(result.requests),
            document_requests=int(notes.get("document_requests", 0)),
            expanded=int(notes.get("expanded", 0)),
            api_links=int(notes.get("api_links", 0)),
            seconds=round(result.elapsed, 3),
        )


class RunRender(models.Model):
    """One page a run rendered in Chromium, and why it needed the browser."""

    site = models.ForeignKey("crawler.Site", on_delete=models.CASCADE, related_name="+")
    run = models.ForeignKey(
        "crawler.CrawlRun", on_delete=models.CASCADE, null=True, blank=True, related_name="renders"
    )
    url = models.CharField(max_length=2083)
    reason = models.CharField(max_length=60, help_text="Why the page was rendered.")
    requests = models.PositiveIntegerField(default=0, help_text="Requests the page made.")
    document_requests = models.PositiveIntegerField(
        default=0, help_text="Requests for the page itself (0: served from the fetch)."
    )
    expanded = models.PositiveIntegerField(
        default=0, help_text='"Load more" clicks and scrolls that brought new items.'
    )
    api_links = models.PositiveIntegerField(
        default=0, help_text="Links read from JSON the page loaded."
    )
    seconds = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = RunRenderQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "id"]
        verbose_name = "page rendered by a run"
        verbose_name_plural = "pages rendered by runs"

    def __str__(self) -> str:
        return self.url
