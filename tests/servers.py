"""Real servers the tests talk to: SMTP sinks, Celery worker threads, the PostgreSQL server.

HTTP sites for the crawler live in tests/crawler/servers.py.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import TYPE_CHECKING

from aiosmtpd.controller import Controller

if TYPE_CHECKING:
    import psycopg


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- SMTP ----------------------------------------------------------------------------------------


@dataclass
class SMTPSink:
    """An in-process SMTP server that keeps every message it accepts."""

    host: str
    port: int
    messages: list[EmailMessage] = field(default_factory=list)
    # Programmable faults: a list of SMTP replies to give to the next DATA commands (e.g. "421 ...").
    scripted_replies: list[str] = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802 (aiosmtpd hook name)
        if self.scripted_replies:
            return self.scripted_replies.pop(0)
        message = message_from_bytes(envelope.content, policy=policy.default)
        self.messages.append(message)  # type: ignore[arg-type]
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if address in str(m["To"])]


@dataclass
class FaultySMTP(SMTPSink):
    """The SMTP sink plus faults: "DROP" closes the connection, "STALL" never answers in time."""

    stall_seconds: float = 3.0
    attempts: int = 0
    rcpt_replies: dict[str, str] = field(default_factory=dict)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options) -> str:  # noqa: N802
        reply = self.rcpt_replies.get(address)
        if reply:
            return reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802
        self.attempts += 1
        if self.scripted_replies and self.scripted_replies[0] == "DROP":
            self.scripted_replies.pop(0)
            server.transport.close()
            return "421 closing"
        if self.scripted_replies and self.scripted_replies[0] == "STALL":
            self.scripted_replies.pop(0)
            await asyncio.sleep(self.stall_seconds)  # the client gave up: the message is dropped
            return "451 too slow"
        return await super().handle_DATA(server, session, envelope)


@contextmanager
def serving_smtp(sink: SMTPSink, settings, *, timeout: float) -> Iterator[SMTPSink]:
    """Serve `sink` on its port and point Django's SMTP backend (pytest-django `settings`) at it."""
    controller = Controller(sink, hostname=sink.host, port=sink.port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = sink.host
    settings.EMAIL_PORT = sink.port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
    settings.EMAIL_TIMEOUT = timeout
    try:
        yield sink
    finally:
        controller.stop()


# --- Celery --------------------------------------------------------------------------------------


@contextmanager
def task_routes(routes: dict[str, dict[str, str]]) -> Iterator[None]:
    """Route tasks by `routes` in this process, then put the configured routes back.

    Celery caches its route table and router on first use: both are rebuilt each way.
    """
    from config.celery_app import app

    def reroute(table: object) -> None:
        app.conf.task_routes = table
        app.amqp.flush_routes()
        app.amqp.router = app.amqp.Router()

    saved = app.conf.task_routes
    reroute(routes)
    try:
        yield
    finally:
        reroute(saved)


@contextmanager
def queue_worker(tasks: str, prefix: str) -> Iterator[str]:
    """A Celery worker thread on a queue of this test process's own, which `tasks` are routed to.

    `tasks` is a route pattern such as "crawler.tasks.*"; yields the queue's name.
    """
    from celery.contrib.testing.worker import start_worker

    from config.celery_app import app

    queue = f"{prefix}-{os.getpid()}"
    with (
        task_routes({tasks: {"queue": queue}}),
        start_worker(
            app, pool="solo", queues=[queue], perform_ping_check=False, loglevel="WARNING"
        ),
    ):
        yield queue


# --- PostgreSQL ----------------------------------------------------------------------------------

# config/settings.py names each test process's database after its pid (pytest-django adds the
# xdist worker); the name never recurs, so one left behind is never dropped by a later run.
_TEST_DATABASE = re.compile(r"test_webclip_(\d+)(?:_gw\d+)?")


def drop_stale_test_databases() -> list[str]:
    """Drop this machine's test databases whose process has exited; return their names.

    A teardown that loses a race against a worker subprocess's connection ("database is being
    accessed by other users") leaves its database behind; runs in progress keep theirs.
    """
    from django.conf import settings

    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        return []
    import psycopg
    from psycopg import sql

    dropped = []
    with connect_server() as connection:
        rows = connection.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE 'test\\_webclip\\_%'"
        ).fetchall()
        for (name,) in rows:
            found = _TEST_DATABASE.fullmatch(name)
            if found is None or _process_alive(int(found.group(1))):
                continue
            try:
                connection.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
                )
            except psycopg.Error:
                continue  # another run dropped it meanwhile
            dropped.append(name)
    return dropped


def connect_server(dbname: str = "postgres") -> psycopg.Connection:
    """Connect, in autocommit, to a database on the tests' PostgreSQL server."""
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    params = {
        "host": db["HOST"],
        "port": db["PORT"],
        "user": db["USER"],
        "password": db["PASSWORD"],
    }
    return psycopg.connect(dbname=dbname, autocommit=True, **{k: v for k, v in params.items() if v})


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def clear_own_keys(cache) -> None:
    """Clear this process's keys only (`_own_cache_keys`): Redis's clear() empties the whole
    database the other workers use too."""
    client = getattr(getattr(cache, "_cache", None), "get_client", None)
    if client is None:
        cache.clear()
        return
    redis = client(write=True)
    keys = list(redis.scan_iter(match=f"{cache.key_prefix}:*", count=1000))
    if keys:
        redis.delete(*keys)
