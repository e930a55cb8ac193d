"""Notification channels (Apprise URLs), which lists feed them, and every message sent.

A `Notice` is one clip for one channel, the unit of work (unique per channel and match, sent
at most once, claimed before sending like a mail); a `ChannelDigest` gathers a channel's
digest notices of one period; a `ChannelDelivery` is one attempt, written before Apprise is
called, as mail's `Delivery` is.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from clipping.sealed import seal, unseal


class ChannelQuerySet(models.QuerySet["Channel"]):
    def owned_by(self, user: object) -> ChannelQuerySet:
        return self.filter(owner=user)

    def working(self) -> ChannelQuerySet:
        """Channels that are not paused."""
        return self.filter(paused_at__isnull=True)


class Channel(models.Model):
    """Where a person's clips may go besides mail: one Apprise URL, kept sealed."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="channels"
    )
    name = models.CharField(max_length=100)
    sealed_url = models.TextField(editable=False, help_text=_("The Apprise URL, encrypted."))
    shown_url = models.CharField(
        max_length=300, help_text=_("The URL with its secrets masked: all that is ever shown.")
    )
    service = models.CharField(max_length=100, blank=True)
    failures = models.PositiveIntegerField(default=0, help_text=_("Failed sends in a row."))
    paused_at = models.DateTimeField(null=True, blank=True)
    paused_reason = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = ChannelQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="clipping_channel_name")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.shown_url})"

    @property
    def url(self) -> str:
        """Return the Apprise URL in clear (to send only; never show it)."""
        return unseal(self.sealed_url)

    def set_url(self, url: str, shown: str, service: str) -> None:
        """Keep `url` sealed, and what may be shown of it."""
        self.sealed_url = seal(url)
        self.shown_url = shown[:300]
        self.service = service[:100]

    @property
    def paused(self) -> bool:
        return self.paused_at is not None


class Mode(models.TextChoices):
    INSTANT = "instant", _("Each clip")
    DIGEST = "digest", _("Digest")


class ListChannel(models.Model):
    """A keyword list's clips go to a channel, one by one or as a digest."""

    keyword_list = models.ForeignKey(
        "clipping.KeywordList", on_delete=models.CASCADE, related_name="channel_routes"
    )
    channel = models.ForeignKey(Channel, on_delete=models.CASCADE, related_name="routes")
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.INSTANT)
    created_at = models.DateTimeField(
        default=timezone.now, help_text=_("Matches made before this are not sent to the channel.")
    )

    class Meta:
        ordering = ["keyword_list", "channel"]
        constraints = [
            models.UniqueConstraint(
                fields=["keyword_list", "channel"], name="clipping_one_route_per_list_channel"
            )
        ]

    def __str__(self) -> str:
        return f"{self.keyword_list_id} -> {self.channel_id} ({self.mode})"


class SendStatus(models.TextChoices):
    PENDING = "pending", _("Waiting")
    SENT = "sent", pgettext_lazy("status", "Sent")
    SKIPPED = "skipped", _("Not sent")
    FAILED = "failed", _("Failed for good")


class ChannelDigest(models.Model):
    """One digest message of one channel for one period: sent at most once."""

    channel = models.ForeignKey(Channel, on_delete=models.CASCADE, related_name="digests")
    period = models.DateTimeField(help_text=_("When the period ended: the owner's digest time."))
    status = models.CharField(max_length=10, choices=SendStatus.choices, default=SendStatus.PENDING)
    note = models.CharField(max_length=300, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-period", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["channel", "period"], name="clipping_one_channel_digest_per_period"
            )
        ]

    def __str__(self) -> str:
        return f"Digest of channel {self.channel_id} at {self.period:%Y-%m-%d %H:%M}"


class NoticeQuerySet(models.QuerySet["Notice"]):
    def pending(self) -> NoticeQuerySet:
        return self.filter(status=SendStatus.PENDING)

    def claimable(self, now: datetime, lease: timedelta) -> NoticeQuerySet:
        """Pending instant notices nobody holds, or whose holder's lease ran out."""
        return (
            self.pending()
            .filter(mode=Mode.INSTANT)
            .filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - lease))
        )


class Notice(models.Model):
    """One clip (a match) for one channel: sent once, alone or in the channel's digest."""

    channel = models.ForeignKey(Channel, on_delete=models.CASCADE, related_name="notices")
    match = models.ForeignKey("clipping.Match", on_delete=models.CASCADE, related_name="notices")
    mode = models.CharField(max_length=10, choices=Mode.choices)
    status = models.CharField(max_length=10, choices=SendStatus.choices, default=SendStatus.PENDING)
    note = models.CharField(max_length=300, blank=True, help_text=_("Why it was not sent."))
    claimed_at = models.DateTimeField(null=True, blank=True)
    digest = models.ForeignKey(
        ChannelDigest, on_delete=models.SET_NULL, null=True, blank=True, related_name="notices"
    )
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)

    objects = NoticeQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["channel", "match"], name="clipping_one_notice_per_channel_match"
            )
        ]
        indexes = [
            models.Index(
                fields=["created_at"],
                condition=Q(status="pending"),
                name="clipping_notice_pending",
            )
        ]

    def __str__(self) -> str:
        return f"Match {self.match_id} to channel {self.channel_id}: {self.status}"


class ChannelDelivery(models.Model):
    """One attempt to send through a channel: written as sending before Apprise is called."""

    class Kind(models.TextChoices):
        INSTANT = "instant", _("Clip")
        DIGEST = "digest", _("Digest")
        TEST = "test", _("Test message")

    class Status(models.TextChoices):
        SENDING = "sending", _("Sending")
        SENT = "sent", pgettext_lazy("status", "Sent")
        FAILED = "failed", pgettext_lazy("status", "Failed")

    channel = models.ForeignKey(Channel, on_delete=models.CASCADE, related_name="deliveries")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    notice = models.ForeignKey(
        Notice, on_delete=models.CASCADE, null=True, blank=True, related_name="deliveries"
    )
    digest = models.ForeignKey(
        ChannelDigest, on_delete=models.CASCADE, null=True, blank=True, related_name="deliveries"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SENDING)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = _("channel deliveries")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["channel", "-created_at"], name="clipping_chdelivery_channel")
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} to channel {self.channel_id}: {self.status}"

    def succeed(self) -> None:
        """Mark this attempt sent."""
        self._finish(self.Status.SENT)

    def fail(self, error: str) -> None:
        """Mark this attempt failed with the error."""
        self._finish(self.Status.FAILED, error=error[:2000])

    def _finish(self, status: str, **fields: object) -> None:
        fields.update(status=status, finished_at=timezone.now())
        # Only a sending row changes: a late writer never flips a row already settled.
        ChannelDelivery.objects.filter(id=self.id, status=self.Status.SENDING).update(**fields)
        for name, value in fields.items():
            setattr(self, name, value)
