"""Start every process the systemd units and the Procfile declare, briefly, and check each one works.

The commands are read from the files as written (not copied here), so a unit that names a
missing program, option or queue fails this check. Each one runs from this checkout instead of
/opt/webclip, with the environment of deploy/webclip.env.example pointed at local services:

- a web process must answer GET / with 200 and serve a static file,
- a Celery worker must report "ready" on exactly the queues its unit names,
- beat must start its scheduler,
- then each gets SIGTERM (what systemd sends) and must exit within its TimeoutStopSec.

Usage: .venv/bin/python deploy/check_units.py [--database-url URL] [--broker-url URL]
Exit status 0 when every process passed. Needs PostgreSQL and Redis like `make test` does.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTALLED_AT = "/opt/webclip"
START_TIMEOUT = 60.0
RUN_FOR = 5.0


def unit_commands(unit: Path) -> tuple[list[str], list[str], dict[str, str]]:
    """Return a unit's ExecStartPre lines, its ExecStart line and its Environment= values."""
    pre: list[str] = []
    start: list[str] = []
    env: dict[str, str] = {}
    for line in unit.read_text().splitlines():
        key, _, value = line.partition("=")
        if key == "ExecStartPre":
            pre.append(value)
        elif key == "ExecStart":
            start.append(value)
        elif key == "Environment":
            env.update(item.split("=", 1) for item in shlex.split(value))
    if len(start) != 1:
        raise SystemExit(f"{unit.name}: expected one ExecStart, found {len(start)}")
    return pre, start, env


def systemd_argv(command: str, env: dict[str, str]) -> list[str]:
    """Expand a command line as systemd does: %% is %, ${VAR} and $VAR from the environment."""
    expanded = re.sub(
        r"\$\{(\w+)\}|\$(\w+)", lambda m: env.get(m.group(1) or m.group(2), ""), command
    )
    argv = shlex.split(expanded.replace("%%", "%"))
    return [arg.replace(INSTALLED_AT, str(ROOT)) for arg in argv]


