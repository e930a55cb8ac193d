"""Benchmark the web app under gunicorn: 50 logged-in clients browsing on 100,000 clips.

The app runs as in production (DEBUG=0, manifest static files, PostgreSQL, Redis cache,
persistent database connections) in a dedicated database, "webclip_bench_web" on
127.0.0.1:5432, created, seeded (web_load_seed.py: 1,000 users, 100,000 clips, about 200,000
matches, Zipf over users) and dropped here. Plain HTTP on 127.0.0.1, so the HTTPS redirect,
HSTS and secure cookies are off.

Clients are asyncio tasks with httpx, each logged in through the real login form (5 of them
staff). Each browses like a person: a page, then a pause (--think seconds on average,
uniform from 0 to twice that; --think 0 makes it a saturation test): their dashboard, My
clips (newest, older pages, filtered by list, by site, searched), their Atom feed; staff
also the operator dashboard and the progress JSON it polls.

Server: gunicorn gthread, --workers 3 --threads 4 by default. Two cores: three processes keep
both cores busy while one waits on PostgreSQL (which shares the cores), and four threads per
process overlap those waits and keep 50 keep-alive connections without 50 processes.

Target: p95 < 200 ms and zero errors, per page kind and overall; the last line says
PASS or FAIL. Before the load, queries per page are counted in-process for the lightest and the
heaviest user: equal counts mean no query grows with the clips on a page. The server's CPU per
request (gunicorn workers) and PostgreSQL's busy time are printed too: unlike latency they
hardly change when other work shares the machine.

Usage: .venv/bin/python bench/web_load.py [--duration 60] [--clients 50] [--think 1.0]
       [--workers 3] [--threads 4] [--users 1000] [--clips 100000] [--keep-db]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import httpx
import psycopg

ROOT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.web_load_seed import PASSWORD, Person, Seeded, seed  # noqa: E402
from tests.servers import free_port  # noqa: E402

BENCH_DB = "webclip_bench_web"
SERVER = "postgres://postgres@127.0.0.1:5432"
TARGET_P95_MS = 200.0
USER_PAGES = {
    "dashboard": 15,
    "clips": 20,
    "clips_page": 10,
    "clips_list": 10,
    "clips_site": 10,
    "clips_search": 15,
    "feed": 20,
}
STAFF_PAGES = {"ops": 30, "ops_progress": 40, "dashboard": 10, "clips": 10, "feed": 10}


def production_env(port: int, static_root: str, var_dir: str) -> dict[str, str]:
    """Return the environment of a production deployment on plain HTTP at 127.0.0.1."""
    return {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "0",
        "SECRET_KEY": "bench-only-" + "x" * 50,
        "ALLOWED_HOSTS": "127.0.0.1,testserver",
        "SITE_URL": f"http://127.0.0.1:{port}",
        "DATABASE_URL": f"{SERVER}/{BENCH_DB}",
        "CACHE_URL": "redis://127.0.0.1:6379/7",
        "CACHE_KEY_PREFIX": "webclip-bench",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/6",
        "EMAIL_PROVIDER": "smtp",
        "DEFAULT_FROM_EMAIL": "Webclip <bench@example.com>",
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_HSTS_SECONDS": "0",
        "SESSION_COOKIE_SECURE": "0",
        "CSRF_COOKIE_SECURE": "0",
        "STATIC_ROOT": static_root,
        "WEBCLIP_VAR_DIR": var_dir,
        "RATE_LIMIT_LOGIN": "10000/m/ip",  # 50 logins from one address in a few seconds
        "LOG_LEVEL": "WARNING",
    }


def recreate_database(drop_only: bool = False) -> None:
    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        if not drop_only:
            conn.execute(f"CREATE DATABASE {BENCH_DB}")


def prepare(args: argparse.Namespace) -> Seeded:
    """Migrate, collect static files and seed, in this process, with the production env."""
    import django
    from django.core.cache import cache
    from django.core.management import call_command

    django.setup()
    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    call_command("collectstatic", verbosity=0, interactive=False)
    cache.clear()
    migrated = time.perf_counter()
    seeded = seed(args.users, args.clips, args.sites, args.runs)
    done = time.perf_counter()
    sizes = ", ".join(f"{n:,} {name}" for name, n in seeded.counts.items())
    print(
        f"setup: migrate + collectstatic {migrated - started:.1f} s, seed {done - migrated:.1f} s"
    )
    print(f"data: {sizes}")
    return seeded


def page_url(kind: str, person: Person, rng: random.Random) -> str:
    """Return a URL of the kind of page, for this person."""
    from bench.web_load_seed import WORDS

    match kind:
        case "dashboard":
            return "/dashboard/"
        case "clips":
            return "/clips/"
        case "clips_page":
            # People page back a few pages, rarely far: 2 to 10, fewer if they have fewer.
            pages = max(2, min(person.matches // 20, 10))
            return f"/clips/?page={rng.randint(2, pages)}"
        case "clips_list":
            return f"/clips/?list={rng.choice(person.list_ids)}"
        case "clips_site":
            return f"/clips/?site={rng.choice(sorted(person.site_ids))}"
        case "clips_search":
            # Mostly a word the clips use; sometimes two, or one no clip has (the whole set read).
            roll = rng.random()
            if roll < 0.15:
                return f"/clips/?q=zq{rng.randint(1000, 9999)}"
            if roll < 0.3:
                return f"/clips/?q={rng.choice(WORDS)}+{rng.choice(WORDS)[:4]}"
            return f"/clips/?q={rng.choice(WORDS)}"
        case "feed":
            return f"/feed/{person.feed_token}/"
        case "ops":
            return rng.choice(["/ops/", "/ops/?page=2"])
        case "ops_progress":
            return "/ops/progress.json"
    raise ValueError(kind)


def count_queries(people: list[Person]) -> None:
    """Print the SQL queries each page kind makes for the lightest and the heaviest user."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from accounts.models import User

    users = [p for p in people if p.site_ids]
    light, heavy = min(users, key=lambda p: p.matches), max(users, key=lambda p: p.matches)
    staff = next(p for p in people if p.staff)
    rng = random.Random(1)
    print("queries per page (lightest user / heaviest user):")
    for kind in USER_PAGES | STAFF_PAGES:
        counts = []
        for person in (
            (light, heavy) if kind not in STAFF_PAGES or kind in USER_PAGES else (staff, staff)
        ):
            client = Client()
            client.force_login(User.objects.get(id=person.id))
            with CaptureQueriesContext(connection) as queries:
                status = client.get(page_url(kind, person, rng)).status_code
            assert status == 200, (kind, status)
            counts.append(len(queries))
        note = f"{light.matches} vs {heavy.matches} matches" if kind in USER_PAGES else "staff"
        print(f"  {kind:13s} {counts[0]:3d} / {counts[1]:3d}   ({note})")


