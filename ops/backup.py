"""Write a backup archive (ops.archive): every table, the migration state, the settings named."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core import serializers
from django.db import connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils import timezone

from base.checks import app_sections
from base.env import names_read
from ops import archive

CHUNK = 2000  # rows read per query


@dataclass(frozen=True)
class Written:
    """What a backup holds: its path, rows per table, and the mailbox files it took."""

    path: Path
    rows: dict[str, int]
    mail_files: int


def backup(path: Path, *, using: str = "default", mailbox: bool = False) -> Written:
    """Write every table of a database, its migration state and the settings named to path.

    1. Read every table inside one snapshot, so the archive is consistent while the
       workers keep writing (see _snapshot).
    2. Write each table's rows in the exact serializer, tables in dependency order.
    3. Name the settings the instance runs with, secrets flagged and left out.
    4. With mailbox, add the development mailbox's files.
    The archive is written beside path and renamed into place only when complete.
    """
    connection = connections[using]
    partial = path.with_name(path.name + ".partial")
    path.parent.mkdir(parents=True, exist_ok=True)
    rows: dict[str, int] = {}
    tables = []
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as zipped:
        with _snapshot(connection):
            migrations = archive.migration_state(connection)
            for model in archive.dumped_models():
                name = archive.table_file(model)
                rows[model._meta.label_lower] = count = _write_table(zipped, name, model, using)
                tables.append({"model": model._meta.label_lower, "file": name, "rows": count})
        mail_files = _write_mailbox(zipped) if mailbox else 0
        zipped.writestr(_entry(archive.SETTINGS), json.dumps(_settings(), indent=1))
        manifest = {
            "format": archive.FORMAT,
            "version": archive.VERSION,
            "created_at": timezone.now().isoformat(),
            "vendor": connection.vendor,
            "migrations": migrations,
            "tables": tables,
            "mailbox": mail_files if mailbox else None,
        }
        zipped.writestr(_entry(archive.MANIFEST), json.dumps(manifest, indent=1))
    partial.replace(path)
    return Written(path, rows, mail_files)


@contextmanager
def _snapshot(connection: BaseDatabaseWrapper) -> Iterator[None]:
    """Read every table in one consistent view of the database.

    PostgreSQL: one REPEATABLE READ, READ ONLY transaction, which blocks no writer. SQLite:
    one deferred read transaction, which WAL mode lets writers work beside. Inside a
    transaction already (a caller's, or a test's), that transaction is the view.
    """
    if connection.in_atomic_block:
        yield
        return
    if connection.vendor == "postgresql":
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield
        return
    with connection.cursor() as cursor:
        cursor.execute("BEGIN DEFERRED")
        try:
            yield
        finally:
            cursor.execute("COMMIT")


def _write_table(zipped: zipfile.ZipFile, name: str, model: type, using: str) -> int:
    """Write one table's rows in primary key order; return how many."""
    serializer = serializers.get_serializer(archive.SERIALIZER)()
    queryset = model._base_manager.using(using).order_by("pk")
    count = 0

    def counted() -> Iterator[object]:
        nonlocal count
        for row in queryset.iterator(chunk_size=CHUNK):
            count += 1
            yield row

    with (
        zipped.open(_entry(name), "w", force_zip64=True) as raw,
        io.TextIOWrapper(raw, encoding="utf-8", newline="\n") as text,
    ):
        serializer.serialize(counted(), stream=text)
    return count


def _entry(name: str) -> zipfile.ZipInfo:
    """Return a compressed archive member dated now (zipfile dates members it names 1980)."""
    info = zipfile.ZipInfo(name, date_time=timezone.now().timetuple()[:6])
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _write_mailbox(zipped: zipfile.ZipFile) -> int:
    """Add every file of the development mailbox; return how many."""
    folder = Path(settings.EMAIL_FILE_PATH)
    files = sorted(item for item in folder.rglob("*") if item.is_file()) if folder.is_dir() else []
    for item in files:
        zipped.write(item, archive.MAILBOX + item.relative_to(folder).as_posix())
    return len(files)


def _settings() -> dict[str, object]:
    """Return the settings named in the archive: every variable the instance read."""
    declared = {spec.name for section in app_sections() for _, spec in section.declared()}
    return {
        "database_vendor": connections["default"].vendor,
        "email_backend": settings.EMAIL_BACKEND,
        "variables": archive.settings_named(names_read() | declared),
    }
