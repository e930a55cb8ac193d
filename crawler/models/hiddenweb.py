"""Hidden-web models: the LVS table, and what was searched on each form (`SiteSearch`)."""

from __future__ import annotations

import hashlib

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from crawler.models.sitesearch import SiteSearch


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

    def __str__(self) -> str:
        return self.keyword or str(self.assignment)

    @staticmethod
    def hash_key(key: str) -> str:
        """Return the hash stored for an assignment's key."""
        return hashlib.sha256(key.encode()).hexdigest()
