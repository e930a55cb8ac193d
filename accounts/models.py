"""People who use Webclip and how they want to be told about clips."""

from __future__ import annotations

import secrets
import zoneinfo

from django.contrib.auth.models import AbstractUser, BaseUserManager
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def _create(self, email: str, password: str | None, **extra: object) -> User:
        if not email:
            raise ValueError("An email address is required.")
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_user(self, email: str, password: str | None = None, **extra: object) -> User:
        extra.setdefault("is_staff", False)
        extra.setdefault("is_superuser", False)
        return self._create(email, password, **extra)

    def create_superuser(self, email: str, password: str | None = None, **extra: object) -> User:
        extra.setdefault("is_staff", True)
        extra.setdefault("is_superuser", True)
        return self._create(email, password, **extra)

    def mailable(self) -> models.QuerySet[User]:
        """Active people with a verified address who have not paused mail."""
        return self.filter(
            is_active=True,
            mail_paused=False,
            emailaddress__verified=True,
            emailaddress__primary=True,
        ).distinct()


def new_feed_token() -> str:
    return secrets.token_urlsafe(24)


def time_zone_choices() -> list[tuple[str, str]]:
    return [(name, name) for name in sorted(zoneinfo.available_timezones())]


def validate_time_zone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(f"{value!r} is not a known time zone.")


class User(AbstractUser):
    class Delivery(models.TextChoices):
        INSTANT = "instant", "One mail per clip"
        DAILY = "daily", "Daily digest"
        WEEKLY = "weekly", "Weekly digest"

    username = None  # type: ignore[assignment]
    email = models.EmailField("email address", unique=True)
    delivery_mode = models.CharField(
        max_length=10, choices=Delivery.choices, default=Delivery.INSTANT
    )
    digest_hour = models.PositiveSmallIntegerField(
        default=8,
        validators=[MinValueValidator(0), MaxValueValidator(23)],
        help_text="Hour of the day (in your time zone) when digests are sent.",
    )
    digest_weekday = models.PositiveSmallIntegerField(
        default=0,
        validators=[MinValueValidator(0), MaxValueValidator(6)],
        help_text="Day of the week for weekly digests (0 = Monday).",
    )
    time_zone = models.CharField(max_length=64, default="UTC", validators=[validate_time_zone])
    mail_paused = models.BooleanField(default=False, help_text="Send me no mail at all.")
    feed_token = models.CharField(max_length=64, unique=True, default=new_feed_token)
    mail_blocked_reason = models.CharField(
        max_length=200,
        blank=True,
        help_text="Set when the address bounced or complained; nothing is sent while set.",
    )

    USERNAME_FIELD = "email"
    REQUIRED_FIELDS: list[str] = []

    objects = UserManager()  # type: ignore[misc]

    class Meta:
        ordering = ["email"]

    def __str__(self) -> str:
        return self.email

    def rotate_feed_token(self) -> None:
        self.feed_token = new_feed_token()
        self.save(update_fields=["feed_token"])
