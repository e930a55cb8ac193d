"""Probe a running Webclip from outside, the way an attacker would, and print PASS/FAIL per row.

Five tables:
- ssrf: the crawler's fetcher asked for addresses it must refuse (private, loopback, link-local
  and cloud metadata, in every spelling: decimal, hex, short, IPv4-mapped and NAT64 IPv6, a name
  resolving to loopback), directly and through a redirect from a site that may reach its own
  private origin. Listeners on the loopback targets count connections: a row passes when the
  fetch is refused as "ssrf" and nothing connected. The site's own origin must still answer.
- egress: Chromium renders a hostile page through the crawler's render path; a listener on
  other loopback addresses counts connections per vector (navigation, iframe, img, fetch, XHR,
  WebSocket, preconnect, service worker, meta refresh, form auto-submit). Pass: 0 each.
- login: the allauth login and the admin login refuse the right password after 5 wrong ones for
  that address, also when every attempt forges another X-Forwarded-For; a control row shows the
  right password is accepted when nothing was tried before.
- enumeration: sign-up with a taken address and with a new one, interleaved, --tries each;
  pass when the medians differ by at most 50 ms and status and redirect are the same.

The instance runs as in production: gunicorn (gthread), DEBUG off, a throwaway SQLite
database, the shared Redis cache on 127.0.0.1:6379 (database 8) for rate limits, mail to an
SMTP server in this process (aiosmtpd), real password hashing. Only the per-address login
limit is tested, so the per-IP limit is raised (RATE_LIMIT_LOGIN_FAILED=1000/m/ip,5/5m/key)
and sign-ups are not limited.

- surfaces: one row or more per class of defect on the surfaces people reach (the local
  mailbox, WebRTC's UDP, origins, quotas, body limits, previews, channels, refusal words),
  in this process against a throwaway database (bench/security_surfaces.py).

Usage: .venv/bin/python bench/security_probe.py [--tries 200]
       [--only ssrf,egress,login,enumeration,surfaces]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx

ROOT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.security_surfaces import surface_rows  # noqa: E402

PASSWORD = "correct horse battery staple 42"
TIMING_LIMIT_MS = 50.0


@dataclass
class Row:
    table: str
    name: str
    passed: bool
    detail: str


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class Listener:
    """A TCP listener that counts the connections it accepts (and answers nothing)."""

    def __init__(self, host: str, port: int | None = None) -> None:
        self.sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port or 0))
        self.sock.listen(64)
        self.sock.settimeout(0.2)
        self.host, self.port = host, self.sock.getsockname()[1]
        self.accepted = 0
        self._stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self.sock.close()


# --- ssrf --------------------------------------------------------------------------------------


def ssrf_rows() -> list[Row]:
    from crawler.fetch import ErrorKind, Fetcher, FetchPolicy, SiteRules

    listeners = [Listener("127.0.0.2"), Listener("127.0.0.1")]
    with contextlib.suppress(OSError):
        listeners.append(Listener("::1"))
    other_port, loop2 = listeners[1], listeners[0]
    loop6 = listeners[2] if len(listeners) > 2 else None

    class Site(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            query = parse_qs(urlsplit(self.path).query)
            if "to" in query:
                self.send_response(302)
                self.send_header("Location", query["to"][0])
                self.end_headers()
                return
            body = b"<html><body><p>The site's own page.</p></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    p2 = loop2.port
    targets = {
        "loopback, another address": f"http://127.0.0.2:{p2}/",
        "loopback, the site's host on another port": f"http://127.0.0.1:{other_port.port}/",
        "loopback as decimal": f"http://2130706434:{p2}/",
        "loopback as hex": f"http://0x7f000002:{p2}/",
        "loopback, short form": f"http://127.2:{p2}/",
        "loopback as IPv4-mapped IPv6": f"http://[::ffff:127.0.0.2]:{p2}/",
        "a name resolving to loopback": f"http://localhost:{other_port.port}/",
        "unspecified 0.0.0.0": f"http://0.0.0.0:{other_port.port}/",
        "private 10/8": "http://10.0.0.1/",
        "private 172.16/12": "http://172.16.0.1/",
        "private 192.168/16": "http://192.168.0.1/",
        "carrier-grade NAT 100.64/10": "http://100.64.0.1/",
        "cloud metadata 169.254.169.254": "http://169.254.169.254/latest/meta-data/",
        "metadata as IPv4-mapped IPv6": "http://[::ffff:169.254.169.254]/",
        "metadata through NAT64": "http://[64:ff9b::a9fe:a9fe]/",
        "metadata through 6to4": "http://[2002:a9fe:a9fe::1]/",
        "IPv6 link-local": "http://[fe80::1]/",
        "IPv6 unique local": "http://[fd00::1]/",
    }
    if loop6 is not None:
        targets["IPv6 loopback"] = f"http://[::1]:{loop6.port}/"

    policy = FetchPolicy(connect_timeout=2.0, read_timeout=2.0, total_timeout=4.0, retries=0)
    plain = SiteRules(crawl_delay=0, obey_robots=False)
    flagged = SiteRules(
        crawl_delay=0, obey_robots=False, allow_private_network=True, private_origins=(origin,)
    )

    async def run() -> list[Row]:
        rows = []
        async with Fetcher(policy) as fetcher:
            own = await fetcher.fetch(origin + "/", flagged)
            rows.append(
                Row(
                    "ssrf",
                    "control: a flagged site reaches its own origin",
                    own.error is None and own.status == 200,
                    f"status {own.status}, error {own.error}",
                )
            )
            for name, url in targets.items():
                for how, rules, asked in (
                    ("direct", plain, url),
                    ("direct, flagged site", flagged, url),
                    ("redirect from the flagged site", flagged, f"{origin}/go?to={url}"),
                ):
                    before = sum(x.accepted for x in listeners)
                    result = await fetcher.fetch(asked, rules)
                    time.sleep(0.05)  # let a listener count a connection that did happen
                    connected = sum(x.accepted for x in listeners) - before
                    refused = result.error is not None and result.error.kind in {
                        ErrorKind.SSRF,
                        ErrorKind.URL,
                    }
                    rows.append(
                        Row(
                            "ssrf",
                            f"{name} ({how})",
                            refused and connected == 0,
                            f"{result.error or result.status}; connections {connected}",
                        )
                    )
        return rows

    try:
        return asyncio.run(run())
    finally:
        server.shutdown()
        for listener in listeners:
            listener.close()


# --- egress ------------------------------------------------------------------------------------


def egress_rows() -> list[Row]:
    from tests.crawler.egress_probe import run_egress_probe

    report = run_egress_probe()
    rows = [
        Row(
            "egress",
            f"{vector}: no connection to refused addresses",
            connections == 0,
            f"connections {connections}; the site's own script and data loaded: "
            f"{report.own_loaded(vector)}",
        )
        for vector, connections in report.by_vector().items()
    ]
    loaded = [vector for vector in report.by_vector() if report.own_loaded(vector)]
    rows.append(
        Row(
            "egress",
            "control: the site's own subresources still load on every probe page",
            len(loaded) == len(rows),
            f"{len(loaded)} of {len(rows)} vectors",
        )
    )
    return rows


# --- the instance ------------------------------------------------------------------------------


class Instance:
    """Webclip under gunicorn with production settings, a throwaway database and mail to us."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        class Sink:
            def __init__(self) -> None:
                self.recipients: list[str] = []

            async def handle_DATA(self, server, session, envelope):  # noqa: N802, ANN001
                self.recipients.extend(envelope.rcpt_tos)
                return "250 OK"

        self.sink = Sink()
        self.smtp = Controller(self.sink, hostname="127.0.0.1", port=free_port())
        self.smtp.start()
        self.tmp = tempfile.TemporaryDirectory(prefix="webclip-probe-")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "0",
            "SECRET_KEY": "probe-only-" + "x" * 50,
            "ALLOWED_HOSTS": "127.0.0.1",
            "SITE_URL": self.url,
            "DATABASE_URL": f"sqlite:///{self.tmp.name}/probe.sqlite3",
            "CACHE_URL": "redis://127.0.0.1:6379/8",
            "CACHE_KEY_PREFIX": f"webclip-probe-{self.port}",
            "CELERY_BROKER_URL": "redis://127.0.0.1:6379/9",
            "EMAIL_PROVIDER": "smtp",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(self.smtp.port),
            "SECURE_SSL_REDIRECT": "0",
            "SECURE_HSTS_SECONDS": "0",
            "SESSION_COOKIE_SECURE": "0",
            "CSRF_COOKIE_SECURE": "0",
            "STATIC_ROOT": f"{self.tmp.name}/static",
            "WEBCLIP_VAR_DIR": self.tmp.name,
            "RATE_LIMIT_LOGIN_FAILED": "1000/m/ip,5/5m/key",
            "RATE_LIMIT_SIGNUP": "100000/m/ip",
            "LOG_LEVEL": "WARNING",
        }
        for key in ("PYTEST_XDIST_WORKER", "PYTEST_CURRENT_TEST"):
            self.env.pop(key, None)
        python = str(ROOT_DIR / ".venv" / "bin" / "python")
        manage = [python, str(ROOT_DIR / "manage.py")]
        subprocess.run([*manage, "migrate", "--no-input", "-v0"], env=self.env, check=True)
        subprocess.run([*manage, "collectstatic", "--no-input", "-v0"], env=self.env, check=True)
        subprocess.run([*manage, "shell", "-c", _PEOPLE], env=self.env, check=True)
        subprocess.run(
            [str(ROOT_DIR / ".venv" / "bin" / "celery"), "-A", "config", "purge", "-f"],
            cwd=ROOT_DIR,
            env=self.env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        self.worker = subprocess.Popen(
            [
                str(ROOT_DIR / ".venv" / "bin" / "celery"),
                *("-A", "config", "worker", "-Q", "publish,celery", "--concurrency", "1"),
                *("--without-mingle", "--without-gossip", "-l", "warning"),
            ],
            cwd=ROOT_DIR,
            env=self.env,
        )
        self.process = subprocess.Popen(
            [
                str(ROOT_DIR / ".venv" / "bin" / "gunicorn"),
                "config.wsgi",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                "2",
                "--worker-class",
                "gthread",
                "--threads",
                "4",
                "--log-level",
                "warning",
            ],
            cwd=ROOT_DIR,
            env=self.env,
        )
        deadline = time.monotonic() + 120  # a loaded machine starts gunicorn slowly
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/accounts/login/").status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.2)
        raise RuntimeError("the instance did not come up within 120 s")

    def close(self) -> None:
        for process in (self.process, self.worker):
            process.terminate()
            process.wait(timeout=30)
        self.smtp.stop()
        self.tmp.cleanup()


_PEOPLE = f"""
from allauth.account.models import EmailAddress
from accounts.models import User
for name, staff in [("taken", False), ("control", False), ("locked", False),
                    ("forged", False), ("admin-control", True), ("admin-locked", True)]:
    user = User.objects.create_user(email=f"{{name}}@example.com", password={PASSWORD!r},
                                    is_staff=staff, is_superuser=staff)
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
"""


def _form(client: httpx.Client, path: str) -> str:
    page = client.get(path)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    if token is None:
        raise RuntimeError(f"no CSRF token on {path} (status {page.status_code})")
    return token.group(1)


def _signed_in(client: httpx.Client, kind: str) -> bool:
    probe = "/admin/" if kind == "admin" else "/dashboard/"
    return client.get(probe).status_code == 200


def _login(
    instance: Instance, kind: str, email: str, password: str, forged: str | None = None
) -> httpx.Client:
    client = httpx.Client(base_url=instance.url, timeout=30)
    headers = {"X-Forwarded-For": forged} if forged else {}
    if kind == "admin":
        token = _form(client, "/admin/login/")
        data = {"csrfmiddlewaretoken": token, "username": email, "password": password}
        client.post("/admin/login/?next=/admin/", data=data, headers=headers)
    else:
        token = _form(client, "/accounts/login/")
        data = {"csrfmiddlewaretoken": token, "login": email, "password": password}
        client.post("/accounts/login/", data=data, headers=headers)
    return client


def login_rows(instance: Instance) -> list[Row]:
    rows = []
    for kind, control, locked in (
        ("allauth", "control", "locked"),
        ("admin", "admin-control", "admin-locked"),
    ):
        ok = _signed_in(_login(instance, kind, f"{control}@example.com", PASSWORD), kind)
        rows.append(
            Row("login", f"{kind}: control, right password accepted", ok, f"signed in: {ok}")
        )
        for _ in range(5):
            _login(instance, kind, f"{locked}@example.com", "wrong password")
        after = _signed_in(_login(instance, kind, f"{locked}@example.com", PASSWORD), kind)
        rows.append(
            Row(
                "login",
                f"{kind}: right password refused after 5 wrong ones",
                not after,
                f"signed in: {after}",
            )
        )
    for index in range(5):
        _login(instance, "admin", "forged@example.com", "wrong", forged=f"203.0.113.{index}")
    forged = _signed_in(
        _login(instance, "allauth", "forged@example.com", PASSWORD, forged="198.51.100.7"),
        "allauth",
    )
    rows.append(
        Row(
            "login",
            "admin failures lock the allauth login too, forged X-Forwarded-For each time",
            not forged,
            f"signed in: {forged}",
        )
    )
    return rows


def enumeration_rows(instance: Instance, tries: int) -> list[Row]:
    timings: dict[str, list[float]] = {"taken": [], "new": []}
    answers: dict[str, set[tuple[int, str]]] = {"taken": set(), "new": set()}
    for index in range(tries):
        for kind in ("taken", "new") if index % 2 else ("new", "taken"):
            email = "taken@example.com" if kind == "taken" else f"new-{index}@example.com"
            with httpx.Client(base_url=instance.url, timeout=30) as client:
                token = _form(client, "/accounts/signup/")
                data = {
                    "csrfmiddlewaretoken": token,
                    "email": email,
                    "password1": PASSWORD,
                    "password2": PASSWORD,
                }
                started = time.perf_counter()
                response = client.post("/accounts/signup/", data=data)
                timings[kind].append((time.perf_counter() - started) * 1000)
                answers[kind].add((response.status_code, response.headers.get("location", "")))
    taken, new = statistics.median(timings["taken"]), statistics.median(timings["new"])
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        mailed = len({r for r in instance.sink.recipients if r.startswith("new-")})
        if mailed == tries:
            break
        time.sleep(0.5)
    taken_mails = instance.sink.recipients.count("taken@example.com")
    same = answers["taken"] == answers["new"] and len(answers["new"]) == 1
    return [
        Row(
            "enumeration",
            f"sign-up median, taken vs new address ({tries} tries each)",
            abs(taken - new) <= TIMING_LIMIT_MS,
            f"taken {taken:.0f} ms, new {new:.0f} ms, difference {abs(taken - new):.0f} ms "
            f"(limit {TIMING_LIMIT_MS:.0f}); p90 taken {_p90(timings['taken']):.0f} ms, "
            f"new {_p90(timings['new']):.0f} ms",
        ),
        Row(
            "enumeration",
            "sign-up answer, taken vs new address",
            same,
            f"taken {sorted(answers['taken'])}, new {sorted(answers['new'])}",
        ),
        Row(
            "enumeration",
            "every new address receives its verification mail (sent after the answer)",
            mailed == tries,
            f"{mailed} of {tries} new addresses mailed; the taken address {taken_mails} time(s)",
        ),
    ]


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=200)
    parser.add_argument("--only", default="ssrf,egress,login,enumeration,surfaces")
    args = parser.parse_args()
    tables = set(args.only.split(","))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    rows: list[Row] = []
    if "ssrf" in tables:
        rows += ssrf_rows()
    if "egress" in tables:
        rows += egress_rows()
    if tables & {"login", "enumeration"}:
        instance = Instance()
        try:
            if "login" in tables:
                rows += login_rows(instance)
            if "enumeration" in tables:
                rows += enumeration_rows(instance, args.tries)
        finally:
            instance.close()
    if "surfaces" in tables:
        rows += [Row(*row) for row in surface_rows()]
    width = max(len(row.name) for row in rows)
    for row in rows:
        print(
            f"{'PASS' if row.passed else 'FAIL'}  {row.table:11s}  {row.name:{width}s}  {row.detail}"
        )
    failed = sum(not row.passed for row in rows)
    print(f"{len(rows) - failed} of {len(rows)} rows pass" + (f", {failed} FAIL" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
