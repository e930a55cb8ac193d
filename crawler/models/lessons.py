"""What a site's own pages taught the crawler, kept for every later run and watch of it.

- an irrelevant query parameter: a page reached with it names the URL without it in
  rel=canonical (`?ref=search-1-3`), so the parameter is dropped from the site's URLs before
  fetching, in stored links and in every link a person receives;
- a closed URL shape: a family of generated trap pages (an endless calendar) or of copies
  (print views), never fetched again;
- a rendered shape: pages whose scripts add links the served HTML lacks, rendered in
  Chromium from then on.

An admin sees each lesson with the run that learnt it and the example that proved it, and
can reopen it (`reopened_at`): a reopened lesson is ignored by later runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import suppress

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from crawler.canonical import BadURL, canonicalize


class SiteLessonQuerySet(models.QuerySet["SiteLesson"]):
    def active(self) -> SiteLessonQuerySet:
        return self.filter(reopened_at__isnull=True)

    def keys(self, site_id: int, kind: str) -> frozenset[str]:
        """Return the keys of a site's active lessons of one kind."""
        return frozenset(
            self.active().filter(site_id=site_id, kind=kind).values_list("key", flat=True)
        )

    def learn(
        self, site_id: int, kind: str, lessons: Iterable[tuple[str, str]], *, run_id: int | None
    ) -> int:
        """Record (key, example) lessons of one kind not known yet; return how many were new.

        A lesson an admin reopened is not learnt again by a run: the admin's word stands.
        """
        wanted = {key[:300]: example[:2083] for key, example in lessons if key}
        if not wanted:
            return 0
        known = set(
            self.filter(site_id=site_id, kind=kind, key__in=list(wanted)).values_list(
                "key", flat=True
            )
        )
        rows = [
            SiteLesson(site_id=site_id, kind=kind, key=key, example=example, run_id=run_id)
            for key, example in wanted.items()
            if key not in known
        ]
        self.bulk_create(rows, ignore_conflicts=True)
        return len(rows)


class SiteLesson(models.Model):
    """One thing learnt about a site: an irrelevant parameter, a closed or a rendered shape."""

    class Kind(models.TextChoices):
        PARAMETER = "parameter", _("Irrelevant query parameter")
        TRAP = "trap", _("Trap URL shape (closed)")
        COPY = "copy", _("Copy URL shape (closed)")
        RENDER = "render", _("URL shape rendered in a browser")

    site = models.ForeignKey("crawler.Site", on_delete=models.CASCADE, related_name="lessons")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    key = models.CharField(
        max_length=300, help_text="The parameter's name, or the URL shape (/events/?date=*)."
    )
    example = models.CharField(
        max_length=2083, blank=True, help_text="A URL that proved it (and why, for renders)."
    )
    run = models.ForeignKey(
        "crawler.CrawlRun", on_delete=models.SET_NULL, null=True, blank=True, related_name="lessons"
    )
    learnt_at = models.DateTimeField(default=timezone.now)
    reopened_at = models.DateTimeField(
        null=True, blank=True, help_text="Set when an admin reopened it: later runs ignore it."
    )

    objects = SiteLessonQuerySet.as_manager()

    class Meta:
        ordering = ["site", "kind", "key"]
        verbose_name = "lesson learnt about a site"
        constraints = [
            models.UniqueConstraint(
                fields=["site", "kind", "key"], name="crawler_one_lesson_per_key"
            ),
        ]
        indexes = [
            models.Index(
                fields=["site", "kind"],
                condition=Q(reopened_at__isnull=True),
                name="crawler_active_lessons",
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.key}"


def link_for_people(url: str, site_id: int | None = None) -> str:
    """Return the address of a page as a person receives it: without tracking and session
    parameters (`crawler.canonical.canonicalize`) nor the parameters the site's pages showed
    to change nothing. The one spelling every clip, mail, feed and API answer carries: the
    clip keeps it (`Clip.url`). A URL that cannot be canonicalised is returned as it is.
    """
    irrelevant = (
        SiteLesson.objects.keys(site_id, SiteLesson.Kind.PARAMETER) if site_id else frozenset()
    )
    with suppress(BadURL):
        return canonicalize(url, irrelevant)
    return url
