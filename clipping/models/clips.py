"""Clips cut from analysed pages, the matches that tie them to lists, and what pages already said."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

# Digests of sentences remembered per page; a page whose sidebar rotates forever must not
# grow its row without bound, so the oldest are forgotten first.
SEEN_TEXT_CAP = 5000
_DIGEST_BYTES = 8


class ClipQuerySet(models.QuerySet["Clip"]):
    def for_owner(self, user: object, keyword_list: object | None = None) -> ClipQuerySet:
        """Clips that matched one of the user's lists (or the one list given)."""
        matches = Match.objects.filter(clip=OuterRef("pk"), owner=user)
        if keyword_list is not None:
            matches = matches.filter(keyword_list=keyword_list)
        return self.filter(Exists(matches))

    def newest_first(self) -> ClipQuerySet:
        return self.order_by("-seen_at", "-id")


class Clip(models.Model):
    """One informational area of one page version that matched at least one list."""

    site = models.ForeignKey(
        "crawler.Site", on_delete=models.SET_NULL, null=True, blank=True, related_name="clips"
    )
    page = models.ForeignKey(
        "crawler.Page", on_delete=models.SET_NULL, null=True, blank=True, related_name="clips"
    )
    page_version = models.ForeignKey(
        "crawler.PageVersion",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="clips",
    )
    area_path = models.CharField(max_length=500)
    url = models.CharField(max_length=2083)
    host = models.CharField(max_length=255, blank=True)
    title = models.CharField(max_length=300)
    summary = models.TextField(
        help_text="The sentence before, the one with the term, the one after."
    )
    spans = models.JSONField(
        default=list, blank=True, help_text="[start, end, term] in the summary."
    )
    language = models.CharField(max_length=8, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)
    seen_at = models.DateTimeField(default=timezone.now)
    fingerprint = models.BinaryField(
        null=True, blank=True, editable=False, help_text="MinHash signature of the area text."
    )
    duplicate_of = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="duplicates",
        help_text="The first clip of the same story, seen elsewhere.",
    )

    objects = ClipQuerySet.as_manager()

    class Meta:
        ordering = ["-seen_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["page_version", "area_path"], name="clipping_one_clip_per_area"
            )
        ]
        indexes = [models.Index(fields=["-seen_at", "-id"], name="clipping_clip_newest")]

    def __str__(self) -> str:
        return self.title

    @property
    def story_id(self) -> int:
        """Return the id of the first clip of this story (this clip's own for an original)."""
        return self.duplicate_of_id or self.pk

    @property
    def shown_at(self) -> datetime:
        return self.published_at or self.seen_at


class ClipBand(models.Model):
    """One LSH band of a clip's MinHash: clips sharing a band are near-duplicate candidates."""

    clip = models.ForeignKey(Clip, on_delete=models.CASCADE, related_name="bands")
    band = models.PositiveSmallIntegerField()
    value = models.BigIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["clip", "band"], name="clipping_one_value_per_band")
        ]
        indexes = [models.Index(fields=["band", "value"], name="clipping_band_lookup")]

    def __str__(self) -> str:
        return f"{self.clip_id} band {self.band}"


class SeenText(models.Model):
    """Digests of the sentences a page has shown so far: unchanged text never notifies twice."""

    page = models.OneToOneField(
        "crawler.Page", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    version_id = models.BigIntegerField(default=0, help_text="Newest PageVersion ingested.")
    checked_id = models.BigIntegerField(
        default=0, help_text="Newest PageVersion looked at: ingested, or skipped with a reason."
    )
    digests = models.BinaryField(default=b"", editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Text seen on page {self.page_id}"

    def digest_set(self) -> set[bytes]:
        data = bytes(self.digests or b"")
        return {data[i : i + _DIGEST_BYTES] for i in range(0, len(data), _DIGEST_BYTES)}

    def remember(self, digests: list[bytes]) -> None:
        """Append digests not yet known, forgetting the oldest beyond SEEN_TEXT_CAP."""
        known = self.digest_set()
        fresh = [digest for digest in dict.fromkeys(digests) if digest not in known]
        data = bytes(self.digests or b"") + b"".join(fresh)
        self.digests = data[-SEEN_TEXT_CAP * _DIGEST_BYTES :]


class MatchQuerySet(models.QuerySet["Match"]):
    def owned_by(self, user: object) -> MatchQuerySet:
        return self.filter(owner=user)

    def undelivered(self) -> MatchQuerySet:
        """Matches whose mail is still to be sent (neither sent, skipped nor failed)."""
        return self.filter(mail_status=Match.MailStatus.PENDING)

    def claimable(self, now: datetime, lease: timedelta) -> MatchQuerySet:
        """Undelivered matches nobody holds, or whose holder's lease ran out."""
        return self.undelivered().filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - lease))

    def unread(self) -> MatchQuerySet:
        return self.filter(read_at__isnull=True)


