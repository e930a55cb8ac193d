"""What a backup archive holds, and what backing up and restoring share.

A backup is one zip file:

- manifest.json: the format, when and from which database vendor it was made, the schema's
  migration state (every applied migration), and per table its model, file and row count;
- tables/<app_label>.<model>.jsonl: every row of every table, in the exact serializer
  (ops.exactjsonl), tables in dependency order (a table after those it refers to);
- settings.json: the environment variables the instance read, with their values, except
  secrets (named as set or not, never stored) and passwords in URLs (masked);
- mailbox/...: the development mailbox's files (EMAIL_FILE_PATH), when asked for.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import PurePosixPath
from urllib.parse import urlsplit, urlunsplit

from django.apps import apps
from django.db import models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.migrations.recorder import MigrationRecorder

FORMAT = "webclip-backup"
VERSION = 1
MANIFEST = "manifest.json"
SETTINGS = "settings.json"
TABLES = "tables/"
MAILBOX = "mailbox/"
SERIALIZER = "exactjsonl"
# A variable whose name says it holds a secret is named in the archive, its value never is.
_SECRET_NAME = re.compile(r"SECRET|PASSW|TOKEN|CREDENTIAL|DSN|(^|_)KEY$|PRIVATE")
MASK = "***"


class BackupError(Exception):
    """An archive that cannot be written or restored here; the message says why and what to do."""


def dumped_models() -> list[type[models.Model]]:
    """Return every model with a table of its own, each after the models it refers to.

    Many-to-many tables (auto-created through models) are models here too. A cycle of
    references, which deferred constraints allow within one transaction, keeps name order.
    """
    candidates = [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    ]
    labels = {model._meta.label_lower: model for model in candidates}
    needs = {
        label: {
            field.related_model._meta.label_lower
            for field in model._meta.concrete_fields
            if field.is_relation and field.related_model is not None
        }
        & labels.keys() - {label}
        for label, model in labels.items()
    }
    ordered: list[str] = []
    left = dict(sorted(needs.items()))
    while left:
        ready = [label for label, wanted in left.items() if not wanted - set(ordered)]
        for label in ready or [next(iter(left))]:  # a cycle: take the first by name
            ordered.append(label)
            del left[label]
    return [labels[label] for label in ordered]


def migration_state(connection: BaseDatabaseWrapper) -> list[list[str]]:
    """Return the database's applied migrations as sorted [app, name] pairs."""
    applied = MigrationRecorder(connection).applied_migrations()
    return [[app, name] for app, name in sorted(applied)]


def table_file(model: type[models.Model]) -> str:
    """Return the archive's file name of a model's table."""
    return f"{TABLES}{model._meta.label_lower}.jsonl"


def settings_named(names: Iterable[str]) -> list[dict[str, object]]:
    """Return each variable the instance read: set or not, its value unless it is a secret."""
    described: list[dict[str, object]] = []
    for name in sorted(set(names)):
        value = os.environ.get(name)
        secret = bool(_SECRET_NAME.search(name))
        entry: dict[str, object] = {"name": name, "set": value is not None, "secret": secret}
        if value is not None and not secret:
            entry["value"] = masked_url(value)
        described.append(entry)
    return described


def masked_url(value: str) -> str:
    """Return a URL with its password replaced by MASK; any other value as it is."""
    try:
        parts = urlsplit(value)
        password = parts.password
    except ValueError:
        return value
    if not password:
        return value
    host = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:{MASK}@{host}"))


def mailbox_member(name: str) -> PurePosixPath | None:
    """Return a mailbox member's path below the mailbox folder, or None if it would leave it."""
    path = PurePosixPath(name[len(MAILBOX) :])
    if not name.startswith(MAILBOX) or path.is_absolute() or ".." in path.parts:
        return None
    return path if path.parts else None
