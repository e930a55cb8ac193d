"""`manage.py backup [PATH] [--mailbox]`: write every table, the migration state and the
settings named to one zip file (ops.archive)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import DEFAULT_DB_ALIAS
from django.utils import timezone

from ops.backup import backup


class Command(BaseCommand):
    help = (
        "Back up the database (every table, exactly), its migration state and the settings "
        "the instance runs with (secrets named, not stored) to a zip file."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "path",
            nargs="?",
            help="Where to write the archive (default: var/backups/webclip-<UTC time>.zip).",
        )
        parser.add_argument(
            "--mailbox", action="store_true", help="Also take the development mailbox's files."
        )
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(self, *args: Any, path: str | None, mailbox: bool, database: str, **_: Any) -> None:
        if path:
            target = Path(path)
        else:
            stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
            target = Path(settings.VAR_DIR) / "backups" / f"webclip-{stamp}.zip"
        written = backup(target, using=database, mailbox=mailbox)
        rows = sum(written.rows.values())
        mail = f", {written.mail_files} mailbox files" if mailbox else ""
        self.stdout.write(f"{written.path}: {len(written.rows)} tables, {rows} rows{mail}.")
