"""`manage.py backup` and `manage.py restore`: every table back exactly, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command

from accounts.models import User
from clipping.models import KeywordList, Match, SeenText
from ops import archive
from ops.backup import backup
from ops.restore import restore
from tests.clipping.pages import SOLAR, article
from tests.factories import ingest_html, make_list, make_site

pytestmark = pytest.mark.django_db

BIG = 2**62 + 7  # beyond what a double holds exactly
Tables = dict[str, list[tuple[object, ...]]]


def every_table(using: str = "default") -> Tables:
    """Return every row of every table, as values the database gave (binary as bytes)."""
    tables: Tables = {}
    for model in archive.dumped_models():
        names = [field.attname for field in model._meta.concrete_fields]
        rows = model._base_manager.using(using).order_by("pk").values_list(*names)
        tables[model._meta.label_lower] = [
            tuple(bytes(value) if isinstance(value, memoryview) else value for value in row)
            for row in rows
        ]
    return tables


@pytest.fixture
def stored(alice, bob) -> Tables:
    """Fill the database with what an instance holds, including the awkward values."""
    energy = make_list(alice, "Energy", "solar subsidies\n-sports")
    energy.synonym_choices = {"solar": {"sun|sun.n.01": False}, "ü": {"ß": True}}
    energy.save()
    make_list(bob, "Solar", "solar")
    ingest_html(make_site(), "https://news.example.com/solar", article("Solar plan", SOLAR))
    Match.objects.filter(keyword_list=energy).update(spans=[[0, BIG, "solar"]])
    SeenText.objects.update(version_id=BIG)
    alice.groups.add(Group.objects.create(name="Readers"))
    tables = every_table()
    for label in ("clipping.clip", "clipping.match", "crawler.pageversion", "clipping.seentext"):
        assert tables[label], label
    return tables


def test_a_backup_restores_every_table_exactly_and_new_rows_get_new_ids(stored, alice, tmp_path):
    # An id given explicitly moves no PostgreSQL sequence: only the restore's reset does.
    make_list(alice, "Far", "wind", pk=10**6)
    stored = every_table()
    path = tmp_path / "webclip.zip"
    call_command("backup", str(path))
    KeywordList.objects.filter(owner=alice).delete()
    User.objects.create(email="mallory@example.com")

    call_command("restore", str(path), "--no-input")

    assert every_table() == stored
    assert make_list(alice, "Tide", "tide").pk > 10**6


def test_a_backup_names_its_migration_state_and_tables_in_dependency_order(stored, tmp_path):
    written = backup(tmp_path / "webclip.zip")
    with zipfile.ZipFile(written.path) as zipped:
        manifest = json.loads(zipped.read(archive.MANIFEST))
    assert ["clipping", "0001_initial"] in manifest["migrations"]
    order = [table["model"] for table in manifest["tables"]]
    assert order.index("accounts.user") < order.index("clipping.keywordlist")
    assert order.index("clipping.clip") < order.index("clipping.match")
    assert order.index("auth.group") < order.index("accounts.user_groups")
    rows = {table["model"]: table["rows"] for table in manifest["tables"]}
    assert rows["clipping.match"] == len(stored["clipping.match"]) == written.rows["clipping.match"]


def test_a_restore_into_another_migration_state_is_refused_and_changes_nothing(stored, tmp_path):
    path = tmp_path / "webclip.zip"
    backup(path)
    older = tmp_path / "older.zip"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(older, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            if name == archive.MANIFEST:
                manifest = json.loads(data)
                manifest["migrations"].remove(["clipping", "0002_clips_matches_mail"])
                data = json.dumps(manifest).encode()
            target.writestr(name, data)
    KeywordList.objects.all().delete()

    with pytest.raises(CommandError, match="another migration state") as refused:
        call_command("restore", str(older), "--no-input")

    assert "Applied here but not in the backup: clipping.0002_clips_matches_mail" in str(
        refused.value
    )
    assert not KeywordList.objects.exists()


def copied(source: Path, target: Path, **replaced: bytes) -> Path:
    """Copy an archive, replacing the members named (their / written as __)."""
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as copy:
        for name in original.namelist():
            copy.writestr(name, replaced.get(name.replace("/", "__"), original.read(name)))
    return target


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ({"tables__clipping.match.jsonl": b""}, "clipping.match holds 0 rows, its manifest says"),
        ({"tables__clipping.clip.jsonl": b"{not json\n"}, "row 1 of tables/clipping.clip.jsonl"),
        ({"manifest.json": b"[]"}, "Not a Webclip backup"),
    ],
)
def test_a_damaged_backup_is_refused_and_changes_nothing(stored, tmp_path, damage, message):
    damaged = copied(backup(tmp_path / "webclip.zip").path, tmp_path / "damaged.zip", **damage)
    KeywordList.objects.all().delete()
    left = every_table()

    with pytest.raises(CommandError, match=message):
        call_command("restore", str(damaged), "--no-input")

    assert every_table() == left


def test_the_settings_are_named_and_secrets_are_not_stored(stored, tmp_path, monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "a-secret-that-must-stay-home")
    monkeypatch.setenv("DATABASE_URL", "postgres://webclip:hunter2@db.example.com/webclip")
    path = backup(tmp_path / "webclip.zip").path

    with zipfile.ZipFile(path) as zipped:
        named = {
            item["name"]: item for item in json.loads(zipped.read(archive.SETTINGS))["variables"]
        }
        everything = b"".join(zipped.read(name) for name in zipped.namelist())
    assert named["SECRET_KEY"] == {"name": "SECRET_KEY", "set": True, "secret": True}
    assert named["DATABASE_URL"]["value"] == "postgres://webclip:***@db.example.com/webclip"
    assert b"a-secret-that-must-stay-home" not in everything and b"hunter2" not in everything
    monkeypatch.delenv("SECRET_KEY")
    notes = restore(path).settings_notes
    assert "SECRET_KEY was set for the backup (a secret, not in it); set it here." in notes


def test_the_mailbox_is_backed_up_and_restored_only_when_asked(stored, tmp_path, settings):
    settings.EMAIL_FILE_PATH = str(tmp_path / "mailbox")
    mail = Path(settings.EMAIL_FILE_PATH) / "20260101-120000-1.log"
    mail.parent.mkdir()
    mail.write_bytes(b"Subject: Solar\n\nA clip for you.\n")
    without, with_mail = backup(tmp_path / "a.zip"), backup(tmp_path / "b.zip", mailbox=True)
    assert (without.mail_files, with_mail.mail_files) == (0, 1)
    mail.unlink()

    assert restore(with_mail.path).mail_files == 0 and not mail.exists()
    assert restore(with_mail.path, mailbox=True).mail_files == 1
    assert mail.read_bytes() == b"Subject: Solar\n\nA clip for you.\n"


def on_sqlite(var_dir: Path, *args: str) -> str:
    """Run manage.py on an instance with the laptop defaults: an SQLite file in var_dir."""
    service_vars = {"DATABASE_URL", "CACHE_URL", "CELERY_BROKER_URL", "PYTEST_XDIST_WORKER"}
    env = {name: value for name, value in os.environ.items() if name not in service_vars}
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env={**env, "WEBCLIP_VAR_DIR": str(var_dir)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_a_backup_goes_through_an_sqlite_instance_and_comes_back_exactly(stored, alice, tmp_path):
    suite = backup(tmp_path / "suite.zip").path
    on_sqlite(tmp_path, "migrate", "--no-input", "-v0")
    restored = on_sqlite(tmp_path, "restore", str(suite), "--no-input")
    assert "webclip.sqlite3" in restored
    on_sqlite(tmp_path, "backup", str(tmp_path / "sqlite.zip"))
    KeywordList.objects.filter(owner=alice).delete()

    restore(tmp_path / "sqlite.zip")

    assert every_table() == stored
    with zipfile.ZipFile(tmp_path / "sqlite.zip") as zipped:
        assert json.loads(zipped.read(archive.MANIFEST))["vendor"] == "sqlite"