def server_cpu(master_pid: int) -> tuple[float, float]:
    """Return CPU ms used so far by gunicorn's workers, and ms PostgreSQL spent busy in BENCH_DB."""
    tick = os.sysconf("SC_CLK_TCK")
    app = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        if int(fields[1]) == master_pid:  # ppid; utime and stime follow at 11 and 12
            app += (int(fields[11]) + int(fields[12])) * 1000 / tick
    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        (db,) = conn.execute(
            "SELECT active_time FROM pg_stat_database WHERE datname = %s", [BENCH_DB]
        ).fetchone()
    return app, float(db)


def start_server(args: argparse.Namespace, env: dict[str, str], port: int) -> subprocess.Popen:
    command = [
        str(ROOT_DIR / ".venv/bin/gunicorn"),
        "config.wsgi",
        f"--bind=127.0.0.1:{port}",
        f"--workers={args.workers}",
        "--worker-class=gthread",
        f"--threads={args.threads}",
        "--timeout=30",
        "--keep-alive=30",
        "--log-level=warning",
    ]
    server = subprocess.Popen(command, cwd=ROOT_DIR, env={**os.environ, **env})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code == 200:
                return server
        except httpx.TransportError:
            pass
        if server.poll() is not None:
            raise SystemExit("gunicorn exited before serving")
        time.sleep(0.2)
    server.terminate()
    raise SystemExit("gunicorn did not answer within 30 s")


