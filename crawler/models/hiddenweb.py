"""Hidden-web models: the LVS table, the search forms found on sites, and what was searched."""

from __future__ import annotations

import hashlib

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q


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


class SearchFormQuerySet(models.QuerySet["SearchForm"]):
    def searchable(self) -> SearchFormQuerySet:
        """Forms the crawler submits: safe, and every text box matched an LVS label."""
        return self.filter(status=SearchForm.Status.SEARCH)


class SearchForm(models.Model):
    """A form found on a monitored site, whether the crawler may submit it, and how it went."""

    class Status(models.TextChoices):
        SEARCH = "search", "Searched"
        REFUSED = "refused", "Refused (changes state)"
        UNMATCHED = "unmatched", "Not filled (no LVS match)"

    site = models.ForeignKey("crawler.Site", on_delete=models.CASCADE, related_name="forms")
    fingerprint = models.CharField(max_length=64, help_text="Hash of action, method and fields.")
    page_url = models.CharField(max_length=2083)
    action = models.CharField(max_length=2083)
    method = models.CharField(max_length=4)
    status = models.CharField(max_length=10, choices=Status.choices)
    reason = models.CharField(max_length=300, blank=True)
    template = models.CharField(
        max_length=4000, blank=True, help_text="URL template with {query} (GET search forms)."
    )
    query_arg = models.CharField(
        max_length=200, blank=True, help_text="The keyword-query argument."
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

    objects = SearchFormQuerySet.as_manager()

    class Meta:
        ordering = ["site", "page_url", "id"]
        constraints = [
            models.UniqueConstraint(fields=["site", "fingerprint"], name="deepweb_form_unique")
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.action} ({self.get_status_display()})"

    @property
    def efficiency(self) -> float | None:
        """Return the share of submissions that returned results (HiWE), None before any."""
        return self.with_results / self.submissions if self.submissions else None


class FormQuery(models.Model):
    """One value assignment tried on a form, so the next run tries the least recent first."""

    form = models.ForeignKey(SearchForm, on_delete=models.CASCADE, related_name="queries")
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

    def __str__(self) -> str:
        return self.keyword or str(self.assignment)

    @staticmethod
    def hash_key(key: str) -> str:
        """Return the hash stored for an assignment's key."""
        return hashlib.sha256(key.encode()).hexdigest()
