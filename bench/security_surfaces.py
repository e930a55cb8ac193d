"""The security probe's rows for the surfaces people reach: one row (or a few) per class of
defect, each trying the class with inputs of its own, in this process against a throwaway
database (Django's test client for pages and the API, real servers on loopback for fetches,
Chromium through the crawler's render path).

Classes: mailbox (whose mail a person reads), webrtc (UDP from the browser), origin-index
(sites found by origin), squatting (what a person's site claims), quota-race (allowances
under concurrent adds), body-limits (size and depth of every body), preview (rate, total
time), origin-spelling (one normaliser), resume (a follow resumes a paused site),
account-deletion (its sites lose their follower), channel-schemes (allow list), refusal-words
(no resolved address or port state).

Run through bench/security_probe.py (--only surfaces), or alone:
    .venv/bin/python bench/security_surfaces.py
"""

from __future__ import annotations

import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.benchdb import setup_django, throwaway_database  # noqa: E402

SurfaceRow = tuple[str, str, bool, str]  # table, name, passed, detail
PASSWORD = "correct horse battery staple 42"


def surface_rows() -> list[SurfaceRow]:
    """Run every class's probe in a throwaway database; return its rows."""
    from django.test.utils import override_settings, setup_test_environment

    from config.celery_app import app

    setup_test_environment()
    app.conf.task_always_eager = True
    mailbox = tempfile.mkdtemp(prefix="webclip-surfaces-mail-")
    database = str(Path(tempfile.mkdtemp(prefix="webclip-surfaces-")) / "surfaces.sqlite3")
    overrides = override_settings(
        DEBUG=True,
        EMAIL_PROVIDER="file",
        EMAIL_BACKEND="django.core.mail.backends.filebased.EmailBackend",
        EMAIL_FILE_PATH=mailbox,
        CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}},
        CRAWLER_USER_SITES="open",
        CRAWLER_USER_SITE_NETWORKS="127.0.0.1/32",
        CLIPPING_CHANNEL_NETWORKS="",
        ALLOWED_HOSTS=["*"],
    )
    rows: list[SurfaceRow] = []
    probes: list[Callable[[], list[SurfaceRow]]] = [
        mailbox_rows,
        origin_rows,
        quota_rows,
        body_rows,
        preview_rows,
        follower_rows,
        channel_rows,
        webrtc_rows,
    ]
    with overrides, throwaway_database(database):
        for probe in probes:
            try:
                rows += probe()
            except Exception as exc:  # noqa: BLE001 - a probe that breaks is a failed row
                rows.append(
                    (probe.__name__[:-5], "probe ran", False, f"{type(exc).__name__}: {exc}")
                )
    return rows


def _user(email: str, *, verified: bool = True):
    from allauth.account.models import EmailAddress

    from accounts.models import User

    user = User.objects.create_user(email=email, password=PASSWORD)
    EmailAddress.objects.create(user=user, email=email, primary=True, verified=verified)
    return user


def mailbox_rows() -> list[SurfaceRow]:
    from django.test import Client
    from django.test.utils import override_settings

    with override_settings(DEBUG=True):
        return _mailbox_rows(Client)


def _mailbox_rows(Client) -> list[SurfaceRow]:  # noqa: N803 - the class, handed in

    bob, carol = _user("bob@surfaces.example"), _user("carol@surfaces.example")
    rows = []
    for spelling in (bob.email, bob.email.upper(), f" {bob.email}"):
        client = Client()
        client.force_login(carol)
        client.post("/accounts/email/", {"action_add": "", "email": spelling})
        client.post("/accounts/password/reset/", {"email": bob.email})
        page = client.get("/mailbox/").content.decode()
        leaked = "password/reset/key" in page or "confirm-email" in page
        rows.append(
            (
                "mailbox",
                f"another's address added as {spelling!r}",
                not leaked,
                f"reset or verification mail shown: {leaked}",
            )
        )
    anonymous = Client()
    anonymous.post("/accounts/password/reset/", {"email": carol.email})
    shown = "password/reset/key" in anonymous.get("/mailbox/").content.decode()
    rows.append(("mailbox", "a visitor asking a reset reads nothing", not shown, f"shown: {shown}"))
    return rows


