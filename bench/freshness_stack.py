"""The moving parts of bench/freshness.py: a Webclip stack as processes, the sites it watches,
the SMTP server that receives its mail, and reading its database afterwards.

A stack is what `make run` starts (Procfile.dev: web, the crawl worker, the publish worker,
beat) on one of two configurations: the embedded defaults (SQLite, filesystem broker, file
cache, in a temporary WEBCLIP_VAR_DIR) or PostgreSQL and Redis (a dedicated database and
Redis db numbers, dropped and flushed here).
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sqlite3
import subprocess
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import psycopg
import redis
from aiosmtpd.controller import Controller

from tests.servers import free_port

ROOT_DIR = Path(__file__).resolve().parent.parent
PG_SERVER = "postgres://postgres@127.0.0.1:5432"
BENCH_DB = "webclip_bench_freshness"
REDIS_CACHE_DB, REDIS_BROKER_DB = 10, 11
QUEUES = ("crawl", "watch", "render", "publish", "celery")
# kombu's Redis transport keeps one list per priority step (0, 3, 6, 9) and queue.
_PRIORITY_SUFFIXES = ("", "\x06\x163", "\x06\x166", "\x06\x169")


# --- Mail -----------------------------------------------------------------------------------


class Inbox:
    """An aiosmtpd SMTP server in this process: every message with the time it arrived."""

    def __init__(self) -> None:
        self.port = free_port()
        self.received: list[tuple[float, list[str], bytes]] = []
        self.lock = threading.Lock()
        self._controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802 (aiosmtpd hook)
        with self.lock:
            self.received.append((time.time(), list(envelope.rcpt_tos), envelope.content))
        return "250 OK"

    def __enter__(self) -> Inbox:
        self._controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._controller.stop()

    def taken(self) -> list[tuple[float, list[str], bytes]]:
        with self.lock:
            return list(self.received)


# --- Sites ----------------------------------------------------------------------------------


class Counting(ThreadingHTTPServer):
    """A threaded server that counts the requests it answered."""

    daemon_threads = True
    request_queue_size = 64  # a crawl keeps up to 16 fetches in flight

    def __init__(self, handler) -> None:  # type: ignore[no-untyped-def]
        super().__init__(("127.0.0.1", 0), handler)
        self.requests = 0
        self.counter = threading.Lock()
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def finish_request(self, request, client_address) -> None:  # type: ignore[no-untyped-def]
        with self.counter:
            self.requests += 1
        super().finish_request(request, client_address)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"


class QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (stdlib signature)
        return


def serve_directory(directory: Path) -> Counting:
    """Serve a static site dump (the real blog) on 127.0.0.1."""
    return Counting(partial(QuietFiles, directory=str(directory)))


# --- The stack ------------------------------------------------------------------------------


@dataclass
class Stack:
    """One configuration's environment and the processes of Procfile.dev running on it."""

    name: str
    var_dir: Path
    env: dict[str, str]
    web_port: int
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)

    @property
    def postgres(self) -> bool:
        return self.env.get("DATABASE_URL", "").startswith("postgres")

    def manage(self, *args: str, extra_env: dict[str, str] | None = None) -> str:
        """Run manage.py with this stack's environment and return its output."""
        done = subprocess.run(
            [str(ROOT_DIR / ".venv/bin/python"), "manage.py", *args],
            cwd=ROOT_DIR,
            env={**self.env, **(extra_env or {})},
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {args[0]} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def start(self) -> None:
        """Start every Procfile.dev process but the demo, each in its own process group."""
        for line in (ROOT_DIR / "Procfile.dev").read_text().splitlines():
            name, _, command = line.partition(":")
            if not command.strip() or name.strip() == "demo":
                continue
            command = command.replace("127.0.0.1:8000", f"127.0.0.1:{self.web_port}")
            log = open(self.var_dir / f"{name.strip()}.log", "wb")  # noqa: SIM115 (lives with the process)
            self.processes[name.strip()] = subprocess.Popen(
                shlex.split(command),
                cwd=ROOT_DIR,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def stop(self) -> None:
        """Stop the processes as honcho does: SIGTERM, then SIGKILL after a grace period."""
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        for process in self.processes.values():
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def cpu_seconds(self, name: str) -> float:
        """Return the CPU seconds a process and its children (pool processes) used so far."""
        return tree_cpu(self.processes[name].pid)

    def queue_lengths(self) -> dict[str, int]:
        """Return the messages waiting in each Celery queue of this stack's broker."""
        if self.postgres:
            client = redis.Redis(host="127.0.0.1", port=6379, db=REDIS_BROKER_DB)
            return {q: sum(client.llen(q + s) for s in _PRIORITY_SUFFIXES) for q in QUEUES}
        folder = self.var_dir / "broker" / "queue"
        names = [p.name for p in folder.iterdir()] if folder.exists() else []
        return {q: sum(1 for n in names if n.partition(".")[2] == f"{q}.msg") for q in QUEUES}

    def query(self, sql: str) -> list[tuple]:
        """Run a read query on this stack's database."""
        if self.postgres:
            with psycopg.connect(f"{PG_SERVER}/{BENCH_DB}") as conn:
                return conn.execute(sql).fetchall()
        conn = sqlite3.connect(self.var_dir / "webclip.sqlite3", timeout=30)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()


def make_stack(name: str, smtp_port: int, var_dir: Path) -> Stack:
    """Return the environment of `make run` (embedded) or of PostgreSQL + Redis, cleaned."""
    web_port = free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "CACHE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "WEBCLIP_VAR_DIR": str(var_dir),
            # The WordNet data `make run` prepared (read-only, shared by both stacks).
            "WEBCLIP_NLTK_DATA": os.environ.get(
                "WEBCLIP_NLTK_DATA", str(ROOT_DIR / "var" / "nltk_data")
            ),
            "SITE_URL": f"http://127.0.0.1:{web_port}",
            "EMAIL_PROVIDER": "smtp",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(smtp_port),
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
    )
    if name == "postgres":
        with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {BENCH_DB}")
        for db in (REDIS_CACHE_DB, REDIS_BROKER_DB):
            redis.Redis(host="127.0.0.1", port=6379, db=db).flushdb()
        env.update(
            {
                "DATABASE_URL": f"{PG_SERVER}/{BENCH_DB}",
                "CACHE_URL": f"redis://127.0.0.1:6379/{REDIS_CACHE_DB}",
                "CELERY_BROKER_URL": f"redis://127.0.0.1:6379/{REDIS_BROKER_DB}",
            }
        )
    for folder in ("broker/queue", "broker/processed", "broker/control", "mailbox"):
        (var_dir / folder).mkdir(parents=True, exist_ok=True)
    return Stack(name, var_dir, env, web_port)


def drop_database() -> None:
    with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")


def tree_cpu(pid: int) -> float:
    """Return the CPU seconds (user + system) of `pid` and all its descendants."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        child = int(stat.parent.name)
        parents[child] = int(fields[1])
        times[child] = (int(fields[11]) + int(fields[12])) / tick
    total, wanted = 0.0, {pid}
    changed = True
    while changed:
        changed = False
        for child, parent in parents.items():
            if parent in wanted and child not in wanted:
                wanted.add(child)
                changed = True
    for member in wanted:
        total += times.get(member, 0.0)
    return total


def moment(value: object) -> datetime:
    """Return a database timestamp (SQLite text or PostgreSQL datetime) as aware UTC."""
    stamp = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


# --- Setting up people, lists and sites -----------------------------------------------------

SETUP = """
import json, os
from datetime import timedelta
from allauth.account.models import EmailAddress
from accounts.models import User
from clipping.models import KeywordList
from crawler.models import Site

spec = json.loads(os.environ["BENCH_SPEC"])
people = {}
for person in spec["people"]:
    user = User.objects.create_user(
        email=person["email"], password="bench-only-password",
        instant_mails_per_hour=person.get("cap"),
    )
    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    for name, terms in person["lists"]:
        KeywordList.objects.create(owner=user, name=name, terms=terms, use_synonyms=False)
    people[user.email] = user
sites = {}
for entry in spec["sites"]:
    seconds = {k: timedelta(seconds=v) for k, v in entry.pop("durations").items()}
    subscribers = entry.pop("subscribers")
    site = Site.objects.create(**entry, **seconds, visibility="private",
                               allow_private_network=True)
    site.subscribers.set([people[email] for email in subscribers])
    sites[site.name] = site.id
print(json.dumps(sites))
"""


def set_up(stack: Stack, spec: dict[str, object]) -> dict[str, int]:
    """Create the people, their lists and the watched sites; return site name -> id."""
    out = stack.manage("shell", "-c", SETUP, extra_env={"BENCH_SPEC": json.dumps(spec)})
    return json.loads(out.strip().splitlines()[-1])
