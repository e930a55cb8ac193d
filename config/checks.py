"""System checks that refuse a production configuration that cannot work."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Error, Tags, register
from django.core.exceptions import ImproperlyConfigured

_LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1", "testserver"}


@register(Tags.security, deploy=True)
def production_configuration(app_configs, **kwargs) -> list[Error]:  # noqa: ARG001
    """Refuse settings that would break or expose a production deployment."""
    errors: list[Error] = []
    try:
        settings.SECRET_KEY  # noqa: B018 (Django raises on access when it is empty)
    except ImproperlyConfigured:
        errors.append(
            Error(
                "SECRET_KEY is not set.",
                hint="Set the SECRET_KEY env var to a long random string.",
                id="webclip.E001",
            )
        )
    public_hosts = [h for h in settings.ALLOWED_HOSTS if h not in _LOCAL_HOSTS]
    if settings.DEBUG and public_hosts:
        errors.append(
            Error(
                f"DEBUG is on while ALLOWED_HOSTS has public hosts: {', '.join(public_hosts)}.",
                hint="Set DEBUG=0 for a public deployment.",
                id="webclip.E002",
            )
        )
    if not settings.DEBUG:
        if not settings.CELERY_BROKER_URL or settings.CELERY_BROKER_URL.startswith(
            ("filesystem://", "memory://")
        ):
            errors.append(
                Error(
                    "No shared Celery broker is configured.",
                    hint="Set CELERY_BROKER_URL to redis://... or amqp://...",
                    id="webclip.E003",
                )
            )
        if not settings.DEFAULT_FROM_EMAIL or settings.DEFAULT_FROM_EMAIL.endswith("@localhost>"):
            errors.append(
                Error(
                    "No sender address is configured.",
                    hint="Set DEFAULT_FROM_EMAIL to an address your mail provider accepts.",
                    id="webclip.E004",
                )
            )
        if settings.EMAIL_PROVIDER in {"file", "console", "locmem"}:
            errors.append(
                Error(
                    f"EMAIL_PROVIDER={settings.EMAIL_PROVIDER} does not deliver mail.",
                    hint="Set EMAIL_PROVIDER=smtp (with EMAIL_HOST) or an anymail ESP name.",
                    id="webclip.E005",
                )
            )
    return errors
