"""Benchmark what a new person is told, with the defaults they get, on the demo site.

The stack of `make run` (embedded: SQLite, filesystem broker; Procfile.dev's processes) watches
the demo news site (demo/, registered as `make run` does, publishing a new article every
--publish-every seconds). One person with default account settings has two lists, both
routed to a JSON webhook channel (instant), and mail arrives at an aiosmtpd server:

- Transport: rail strike, tram line, car sharing, automobile
- Economy: "interest rates", solar subsidies, wind farm

The demo's front page links articles published over the last twelve days, its archive holds
stories of 1990-2019 reached through its search forms, and its live desks add updates of the
same stories. Printed after --minutes:

- notifications per channel: mails and webhook posts per minute, and the most in any 60 s;
- time from the start to the first mail;
- the share of notified articles (mail or webhook) published before the person's window
  (7 days), by the publication time the clip carries and, for the archive, by the demo's own
  dates; undated ones are counted apart;
- the matches found in a headline only (the summary is the headline);
- feed polls: for each article the demo published during the run, the time from its
  publication to the crawler's first fetch of it (the feed poll interval is 2 minutes); the
  same for a small site of the person's own (a home page, a feed and a few articles, one
  more every --publish-every seconds), added as the Sites page does (a real preview), with
  the crawl plan its preview's size gave and what it costs of the person's daily allowance.

Targets: at most 2 mails and 2 webhook posts in any 60 s; first mail within 120 s; no
notified article older than the window (share 0); at least one headline-only match; every
article published during the run, on both sites, fetched within the feed poll interval plus
30 s; the small site reserves at most a tenth of the daily allowance, so ten fit.

Usage: .venv/bin/python -m bench.news_flood [--minutes 5] [--publish-every 60] [--keep]
"""

from __future__ import annotations

import argparse
import email
import json
import re
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email import policy
from http.server import BaseHTTPRequestHandler
from pathlib import Path

ROOT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.freshness_stack import Counting, Inbox, make_stack, moment  # noqa: E402
from demo import server as demo_server  # noqa: E402
from demo.archive import build_archive  # noqa: E402

READER = "reader@bench.example"
LISTS = [
    ("Transport", "rail strike\ntram line\ncar sharing\nautomobile"),
    ("Economy", '"interest rates"\nsolar subsidies\nwind farm'),
]
WINDOW = timedelta(days=7)  # the default news window
FEED_POLL = 120.0  # the site setting's default, seconds
MOST_PER_MINUTE, FIRST_MAIL, POLL_SLACK = 2, 120.0, 30.0

SETUP = """
import json, os
from allauth.account.models import EmailAddress
from accounts.models import User
from clipping import channels
from clipping.models import Channel, KeywordList, ListChannel

user = User.objects.create_user(email=os.environ["BENCH_READER"], password="bench-only-pw")
EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
checked = channels.check_url(os.environ["BENCH_HOOK"])
channel = Channel(owner=user, name="Hook")
channel.set_url(checked.url, checked.shown, checked.service)
channel.save()
for name, terms in json.loads(os.environ["BENCH_LISTS"]):
    keyword_list = KeywordList.objects.create(owner=user, name=name, terms=terms)
    ListChannel.objects.create(keyword_list=keyword_list, channel=channel, mode="instant")
from crawler import usersites
site = usersites.add_site(user, os.environ["BENCH_OWN"]).site
print(json.dumps([site.page_budget, site.revisit_interval.total_seconds(),
                  usersites.pages_allowance(user)]))
"""

COST = """
import json, os
from accounts.models import User
from crawler import usersites
print(json.dumps(usersites.pages_allowance(User.objects.get(email=os.environ["BENCH_READER"]))))
"""