def origin_rows() -> list[SurfaceRow]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from crawler import usersites
    from crawler.models import Site
    from crawler.usersites import Preview, SiteRefused

    Site.objects.bulk_create(
        [Site(name=f"S{n}", root_url=f"https://s{n}.example.com/") for n in range(3000)]
    )
    from crawler.models import SiteOrigin

    SiteOrigin.objects.bulk_create(
        [SiteOrigin(site=site, origin=site.root_url.rstrip("/")) for site in Site.objects.all()]
    )
    started = time.perf_counter()
    with CaptureQueriesContext(connection) as queries:
        found = Site.objects.at_origin("https://s2999.example.com")
    took = (time.perf_counter() - started) * 1000
    rows = [
        (
            "origin-index",
            "one site among 3,000 found by origin",
            len(found) == 1 and len(queries) == 1,
            f"{len(queries)} query, {took:.1f} ms",
        )
    ]
    denied = Site.objects.create(
        name="Denied", root_url="http://localhost:8353/", approval=Site.Approval.DENIED
    )
    intl = Site.objects.create(name="Books", root_url="http://xn--bcher-kva.example/")
    person = _user("dana@surfaces.example")
    for spelling, expected in [
        ("http://localhost.:8353/", denied),
        ("http://LOCALHOST:8353/x", denied),
        ("http://bücher.example./", intl),
        ("HTTP://XN--BCHER-KVA.EXAMPLE:80/", intl),
    ]:
        try:
            got = usersites.add_site(person, spelling, _previewed(spelling)).site
            passed, detail = got == expected, f"followed {got.name}"
        except SiteRefused as exc:
            passed, detail = expected == denied, f"refused: {exc}"
        rows.append(("origin-spelling", spelling, passed, detail))
    squatter = _user("sam@surfaces.example")
    found = Preview(
        url="https://squat.example.org/",
        final_url="https://squat.example.org/",
        kind="hub",
        feeds=["https://victim.example.com/rss"],
    )
    plan = usersites.plan_for(squatter, found)
    usersites.add_site(squatter, found.url, _previewed(found.url, seed_urls=plan.seed_urls))
    claims = Site.objects.at_origin("https://victim.example.com")
    rows.append(
        (
            "squatting",
            "a person's site names a feed on another origin",
            not claims and plan.seed_urls == [],
            f"claims: {[s.name for s in claims]}, seeds {plan.seed_urls}",
        )
    )
    return rows


def _previewed(url: str, **plan: object):
    from crawler.usersites import CrawlPlan, Preview

    values: dict = {"name": url, "root_url": url, "page_budget": 50, "revisit_hours": 3.0}
    values.update(plan)
    return Preview(url=url, final_url=url, kind="hub", plan=CrawlPlan(**values))


