"""`manage.py restore PATH [--mailbox] [--no-input]`: replace every row of the database with
a backup's (ops.restore), refusing one made at another migration state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, connections

from ops.archive import BackupError
from ops.restore import restore


class Command(BaseCommand):
    help = (
        "Restore a backup made by `manage.py backup`: every row of the database is replaced. "
        "The database must be migrated to the backup's migration state."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="The backup's zip file.")
        parser.add_argument(
            "--mailbox", action="store_true", help="Also write back the mailbox's files."
        )
        parser.add_argument(
            "--no-input", action="store_false", dest="interactive", help="Do not ask to confirm."
        )
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(
        self, *args: Any, path: str, mailbox: bool, interactive: bool, database: str, **_: Any
    ) -> None:
        archive = Path(path)
        if not archive.is_file():
            raise CommandError(f"No backup at {archive}.")
        name = connections[database].settings_dict["NAME"]
        if interactive:
            answer = input(f"Every row of database {name} will be replaced. Type 'yes' to go on: ")
            if answer.strip().lower() != "yes":
                raise CommandError("Restore cancelled.")
        try:
            restored = restore(archive, using=database, mailbox=mailbox)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        rows = sum(restored.rows.values())
        self.stdout.write(f"Restored {len(restored.rows)} tables, {rows} rows into {name}.")
        if mailbox:
            self.stdout.write(f"Wrote {restored.mail_files} mailbox files.")
        for note in restored.settings_notes:
            self.stdout.write(self.style.WARNING(note))