class SmallSite(BaseHTTPRequestHandler):
    """A person's own small site: a home page, a feed, and articles, one more now and then."""

    started = time.time()
    every = 60.0
    FIRST = 3

    @classmethod
    def published(cls) -> list[tuple[int, float]]:
        count = cls.FIRST + int((time.time() - cls.started) // cls.every)
        return [(n, cls.started + cls.every * (n - cls.FIRST + 1)) for n in range(count)]

    def do_GET(self) -> None:  # noqa: N802 (http.server hook)
        found = [n for n, _ in self.published()]
        if self.path == "/":
            items = "".join(f'<li><a href="/a/{n}">Harbour note {n}</a></li>' for n in found)
            body = (
                "<html lang='en'><head><title>Harbour Notes</title><link rel='alternate' "
                f"type='application/rss+xml' href='/feed.xml'></head><body><ul>{items}</ul>"
                "</body></html>"
            )
            kind = "text/html"
        elif self.path == "/feed.xml":
            items = "".join(
                f"<item><title>Harbour note {n}</title><link>/a/{n}</link></item>" for n in found
            )
            body = f"<?xml version='1.0'?><rss version='2.0'><channel>{items}</channel></rss>"
            kind = "application/rss+xml"
        elif (
            self.path.startswith("/a/") and self.path[3:].isdigit() and int(self.path[3:]) in found
        ):
            n = int(self.path[3:])
            text = " ".join(
                f"The harbour master noted boat {n * 10 + i} leaving." for i in range(12)
            )
            body = f"<html lang='en'><body><article><h1>Harbour note {n}</h1><p>{text}</p></article></body></html>"
            kind = "text/html"
        else:
            self.send_response(404)
            self.end_headers()
            return
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


class Hook(BaseHTTPRequestHandler):
    """A JSON webhook that keeps every post with the time it arrived."""

    posts: list[tuple[float, str]] = []
    lock = threading.Lock()

    def do_POST(self) -> None:  # noqa: N802 (http.server hook)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        with self.lock:
            self.posts.append((time.time(), body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@dataclass
class Result:
    mails: list[float] = field(default_factory=list)  # arrival times
    posts: list[float] = field(default_factory=list)
    first_mail: float | None = None
    notified: int = 0
    old: int = 0
    undated: int = 0
    archive_notified: int = 0
    headline_only: list[str] = field(default_factory=list)
    poll_lags: list[tuple[str, float | None]] = field(default_factory=list)
    own_lags: list[tuple[str, float | None]] = field(default_factory=list)
    plan: list[float] = field(default_factory=list)  # budget, revisit seconds, allowance left
    left_after: int = 0  # the allowance left once the small site has run


def most_within(times: list[float], seconds: float) -> int:
    """Return the most events in any window of `seconds`."""
    ordered = sorted(times)
    return max((sum(1 for t in ordered if s <= t < s + seconds) for s in ordered), default=0)


def per_minute(times: list[float], start: float, minutes: int) -> list[int]:
    return [
        sum(1 for t in times if start + 60 * m <= t < start + 60 * (m + 1)) for m in range(minutes)
    ]


def measure(stack, news: demo_server.NewsSite, inbox: Inbox, start: float, minutes: int) -> Result:
    """Read the mail, the webhook and the database."""
    result = Result()
    for arrived, recipients, raw in inbox.taken():
        if READER not in recipients:
            continue
        text = email.message_from_bytes(raw, policy=policy.default)
        if "confirm" in str(text["Subject"]).lower():
            continue
        result.mails.append(arrived)
    result.posts = [t for t, _ in Hook.posts]
    result.first_mail = min(result.mails) - start if result.mails else None
    rows = stack.query(
        "SELECT c.url, c.published_at, m.delivered_at, m.id FROM clipping_match m "
        "JOIN clipping_clip c ON c.id = m.clip_id WHERE m.mail_status = 'sent'"
    )
    rows += stack.query(
        "SELECT c.url, c.published_at, n.sent_at, m.id FROM clipping_notice n "
        "JOIN clipping_match m ON m.id = n.match_id JOIN clipping_clip c ON c.id = m.clip_id "
        "WHERE n.status = 'sent'"
    )
    archive = {story.url: story.year for story in build_archive()}
    for url, published, sent, _ in rows:
        result.notified += 1
        path = re.sub(r"^https?://[^/]+", "", url)
        if path in archive:
            result.archive_notified += 1
        if published is None:
            result.undated += 1
            result.old += path in archive  # the demo's archive is 1990-2019 whatever we read
        elif moment(sent) - moment(published) > WINDOW:
            result.old += 1
    result.headline_only = [
        title
        for (title,) in stack.query(
            "SELECT c.title FROM clipping_match m JOIN clipping_clip c ON c.id = m.clip_id "
            "WHERE m.summary = c.title"
        )
    ]
    began = datetime.fromtimestamp(start, UTC)
    first_fetch = {
        re.sub(r"^https?://[^/]+", "", url): fetched
        for url, fetched in stack.query(
            "SELECT p.url, min(v.fetched_at) FROM crawler_pageversion v JOIN crawler_page p "
            "ON p.id = v.page_id GROUP BY p.url"
        )
    }
    for article in news.articles():
        if not began < article.published <= datetime.now(UTC) - timedelta(seconds=FEED_POLL):
            continue
        fetched = first_fetch.get(article.url)
        lag = (moment(fetched) - article.published).total_seconds() if fetched else None
        result.poll_lags.append((article.title, lag))
    for n, published in SmallSite.published():
        if not start < published <= time.time() - FEED_POLL:
            continue
        fetched = first_fetch.get(f"/a/{n}")
        lag = moment(fetched).timestamp() - published if fetched else None
        result.own_lags.append((f"Harbour note {n} (own site)", lag))
    return result


def report(result: Result, start: float, minutes: int, took: float) -> bool:
    print(f"\nnews_flood: the demo site, two lists, default settings, {minutes} min ({took:.0f} s)")
    print(f"mails per minute:          {per_minute(result.mails, start, minutes)}")
    print(f"webhook posts per minute:  {per_minute(result.posts, start, minutes)}")
    mail_peak, post_peak = most_within(result.mails, 60), most_within(result.posts, 60)
    print(f"most in any 60 s:          {mail_peak} mails, {post_peak} webhook posts")
    first = "none" if result.first_mail is None else f"{result.first_mail:.1f} s"
    print(f"time to first mail:        {first}")
    share = result.old / result.notified if result.notified else 0.0
    print(
        f"notified older than 7 days: {result.old} of {result.notified} ({share:.0%}); "
        f"undated {result.undated}; archive stories notified {result.archive_notified}"
    )
    print(f"headline-only matches:     {len(result.headline_only)} {result.headline_only[:4]}")
    for title, lag in [*result.poll_lags, *result.own_lags]:
        print(f"  published -> fetched {'never' if lag is None else f'{lag:6.1f} s'}  {title[:60]}")
    budget, revisit, left = result.plan
    reserved = 2000 - left
    print(
        f"own small site: {budget:.0f} pages a run every {revisit / 3600:g} h, reserving "
        f"{reserved:.0f} of 2000 pages a day; once it ran, {2000 - result.left_after} counted"
    )
    lags = [lag for _, lag in [*result.poll_lags, *result.own_lags]]
    checks = [
        (
            "at most 2 mails and 2 webhook posts in any 60 s",
            mail_peak <= MOST_PER_MINUTE and post_peak <= MOST_PER_MINUTE,
        ),
        (
            "first mail within 120 s",
            result.first_mail is not None and result.first_mail <= FIRST_MAIL,
        ),
        ("no notified article older than the window", result.notified > 0 and result.old == 0),
        ("a headline-only match found", bool(result.headline_only)),
        (
            "new articles fetched within the feed poll + 30 s",
            bool(lags) and all(lag is not None and lag <= FEED_POLL + POLL_SLACK for lag in lags),
        ),
        ("a small site of one's own reserves at most a tenth of the allowance", reserved <= 200),
    ]
    for name, ok in checks:
        print(f"  {'met    ' if ok else 'NOT MET'}  {name}")
    met = sum(ok for _, ok in checks)
    print(f"{'PASS' if met == len(checks) else 'FAIL'}: {met}/{len(checks)} targets met")
    return met == len(checks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=int, default=5)
    parser.add_argument("--publish-every", type=float, default=60.0)
    parser.add_argument("--keep", action="store_true", help="keep the stack's folder")
    args = parser.parse_args()
    began = time.perf_counter()
    var_dir = Path(tempfile.mkdtemp(prefix="webclip-news-flood-"))
    news = demo_server.NewsSite(args.publish_every)
    site = Counting(type("DemoHandler", (demo_server.Handler,), {"site": news}))
    hook = Counting(Hook)
    SmallSite.every = args.publish_every
    own = Counting(SmallSite)
    ok = False
    with Inbox() as inbox:
        stack = make_stack("embedded", inbox.port, var_dir)
        for name in ("CLIPPING_CHANNEL_NETWORKS", "CRAWLER_USER_SITE_NETWORKS"):
            stack.env[name] = "127.0.0.1/32"
        stack.env["CRAWLER_USER_SITES"] = "open"
        try:
            stack.manage("migrate", "--no-input")
            stack.manage("demo_site", "--url", site.url)
            SmallSite.started = time.time()
            planned = stack.manage(
                "shell",
                "-c",
                SETUP,
                extra_env={
                    "BENCH_READER": READER,
                    "BENCH_LISTS": json.dumps(LISTS),
                    "BENCH_HOOK": f"json://127.0.0.1:{hook.server_address[1]}/hook",
                    "BENCH_OWN": own.url,
                },
            )
            start = time.time()
            stack.start()
            time.sleep(args.minutes * 60)
            result = measure(stack, news, inbox, start, args.minutes)
            result.plan = json.loads(planned.strip().splitlines()[-1])
            cost = stack.manage("shell", "-c", COST, extra_env={"BENCH_READER": READER})
            result.left_after = json.loads(cost.strip().splitlines()[-1])
        finally:
            stack.stop()
        ok = report(result, start, args.minutes, time.perf_counter() - began)
    if args.keep:
        print(f"kept: {var_dir}")
    else:
        shutil.rmtree(var_dir, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
