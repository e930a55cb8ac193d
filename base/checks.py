"""System checks: unknown or malformed Webclip settings, production setups that cannot work."""

from __future__ import annotations

import difflib
import os
from importlib import import_module

from django.apps import apps
from django.conf import settings
from django.core.checks import Error, Tags, register
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import module_has_submodule

from base.env import SettingError, Settings, names_read

_LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1", "testserver"}

# Variables under these prefixes are Webclip's: each one must be a setting some code reads.
PREFIXES = ("CRAWLER_", "XCRAWL_", "DEEPWEB_", "HIDDENWEB_", "CLIPPING_", "WEBCLIP_")
# Read straight from the environment where they are used, not through a settings module.
READ_DIRECTLY = {
    "WEBCLIP_ADMIN_PASSWORD",  # accounts' bootstrap command
    "WEBCLIP_SCREENSHOTS",  # the end-to-end tests save README screenshots there
    "XCRAWL_DEBUG",  # bench/focused_recall.py: log file of the walk
    "XCRAWL_TRACE",  # bench/focused_recall.py: trace of the walk
}


def app_sections() -> list[type[Settings]]:
    """Return the `SECTIONS` of every installed app's conf module, in app order."""
    sections: list[type[Settings]] = []
    for app in apps.get_app_configs():
        if module_has_submodule(app.module, "conf"):
            sections.extend(getattr(import_module(f"{app.name}.conf"), "SECTIONS", ()))
    return sections


@register("settings")
def environment_settings(app_configs, **kwargs) -> list[Error]:  # noqa: ARG001
    """Name each Webclip variable in the environment that no code reads, or that cannot work."""
    declared = [spec for section in app_sections() for _, spec in section.declared()]
    known = {spec.name for spec in declared} | names_read() | READ_DIRECTLY
    errors: list[Error] = []
    for name in sorted(os.environ):
        if name.startswith(PREFIXES) and name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"Did you mean {close[0]}?" if close else "See Configuration in README.md."
            message = f"{name} is set in the environment but is not a Webclip setting."
            errors.append(Error(message, hint=hint, id="webclip.E010"))
    for spec in declared:
        try:
            spec.read()
        except SettingError as exc:
            errors.append(Error(str(exc), id="webclip.E011"))
    return errors


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