async def log_in(client: httpx.AsyncClient, email: str) -> None:
    form = await client.get("/accounts/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text).group(1)
    response = await client.post(
        "/accounts/login/",
        data={"csrfmiddlewaretoken": token, "login": email, "password": PASSWORD},
    )
    if response.status_code != 302 or "sessionid" not in client.cookies:
        raise SystemExit(f"login of {email} failed: HTTP {response.status_code}")


async def browse(
    person: Person,
    client: httpx.AsyncClient,
    deadline: float,
    think: float,
    results: list[tuple[str, float, bool]],
    errors: list[str],
    rng: random.Random,
) -> None:
    """Browse as one person until the deadline, recording each page's latency and outcome."""
    mix = STAFF_PAGES if person.staff else USER_PAGES
    kinds, weights = list(mix), list(mix.values())
    await asyncio.sleep(rng.uniform(0, 2 * think))  # do not start in lockstep
    while time.monotonic() < deadline:
        kind = rng.choices(kinds, weights)[0]
        url = page_url(kind, person, rng)
        started = time.perf_counter()
        try:
            response = await client.get(url)
            ok = response.status_code == 200
            if not ok:
                errors.append(f"{url}: HTTP {response.status_code}")
        except httpx.HTTPError as exc:
            ok = False
            errors.append(f"{url}: {type(exc).__name__}: {exc}")
        results.append((kind, time.perf_counter() - started, ok))
        if think:
            await asyncio.sleep(rng.uniform(0, 2 * think))


async def measured(
    people: list[Person], base: str, args: argparse.Namespace, server_pid: int
) -> tuple[list[tuple[str, float, bool]], list[str], float]:
    """Log every client in, then browse for the duration; return samples, errors and seconds."""
    rng = random.Random(11)
    staff = [p for p in people if p.staff]
    readers = sorted((p for p in people if not p.staff and p.site_ids), key=lambda p: -p.matches)
    # The heaviest readers always browse (their pages are the slow ones if any), then a sample.
    chosen = staff + readers[:5] + rng.sample(readers[5:], args.clients - len(staff) - 5)
    clients = [
        httpx.AsyncClient(base_url=base, timeout=30, limits=httpx.Limits(max_connections=1))
        for _ in chosen
    ]
    results: list[tuple[str, float, bool]] = []
    errors: list[str] = []
    try:
        started = time.monotonic()
        # A login hashes the password (PBKDF2, a million rounds): a few at a time, not 50.
        gate = asyncio.Semaphore(args.workers)

        async def gated_log_in(client: httpx.AsyncClient, email: str) -> None:
            async with gate:
                await log_in(client, email)

        await asyncio.gather(
            *(gated_log_in(c, p.email) for c, p in zip(clients, chosen, strict=True))
        )
        print(
            f"{len(chosen)} clients logged in through the login form in {time.monotonic() - started:.1f} s"
        )
        cpu_before = server_cpu(server_pid)
        started = time.monotonic()
        deadline = started + args.duration
        await asyncio.gather(
            *(
                browse(p, c, deadline, args.think, results, errors, random.Random(i))
                for i, (c, p) in enumerate(zip(clients, chosen, strict=True))
            )
        )
        seconds = time.monotonic() - started
        app_ms, db_ms = (
            after - before for after, before in zip(server_cpu(server_pid), cpu_before, strict=True)
        )
        # CPU, unlike latency, hardly depends on what else the machine runs: with the demand
        # (requests/s) it tells whether two quiet cores can hold the target.
        print(
            f"server cost per request: {app_ms / max(len(results), 1):.1f} ms gunicorn CPU, "
            f"{db_ms / max(len(results), 1):.1f} ms PostgreSQL busy (wall) "
            f"-> {(app_ms + db_ms) / 1000 / seconds:.2f} cores at this load"
        )
        return results, errors, seconds
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))


def percentile(values: list[float], q: float) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[q - 1]
        if len(values) > 1
        else values[0]
    )


def report(results: list[tuple[str, float, bool]], errors: list[str], seconds: float) -> bool:
    by_kind: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for kind, latency, ok in results:
        by_kind[kind].append((latency, ok))
    print(
        f"\n{'page':14s} {'requests':>8s} {'p50 ms':>8s} {'p95 ms':>8s} {'max ms':>8s} {'errors':>6s}"
    )
    rows = sorted(by_kind.items()) + [("overall", [(lat, ok) for _, lat, ok in results])]
    worst = 0.0
    for kind, samples in rows:
        ms = [lat * 1000 for lat, _ in samples]
        failed = sum(1 for _, ok in samples if not ok)
        p95 = percentile(ms, 95)
        worst = max(worst, p95)
        print(
            f"{kind:14s} {len(ms):8d} {percentile(ms, 50):8.1f} {p95:8.1f} {max(ms):8.1f} {failed:6d}"
        )
    total_errors = sum(1 for *_, ok in results if not ok)
    print(f"\nthroughput: {len(results) / seconds:.1f} requests/s over {seconds:.0f} s")
    print(
        f"target p95 < {TARGET_P95_MS:.0f} ms: worst page p95 {worst:.1f} ms "
        f"(ratio {worst / TARGET_P95_MS:.2f} of the target) -> {'met' if worst < TARGET_P95_MS else 'MISSED'}"
    )
    print(f"target zero errors: {total_errors} errors -> {'met' if not total_errors else 'MISSED'}")
    for line in errors[:10]:
        print(f"  error: {line}")
    passed = worst < TARGET_P95_MS and not total_errors
    print("PASS" if passed else "FAIL")
    return passed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of browsing")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--think", type=float, default=1.0, help="mean pause between pages, s")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--clips", type=int, default=100_000)
    parser.add_argument("--sites", type=int, default=20)
    parser.add_argument("--runs", type=int, default=40, help="finished crawl runs per site")
    parser.add_argument("--keep-db", action="store_true", help="leave the database for EXPLAIN")
    args = parser.parse_args()
    if args.clients < 10:
        parser.error("--clients must be at least 10 (5 staff and 5 heavy readers)")

    port = free_port()
    workdir = tempfile.TemporaryDirectory(prefix="webclip-bench-")
    env = production_env(port, f"{workdir.name}/static", f"{workdir.name}/var")
    os.environ.update(env)
    recreate_database()
    server = None
    passed = False
    try:
        seeded = prepare(args)
        count_queries(seeded.people)
        from django.db import connections

        connections.close_all()
        server = start_server(args, env, port)
        print(
            f"\ngunicorn gthread {args.workers} workers x {args.threads} threads; "
            f"{args.clients} clients, think {args.think:.1f} s mean, {args.duration:.0f} s"
        )
        passed = report(
            *asyncio.run(measured(seeded.people, f"http://127.0.0.1:{port}", args, server.pid))
        )
    finally:
        if server is not None:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
        from django.db import connections

        connections.close_all()
        if not args.keep_db:
            recreate_database(drop_only=True)
        workdir.cleanup()
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
