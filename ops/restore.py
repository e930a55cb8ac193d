"""Restore a backup archive (ops.archive) into a database at the same migration state."""

from __future__ import annotations

import io
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core import serializers
from django.core.management.color import no_style
from django.core.serializers.base import DeserializationError
from django.db import connections, models, transaction
from django.db.backends.base.base import BaseDatabaseWrapper

from ops import archive

BATCH = 500  # rows inserted per statement


@dataclass
class Restored:
    """What a restore wrote, and how the settings named in the archive differ from these."""

    rows: dict[str, int] = field(default_factory=dict)
    mail_files: int = 0
    settings_notes: list[str] = field(default_factory=list)


def read_manifest(zipped: zipfile.ZipFile) -> dict[str, Any]:
    """Return an archive's manifest, or raise BackupError if it is no Webclip backup."""
    try:
        manifest = json.loads(zipped.read(archive.MANIFEST))
    except (KeyError, ValueError) as exc:
        raise archive.BackupError(f"Not a Webclip backup (no readable manifest): {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != archive.FORMAT:
        raise archive.BackupError("Not a Webclip backup: its manifest names another format.")
    if manifest.get("version") != archive.VERSION:
        raise archive.BackupError(
            f"This backup is format version {manifest.get('version')}; this Webclip reads "
            f"version {archive.VERSION}."
        )
    return manifest


def restore(path: Path, *, using: str = "default", mailbox: bool = False) -> Restored:
    """Replace every row of a database with an archive's, in one transaction.

    1. Refuse an archive made at another migration state, or with other tables.
    2. Empty every table, then load each archive table in dependency order.
    3. Check every reference, and move PostgreSQL's sequences past the restored ids.
    4. With mailbox, write the archive's mailbox files into EMAIL_FILE_PATH.
    """
    connection = connections[using]
    try:
        zipped = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise archive.BackupError(f"Cannot read {path} as a backup: {exc}") from None
    with zipped:
        manifest = read_manifest(zipped)
        check_state(manifest, connection)
        result = Restored()
        ordered = archive.dumped_models()
        expected = {table["model"]: table["rows"] for table in manifest["tables"]}
        with transaction.atomic(using=using):
            tables = [model._meta.db_table for model in ordered]
            _empty(connection, tables)
            for model in ordered:
                label = model._meta.label_lower
                result.rows[label] = _load(zipped, model, using)
                if result.rows[label] != expected[label]:  # rolled back with the rest
                    raise archive.BackupError(
                        f"The backup is damaged: {label} holds {result.rows[label]} rows, "
                        f"its manifest says {expected[label]}. Nothing was changed."
                    )
            connection.check_constraints(table_names=tables)
            resets = connection.ops.sequence_reset_sql(no_style(), ordered)
            if resets:
                with connection.cursor() as cursor:
                    for statement in resets:
                        cursor.execute(statement)
        if mailbox:
            result.mail_files = _restore_mailbox(zipped)
        result.settings_notes = settings_notes(zipped)
    return result


def _empty(connection: BaseDatabaseWrapper, tables: list[str]) -> None:
    """Delete every row of the tables (PostgreSQL: one TRUNCATE, which no reference stops).

    PostgreSQL refuses to truncate a table with reference checks still pending in the
    transaction, so they run first; references are checked at the end again (deferred).
    """
    deferred = connection.vendor == "postgresql"
    if deferred:
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    connection.ops.execute_sql_flush(
        connection.ops.sql_flush(no_style(), tables, allow_cascade=False)
    )
    if deferred:
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def check_state(manifest: dict[str, Any], connection: BaseDatabaseWrapper) -> None:
    """Raise BackupError unless the database's migrations and tables are the archive's."""
    theirs = {tuple(pair) for pair in manifest.get("migrations", [])}
    ours = {tuple(pair) for pair in archive.migration_state(connection)}
    if theirs != ours:
        missing = ", ".join(f"{app}.{name}" for app, name in sorted(theirs - ours)) or "none"
        extra = ", ".join(f"{app}.{name}" for app, name in sorted(ours - theirs)) or "none"
        raise archive.BackupError(
            "The database is at another migration state than the backup, so its tables may "
            f"not hold the backup's rows. Applied in the backup but not here: {missing}. "
            f"Applied here but not in the backup: {extra}. Restore with the Webclip version "
            "that made the backup, into a database migrated to the same state "
            "(`manage.py migrate`, or `manage.py migrate <app> <migration>` to go back)."
        )
    in_archive = {table["model"] for table in manifest.get("tables", [])}
    here = {model._meta.label_lower for model in archive.dumped_models()}
    if in_archive != here:
        differ = ", ".join(sorted(in_archive ^ here))
        raise archive.BackupError(f"The backup's tables are not this Webclip's: {differ}.")


def _load(zipped: zipfile.ZipFile, model: type[models.Model], using: str) -> int:
    """Insert one table's rows from the archive in batches; return how many."""
    count = 0
    batch: list[models.Model] = []
    try:
        member = zipped.open(archive.table_file(model))
    except KeyError:
        raise archive.BackupError(
            f"The backup is damaged: it lacks {archive.table_file(model)}. Nothing was changed."
        ) from None
    with member as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8")
        try:
            for item in serializers.deserialize(archive.SERIALIZER, text, using=using):
                batch.append(item.object)
                count += 1
                if len(batch) >= BATCH:
                    _insert(model, batch, using)
                    batch = []
        except DeserializationError as exc:
            raise archive.BackupError(
                f"The backup is damaged: row {count + 1} of {archive.table_file(model)} "
                f"cannot be read ({exc}). Nothing was changed."
            ) from None
    if batch:
        _insert(model, batch, using)
    return count


def _insert(model: type[models.Model], rows: list[models.Model], using: str) -> None:
    """Insert rows as they are: raw, as loaddata saves, so no auto_now field is rewritten.

    bulk_create would give auto_now and auto_now_add fields the time of the restore, and
    one save per row costs a query each; QuerySet._insert with raw=True is what both use.
    """
    fields = [field for field in model._meta.local_concrete_fields if not field.generated]
    size = max(1, connections[using].ops.bulk_batch_size(fields, rows))
    for start in range(0, len(rows), size):
        model._base_manager.using(using)._insert(  # type: ignore[attr-defined]
            rows[start : start + size], fields=fields, raw=True, using=using
        )


def _restore_mailbox(zipped: zipfile.ZipFile) -> int:
    """Write the archive's mailbox files into EMAIL_FILE_PATH; return how many."""
    folder = Path(settings.EMAIL_FILE_PATH)
    written = 0
    for name in zipped.namelist():
        member = archive.mailbox_member(name)
        if member is None or name.endswith("/"):
            continue
        target = folder.joinpath(*member.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(zipped.read(name))
        written += 1
    return written


def settings_notes(zipped: zipfile.ZipFile) -> list[str]:
    """Return one line per variable set differently here than in the archive's settings."""
    try:
        named = json.loads(zipped.read(archive.SETTINGS)).get("variables", [])
    except (KeyError, ValueError):
        return ["The backup names no settings."]
    notes = []
    for entry in named:
        name, was_set = entry["name"], entry["set"]
        now = os.environ.get(name)
        if entry["secret"]:
            if was_set and now is None:
                notes.append(f"{name} was set for the backup (a secret, not in it); set it here.")
            continue
        value = archive.masked_url(now) if now is not None else None
        if value != entry.get("value"):
            before = entry.get("value", "unset")
            notes.append(f"{name}: {before} in the backup, {value or 'unset'} here.")
    return notes
