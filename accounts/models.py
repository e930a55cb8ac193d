"""People who use Webclip and how they want to be told about clips."""

from __future__ import annotations

import hashlib
import secrets
import zoneinfo
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractUser, BaseUserManager
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _


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


def validate_time_zone(value: str) -> None:
    # Any zone Python knows stays valid (an old account may hold an alias); the settings page
    # offers current zones only (accounts.timezones).
    if value not in zoneinfo.available_timezones():
        raise ValidationError(
            _("%(zone)s is not a known time zone."), params={"zone": value}, code="time_zone"
        )


class User(AbstractUser):
    class Delivery(models.TextChoices):
        INSTANT = "instant", _("One mail per clip")
        DAILY = "daily", _("Daily digest")
        WEEKLY = "weekly", _("Weekly digest")

    class OverLimit(models.TextChoices):
        HOUR = "hour", _("One digest at the end of the hour")
        BATCH = "batch", _("An early digest as soon as N clips wait, else at the end of the hour")

    username = None  # type: ignore[assignment]
    email = models.EmailField(_("email address"), unique=True)
    delivery_mode = models.CharField(
        _("how clips reach me"), max_length=10, choices=Delivery.choices, default=Delivery.INSTANT
    )
    digest_hour = models.PositiveSmallIntegerField(
        _("digest time"),
        default=8,
        validators=[MinValueValidator(0), MaxValueValidator(23)],
        help_text=_("When digests are sent, in your time zone."),
    )
    digest_weekday = models.PositiveSmallIntegerField(
        _("weekly digest day"),
        default=0,
        validators=[MinValueValidator(0), MaxValueValidator(6)],
        help_text=_("The day weekly digests are sent."),
    )
    time_zone = models.CharField(
        _("time zone"), max_length=64, default="UTC", validators=[validate_time_zone]
    )
    time_zone_confirmed = models.BooleanField(
        default=False,
        help_text=_("Set once the browser reported a zone or the person chose one."),
    )
    language = models.CharField(
        _("language"),
        max_length=8,
        blank=True,
        choices=settings.LANGUAGES,
        help_text=_("Pages and mail in this language; empty follows your browser."),
    )
    instant_mails_per_hour = models.PositiveSmallIntegerField(
        _("most instant mails per hour"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(1000)],
        help_text=_(
            "Empty: the site's default. The first clip of each list in an hour always comes "
            "at once."
        ),
    )
    over_limit = models.CharField(
        _("above that"), max_length=10, choices=OverLimit.choices, default=OverLimit.HOUR
    )
    over_limit_batch = models.PositiveSmallIntegerField(
        _("clips per early digest"),
        default=10,
        validators=[MinValueValidator(2), MaxValueValidator(200)],
        help_text=_("With an early digest: how many waiting clips make it go at once."),
    )
    news_days = models.PositiveSmallIntegerField(
        _("news from the last"),
        default=7,
        validators=[MinValueValidator(1), MaxValueValidator(3650)],
        help_text=_(
            "Days. Articles published longer ago are shown on My clips and in a new list's "
            "summary, never mailed one by one, in digests or to channels."
        ),
    )
    mail_paused = models.BooleanField(
        _("pause all mail"), default=False, help_text=_("Send me no mail at all.")
    )
    feed_token = models.CharField(max_length=64, unique=True, default=new_feed_token)
    mail_blocked_reason = models.CharField(
        max_length=200,
        blank=True,
        help_text=_("Set when the address bounced or complained; nothing is sent while set."),
    )

    USERNAME_FIELD = "email"
    REQUIRED_FIELDS: list[str] = []

    objects = UserManager()  # type: ignore[misc]

    class Meta:
        ordering = ["email"]

    def __str__(self) -> str:
        return self.email

    def news_since(self, now: datetime) -> datetime:
        """Return the oldest publication time that is news to this person at `now`."""
        return now - timedelta(days=self.news_days)

    def rotate_feed_token(self) -> None:
        self.feed_token = new_feed_token()
        self.save(update_fields=["feed_token"])


# A personal API token reads "wc_" then 43 URL-safe characters (32 random bytes); its first
# characters are kept in clear to tell tokens apart, the whole only as a SHA-256 digest.
API_TOKEN_PREFIX = "wc_"  # noqa: S105 (a marker, not a secret)
API_TOKEN_SHOWN = 10  # characters of a token kept in clear: "wc_" and 7 random ones
API_TOKENS_PER_USER = 20


def token_digest(token: str) -> str:
    """Return the SHA-256 hex digest a token is stored and looked up by."""
    return hashlib.sha256(token.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet["ApiToken"]):
    def owned_by(self, user: object) -> ApiTokenQuerySet:
        return self.filter(user=user)


class ApiToken(models.Model):
    """A personal token for the REST API: only its digest and first characters are stored."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, help_text=_("What the token is for."))
    prefix = models.CharField(max_length=16, help_text=_("The token's first characters."))
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "API token"
        verbose_name_plural = "API tokens"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @classmethod
    def issue(cls, user: User, name: str) -> tuple[ApiToken, str]:
        """Create a token for the user; return it with the secret, which is never stored."""
        secret = API_TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(
            user=user, name=name, prefix=secret[:API_TOKEN_SHOWN], digest=token_digest(secret)
        )
        return token, secret
