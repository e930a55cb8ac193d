"""Mail records: digests, every delivery attempt, suppressed addresses and webhook events."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Digest(models.Model):
    """One digest mail of one user for one period: the unit of work, sent at most once."""

    class Kind(models.TextChoices):
        DAILY = "daily", "Daily"
        WEEKLY = "weekly", "Weekly"
        HOURLY = "hourly", "Hourly (over the instant limit)"
        SUMMARY = "summary", "Summary (what a new list found in pages already crawled)"
        BURST = "burst", "Burst (instant clips found within seconds of each other)"

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        SENT = "sent", "Sent"
        SKIPPED = "skipped", "Not sent"
        FAILED = "failed", "Failed for good"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="digests"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    period = models.DateTimeField(help_text="When the period ended: the user's digest time.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    note = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-period", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "kind", "period"], name="clipping_one_digest_per_period"
            )
        ]
        indexes = [
            # Waiting and failed digests (the planner's and the dashboard's) without the sent ones.
            models.Index(
                fields=["status", "period"],
                condition=Q(status__in=["pending", "failed"]),
                name="clipping_digest_open",
            )
        ]

    def __str__(self) -> str:
        return (
            f"{self.get_kind_display()} digest for {self.user_id} at {self.period:%Y-%m-%d %H:%M}"
        )


class DeliveryQuerySet(models.QuerySet["Delivery"]):
    def instant_mails(self) -> DeliveryQuerySet:
        """Attempts at instant mail: single clips and bursts (one row per mail sent)."""
        return self.filter(Q(kind=Delivery.Kind.INSTANT) | Q(digest__kind=Digest.Kind.BURST))

    def not_failed(self) -> DeliveryQuerySet:
        """Attempts sending now or sent."""
        return self.filter(status__in=[Delivery.Status.SENDING, Delivery.Status.SENT])


class Delivery(models.Model):
    """One attempt to send one mail: written as sending before the SMTP or ESP call."""

    class Kind(models.TextChoices):
        INSTANT = "instant", "Instant clip"
        DIGEST = "digest", "Digest"

    class Status(models.TextChoices):
        SENDING = "sending", "Sending"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="deliveries"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    match = models.ForeignKey(
        "clipping.Match", on_delete=models.CASCADE, null=True, blank=True, related_name="deliveries"
    )
    digest = models.ForeignKey(
        Digest, on_delete=models.CASCADE, null=True, blank=True, related_name="deliveries"
    )
    address = models.EmailField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SENDING)
    error = models.TextField(blank=True)
    permanent = models.BooleanField(
        default=False, help_text="The error will not go away by retrying."
    )
    message_id = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = DeliveryQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "deliveries"
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["user", "kind", "created_at"], name="clipping_delivery_quota"),
            # The operator dashboard: attempts sending now, sent and failed in the last day.
            models.Index(fields=["status", "created_at"], name="clipping_delivery_status"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} to {self.address}: {self.status}"

    def succeed(self, message_id: str = "") -> None:
        """Mark this attempt sent."""
        self._finish(self.Status.SENT, message_id=message_id)

    def fail(self, error: str, *, permanent: bool = False) -> None:
        """Mark this attempt failed with the error."""
        self._finish(self.Status.FAILED, error=error[:2000], permanent=permanent)

    def _finish(self, status: str, **fields: object) -> None:
        fields.update(status=status, finished_at=timezone.now())
        # Only a sending row changes: a late writer never flips a row already settled.
        Delivery.objects.filter(id=self.id, status=self.Status.SENDING).update(**fields)
        for name, value in fields.items():
            setattr(self, name, value)


class SuppressionQuerySet(models.QuerySet["Suppression"]):
    def holds(self, address: str) -> bool:
        return self.filter(address=address.strip().lower()).exists()


class Suppression(models.Model):
    """An address that bounced, complained or was refused: nothing more is sent to it."""

    address = models.EmailField(unique=True)
    reason = models.CharField(max_length=40)
    detail = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = SuppressionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.address} ({self.reason})"


class WebhookEvent(models.Model):
    """A tracking event already handled: a replayed webhook changes nothing."""

    esp = models.CharField(max_length=40)
    event_id = models.CharField(max_length=200)
    event_type = models.CharField(max_length=40)
    recipient = models.CharField(max_length=254, blank=True)
    received_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-received_at"]
        constraints = [
            models.UniqueConstraint(fields=["esp", "event_id"], name="clipping_one_event_per_id")
        ]

    def __str__(self) -> str:
        return f"{self.esp} {self.event_type} {self.event_id}"