def env_file(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(check, process: subprocess.Popen, log: Path, what: str) -> str:
    """Poll check() until it returns a truthy note; fail if the process dies or time runs out."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        note = check()
        if note:
            return note
        if process.poll() is not None:
            raise AssertionError(f"exited with {process.returncode} before {what}:\n{tail(log)}")
        time.sleep(0.5)
    raise AssertionError(f"no {what} within {START_TIMEOUT:.0f} s:\n{tail(log)}")


def tail(log: Path, lines: int = 15) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 (our own server)
            return response.status == 200
    except OSError:
        return False


def check_process(
    name: str, argv: list[str], env: dict[str, str], workdir: Path, stop_timeout: float = 90.0
) -> str:
    """Start one process, check it does its job, stop it with SIGTERM; return what was seen."""
    log = workdir / f"{name}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        if argv[0].endswith("gunicorn"):
            bind = next(a for a in argv if re.fullmatch(r"[\d.]+:\d+", a))
            base = f"http://127.0.0.1:{bind.rsplit(':', 1)[1]}"
            seen = wait_for(lambda: http_ok(base + "/") and "GET / 200", process, log, "GET / 200")
            static = re.search(r'href="(/static/[^"]+\.css)"', fetch(base + "/"))
            assert static and http_ok(base + static.group(1)), "static files are not served"
            seen += f", {static.group(1)} 200"
        elif "beat" in argv:
            seen = wait_for(
                lambda: "Starting..." in log.read_text(errors="replace") and "scheduler started",
                process,
                log,
                "the scheduler",
            )
        else:
            queues = argv[argv.index("-Q") + 1].split(",")
            seen = wait_for(
                lambda: " ready." in log.read_text(errors="replace") and "ready",
                process,
                log,
                "worker ready",
            )
            listed = log.read_text(errors="replace")
            missing = [q for q in queues if not re.search(rf"\.> {re.escape(q)}\s", listed)]
            assert not missing, f"not consuming from {missing}:\n{tail(log, 30)}"
            seen += " on " + ",".join(queues)
        time.sleep(RUN_FOR)  # let it work a little (beat sends its first due tasks)
        assert process.poll() is None, f"exited with {process.returncode}:\n{tail(log)}"
        os.killpg(process.pid, signal.SIGTERM)
        started = time.monotonic()
        process.wait(timeout=stop_timeout)
        return (
            f"{seen}; stopped by SIGTERM in {time.monotonic() - started:.1f} s "
            f"(exit {process.returncode})"
        )
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 (our own server)
        return response.read().decode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/webclip_check_units"
    )
    parser.add_argument("--broker-url", default="redis://127.0.0.1:6379/9")
    parser.add_argument("--cache-url", default="redis://127.0.0.1:6379/8")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="webclip-units-"))
    env = {
        **os.environ,
        **env_file(ROOT / "deploy/webclip.env.example"),
        # Local services and plain HTTP instead of the example's hosts.
        "DATABASE_URL": args.database_url,
        "CACHE_URL": args.cache_url,
        "CELERY_BROKER_URL": args.broker_url,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SITE_URL": "http://127.0.0.1:8000",
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_PROXY_SSL_HEADER": "0",
        "SESSION_COOKIE_SECURE": "0",
        "CSRF_COOKIE_SECURE": "0",
        "STATIC_ROOT": str(workdir / "static"),
        "WEBCLIP_VAR_DIR": str(workdir / "var"),
        "WEBCLIP_NLTK_DATA": str(ROOT / "var/nltk_data"),
        "PATH": f"{ROOT / '.venv/bin'}:{os.environ.get('PATH', '')}",
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    own_database = args.database_url.rsplit("/", 1)[1] == "webclip_check_units"
    if own_database:
        create_database(args.database_url)

    failures = 0
    # Oneshot units (migrations) first, as a release runs them before starting the rest.
    units = sorted(
        (ROOT / "deploy/systemd").glob("*.service"),
        key=lambda unit: ("Type=oneshot" not in unit.read_text(), unit.name),
    )
    for unit in units:
        pre, (start,), unit_env = unit_commands(unit)
        run_env = {**unit_env, **env}  # EnvironmentFile= overrides Environment=, as in systemd
        try:
            for command in pre:
                subprocess.run(
                    systemd_argv(command, run_env),
                    cwd=ROOT,
                    env=run_env,
                    check=True,
                    capture_output=True,
                )
            argv = systemd_argv(start, run_env)
            if "Type=oneshot" in unit.read_text():
                subprocess.run(argv, cwd=ROOT, env=run_env, check=True, capture_output=True)
                print(f"PASS {unit.name}: ran to completion")
                continue
            if argv[0].endswith("gunicorn"):
                argv = [a.replace("127.0.0.1:8000", f"127.0.0.1:{free_port()}") for a in argv]
            stop = re.search(r"^TimeoutStopSec=(\d+)$", unit.read_text(), re.MULTILINE)
            note = check_process(
                unit.stem, argv, run_env, workdir, float(stop.group(1)) if stop else 90.0
            )
            print(f"PASS {unit.name}: {note}")
        except (AssertionError, subprocess.SubprocessError, OSError) as exc:
            failures += 1
            detail = getattr(exc, "stderr", b"") or b""
            print(f"FAIL {unit.name}: {exc} {detail.decode(errors='replace')[-2000:]}")

    for name, command in procfile_entries(ROOT / "Procfile"):
        proc_env = {**env, "PORT": str(free_port())}
        try:
            if name == "release":
                subprocess.run(
                    ["sh", "-c", command], cwd=ROOT, env=proc_env, check=True, capture_output=True
                )
                print(f"PASS Procfile {name}: ran to completion")
                continue
            note = check_process(
                f"procfile-{name}", procfile_argv(command, proc_env), proc_env, workdir
            )
            print(f"PASS Procfile {name}: {note}")
        except (AssertionError, subprocess.SubprocessError, OSError) as exc:
            failures += 1
            print(f"FAIL Procfile {name}: {exc}")
    print("PASS" if not failures else f"FAIL ({failures})")
    shutil.rmtree(workdir, ignore_errors=True)
    if own_database:
        create_database(args.database_url, drop_only=True)
    return 1 if failures else 0


def procfile_argv(command: str, env: dict[str, str]) -> list[str]:
    """Expand a Procfile line as sh would (${VAR:-default}, $VAR) and find its program on PATH."""
    expanded = re.sub(
        r"\$\{(\w+)(?::-([^}]*))?\}|\$(\w+)",
        lambda m: env.get(m.group(1) or m.group(3)) or m.group(2) or "",
        command,
    )
    argv = shlex.split(expanded)
    venv_program = ROOT / ".venv/bin" / argv[0]
    return [str(venv_program) if venv_program.exists() else argv[0], *argv[1:]]


def procfile_entries(path: Path) -> list[tuple[str, str]]:
    entries = []
    for line in path.read_text().splitlines():
        if ":" in line and not line.lstrip().startswith("#"):
            name, command = line.split(":", 1)
            entries.append((name.strip(), command.strip()))
    return entries


def create_database(url: str, drop_only: bool = False) -> None:
    """(Re)create this check's own database, or drop it."""
    import psycopg

    server, name = url.rsplit("/", 1)
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        if not drop_only:
            conn.execute(f"CREATE DATABASE {name}")


if __name__ == "__main__":
    sys.exit(main())