class Match(models.Model):
    """A clip found for one keyword list: shown on the owner's page and mailed once."""

    class MailStatus(models.TextChoices):
        PENDING = "pending", "Waiting to be mailed"
        SENT = "sent", "Mailed"
        SKIPPED = "skipped", "Not mailed"
        FAILED = "failed", "Mail failed for good"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="matches"
    )
    keyword_list = models.ForeignKey(
        "clipping.KeywordList", on_delete=models.CASCADE, related_name="matches"
    )
    clip = models.ForeignKey(Clip, on_delete=models.CASCADE, related_name="matches")
    story = models.ForeignKey(
        Clip,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="The first clip of the story; a list gets each story once.",
    )
    summary = models.TextField(help_text="The summary around this list's term.")
    spans = models.JSONField(default=list, blank=True, help_text="[start, end, term] in summary.")
    reasons = models.JSONField(
        default=list,
        blank=True,
        help_text="Why it matched: per term, the form found (exact, inflection or synonym with "
        "its sense) and the sentence (clipping.matching.why).",
    )
    created_at = models.DateTimeField(default=timezone.now)
    found_at = models.DateTimeField(
        default=timezone.now,
        help_text="When the list found the clip; a backfill's, when the page was published. "
        "The personal page, feed and digests list clips newest first by it.",
    )
    mail_status = models.CharField(
        max_length=10, choices=MailStatus.choices, default=MailStatus.PENDING
    )
    mail_note = models.CharField(max_length=300, blank=True, help_text="Why it was not mailed.")
    claimed_at = models.DateTimeField(
        null=True, blank=True, help_text="A worker is sending it since."
    )
    deferred_until = models.DateTimeField(
        null=True, blank=True, help_text="Over the hourly limit: goes in the hourly digest."
    )
    delivered_at = models.DateTimeField(null=True, blank=True)
    delivery = models.ForeignKey(
        "clipping.Delivery",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="delivered_matches",
    )
    digest = models.ForeignKey(
        "clipping.Digest", on_delete=models.SET_NULL, null=True, blank=True, related_name="matches"
    )
    read_at = models.DateTimeField(null=True, blank=True)
    old = models.BooleanField(
        default=False,
        help_text="Published before the owner's news window when found: shown on My clips and "
        "in a new list's summary, never notified.",
    )

    objects = MatchQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "matches"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["keyword_list", "story"], name="clipping_one_match_per_list_story"
            )
        ]
        indexes = [
            models.Index(fields=["owner", "-created_at"], name="clipping_match_owner_newest"),
            models.Index(fields=["owner", "-found_at"], name="clipping_match_owner_found"),
            models.Index(
                fields=["owner", "created_at"],
                condition=Q(mail_status="pending"),
                name="clipping_match_pending",
            ),
            # "Is this clip mine / in this list?": probed per clip by the personal page and feed.
            models.Index(fields=["owner", "clip"], name="clipping_match_owner_clip"),
            models.Index(fields=["keyword_list", "clip"], name="clipping_match_list_clip"),
            # The operator dashboard counts and lists failed mail without scanning sent rows.
            models.Index(
                fields=["-created_at"],
                condition=Q(mail_status="failed"),
                name="clipping_match_failed",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.keyword_list_id}: {self.clip_id}"
