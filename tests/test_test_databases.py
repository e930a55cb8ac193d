"""The suite drops test databases that earlier runs left behind, and only those."""

from __future__ import annotations

import os
import subprocess

import pytest
from django.conf import settings
from psycopg import sql

from tests.servers import connect_server, drop_stale_test_databases

pytestmark = pytest.mark.postgres


def exited_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_databases_of_exited_runs_are_dropped_and_the_others_kept() -> None:
    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    gone = f"test_webclip_{exited_pid()}_gw7"
    live = f"test_webclip_{os.getpid()}_gw97"  # a run in progress
    other = "test_webclip_keep_me"  # not a name the suite gives
    with connect_server() as server:
        for name in (gone, live, other):
            server.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        held = connect_server(gone)  # what a killed worker's connection does to a teardown
        try:
            dropped = drop_stale_test_databases()
            left = {row[0] for row in server.execute("SELECT datname FROM pg_database")}
        finally:
            held.close()
            for name in (gone, live, other):
                server.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
                )
    assert gone in dropped and gone not in left
    assert live in left and other in left