def quota_rows() -> list[SurfaceRow]:
    from django.db import close_old_connections
    from django.test.utils import override_settings

    from crawler import usersites
    from crawler.models import Site

    person = _user("quinn@surfaces.example")
    outcomes: list[str] = []
    start = threading.Barrier(6)

    def add(number: int) -> None:
        url = f"https://race{number}.example.net/"
        start.wait()
        try:
            usersites.add_site(person, url, _previewed(url, page_budget=100, revisit_hours=3.0))
            outcomes.append("added")
        except Exception as exc:  # noqa: BLE001 - refused, or the database was busy
            outcomes.append(type(exc).__name__)
        finally:
            close_old_connections()

    with override_settings(CRAWLER_USER_SITES_MAX=3, CRAWLER_USER_PAGES_PER_DAY=2000):
        threads = [threading.Thread(target=add, args=(n,)) for n in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        following = Site.objects.followed_by(person).count()
        pages = 2000 - usersites.pages_allowance(person)
    return [
        (
            "quota-race",
            "6 concurrent adds, limit 3 sites and 2,000 pages a day",
            following <= 3 and pages <= 2000,
            f"following {following}, {pages} pages a day planned; {sorted(outcomes)}",
        )
    ]


def body_rows() -> list[SurfaceRow]:
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client
    from django.test.utils import override_settings

    from accounts.models import ApiToken

    person = _user("erin@surfaces.example")
    token = ApiToken.issue(person, "probe")[1]
    api, page = Client(), Client()
    page.force_login(person)
    bearer = {"Authorization": f"Bearer {token}"}
    rows = []
    big = '{"name": "' + "x" * 3_000_000 + '", "terms": ["a"]}'
    deep = '{"name": ' + "[" * 5000 + "]" * 5000 + "}"
    for name, body in [("API body of 3 MB", big), ("API body nested 5,000 deep", deep)]:
        answer = api.post("/api/lists", body, content_type="application/json", headers=bearer)
        rows.append(
            (
                "body-limits",
                name,
                400 <= answer.status_code < 500,
                f"{answer.status_code} {answer.content[:80]!r}",
            )
        )
    uploads = [
        (
            "list import nested 5,000 deep",
            "lists.json",
            '{"lists": [' + "[" * 5000 + "]" * 5000 + "]}",
        ),
        ("CSV field of 300 KB", "lists.csv", "list,term\r\nA," + "x" * 300_000 + "\r\n"),
    ]
    for name, filename, text in uploads:
        answer = page.post(
            "/lists/import/", {"file": SimpleUploadedFile(filename, text.encode())}, follow=True
        )
        said = "Nothing was imported" in answer.content.decode()
        rows.append(
            (
                "body-limits",
                name,
                answer.status_code == 200 and said,
                f"{answer.status_code}, refusal shown: {said}",
            )
        )
    opml = (
        "<opml version='2.0'><body>"
        + "".join(f"<outline type='rss' xmlUrl='https://f{n}.example/rss'/>" for n in range(55_000))
        + "</body></opml>"
    )
    started = time.perf_counter()
    answer = page.post(
        "/sites/import/", {"file": SimpleUploadedFile("f.opml", opml.encode())}, follow=True
    )
    took = time.perf_counter() - started
    said = answer.content.decode()
    refused = "At most 500 feeds" in said or "The file is larger than" in said
    rows.append(
        (
            "body-limits",
            "OPML of 55,000 outlines",
            refused and took < 10,
            f"{answer.status_code} in {took:.1f} s, refused: {refused}",
        )
    )
    secret = "hook:probe-secret"
    import base64

    auth = "Basic " + base64.b64encode(secret.encode()).decode()
    with override_settings(ANYMAIL={"WEBHOOK_SECRET": secret}):
        for name, body in [
            ("webhook nested 5,000 deep", "[" * 5000 + "]" * 5000),
            ("webhook not JSON", "{nope"),
            ("webhook of odd types", '{"RecordType": 5}'),
            ("webhook of 2 MB", '{"x": "' + "a" * 2_000_000 + '"}'),
        ]:
            answer = Client().post(
                "/webhooks/anymail/postmark/tracking/",
                body,
                content_type="application/json",
                HTTP_AUTHORIZATION=auth,
            )
            # 4xx, or 200 for a readable body naming no event acted on: never a 500.
            rows.append(("body-limits", name, answer.status_code < 500, str(answer.status_code)))
    return rows


class _Trickle:
    """An HTTP server on 127.0.0.1 whose every answer comes one byte every 0.2 s."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n"
                )
                while not self.stop.wait(0.2):
                    conn.sendall(b"x")
            except OSError:
                return

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


def preview_rows() -> list[SurfaceRow]:
    from crawler import usersites
    from crawler.conf import user_site_settings

    person, rows = _user("fred@surfaces.example"), []
    trickle = _Trickle()
    try:
        started = time.perf_counter()
        preview = usersites.preview_site(person, f"http://127.0.0.1:{trickle.port}/")
        took = time.perf_counter() - started
    finally:
        trickle.close()
    cap = user_site_settings().preview_seconds
    rows.append(
        (
            "preview",
            "a site trickling 1 byte every 0.2 s",
            took <= cap + 2,
            f"answered in {took:.1f} s (cap {cap:g} s): {preview.error}",
        )
    )
    closed = f"http://127.0.0.1:{_free_port()}/"
    accepted = sum(
        "previews within the hour" not in usersites.preview_site(person, closed).error
        for _ in range(25)
    )
    allowed = user_site_settings().previews_per_hour
    rows.append(
        (
            "preview",
            "25 previews in a row by one person",
            accepted <= allowed,
            f"{accepted} fetched, allowance {allowed} an hour (the first one included)",
        )
    )
    return rows


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def follower_rows() -> list[SurfaceRow]:
    from crawler import usersites
    from crawler.models import Site

    gina, hal = _user("gina@surfaces.example"), _user("hal@surfaces.example")
    url = "https://paused.example.org/"
    site = usersites.add_site(gina, url, _previewed(url)).site
    usersites.unfollow_site(gina, site)
    usersites.add_site(hal, url)
    resumed = Site.objects.get(id=site.id).enabled
    rows = [
        (
            "resume",
            "a follow of a site paused for want of followers",
            resumed,
            f"enabled: {resumed}",
        )
    ]
    urls = [f"https://gone{n}.example.org/" for n in range(3)]
    ids = [usersites.add_site(hal, u, _previewed(u)).site.id for u in urls]
    hal.delete()
    left = list(Site.objects.filter(id__in=ids, enabled=True).values_list("root_url", flat=True))
    rows.append(
        (
            "account-deletion",
            "3 private sites of a deleted account",
            not left,
            f"still enabled: {left}",
        )
    )
    return rows


def channel_rows() -> list[SurfaceRow]:
    from clipping import channels

    rows = []
    for url in [
        "syslog://",
        "notica://127.0.0.2/t",
        "pushdeer://127.0.0.2/k",
        "infobip://k@127.0.0.2/+15551234567",
        "zulip://bot@127.0.0.2/tok",
        "rsyslog://127.0.0.2",
        "json://127.0.0.2/h",
        "mailto://u:p@example.com?smtp=127.0.0.2",
        "json://localhost/h",
    ]:
        try:
            channels.check_url(url)
            passed, detail = False, "accepted"
        except channels.ChannelError as exc:
            said = str(exc)
            passed = "127.0.0.1" not in said and "::1" not in said
            detail = said
        rows.append(
            ("channel-schemes" if "json" not in url else "refusal-words", url, passed, detail)
        )
    from crawler import usersites

    preview = usersites.preview_site(
        _user("ivy@surfaces.example"), f"http://localhost:{_free_port()}/"
    )
    plain = not any(w in preview.error for w in ("127.0.0.1", "refused", "Errno", "::1"))
    rows.append(("refusal-words", "preview of a closed port by name", plain, preview.error))
    return rows


def webrtc_rows() -> list[SurfaceRow]:
    import subprocess

    from crawler.fetch import FetchPolicy, SiteRules
    from crawler.fetch.sync import run_sync
    from crawler.render import Renderer, noudp
    from tests.crawler.servers import SiteServer
    from tests.crawler.test_render_udp import STUN_PAGE, UdpListener

    listener = UdpListener()
    try:
        with SiteServer() as site:
            site.html("/", STUN_PAGE.format(port=listener.port))
            rules = SiteRules(
                crawl_delay=0,
                obey_robots=False,
                allow_private_network=True,
                private_origins=(site.origin,),
            )
            policy = FetchPolicy(render_timeout=15.0, render_settle=3.0)
            result = run_sync(Renderer(policy).render(site.url("/"), rules, ("127.0.0.1",)))
        time.sleep(0.5)
        packets = listener.received()
    finally:
        listener.close()
    rows = [
        (
            "webrtc",
            "a page asking STUN and TURN on 127.0.0.1 (page and iframe)",
            packets == 0 and result.error is None,
            f"{packets} UDP packets; render error {result.error}",
        )
    ]
    code = "import socket\ntry:\n socket.socket(2, 2)\n print('open')\nexcept OSError:\n print('refused')"
    said = subprocess.run(
        [noudp.launcher(sys.executable), "-c", code], capture_output=True, text=True
    )
    rows.append(
        (
            "webrtc",
            "a UDP socket in a process the launcher starts",
            said.stdout.strip() == "refused",
            said.stdout.strip() or said.stderr[-200:],
        )
    )
    return rows


def main() -> int:
    setup_django()
    rows = surface_rows()
    width = max(len(row[1]) for row in rows)
    for table, name, passed, detail in rows:
        print(f"{'PASS' if passed else 'FAIL'}  {table:16s}  {name:{width}s}  {detail}")
    failed = sum(not row[2] for row in rows)
    print(f"{len(rows) - failed} of {len(rows)} rows pass" + (f", {failed} FAIL" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
