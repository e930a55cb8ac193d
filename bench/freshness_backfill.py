"""Benchmark mail with default settings when new lists find many pages already crawled.

One person with default account settings (one mail per clip, the site's instant-mail cap, a
digest at the end of a capped hour) follows two private sites: a real blog
(../shared/eval/sites/andreagrandi, 255 posts), crawled first, and the demo news site, which
publishes nothing yet. Once the blog is crawled the person saves eleven lists at once, as the
list form does (each queues its backfill): three on the blog's topics, whose backfills find
50 or more posts, and eight on the news site's coming articles (real news texts,
../shared/eval/extraction-dev, one word of its own per article). Then the news site
publishes one article every --publish-every seconds for --minutes, and mail arrives at an
aiosmtpd server.

Printed per stack (the embedded defaults of `make run`, and PostgreSQL + Redis): the
backfill's matches, its summary mails and how long after the lists were saved each arrived,
publish -> mail latency (median, p90, max) of the articles published after the lists exist,
the articles never mailed, and the mails sent (instant, summary, hourly digest).

Targets: the backfill finds >= 50 matches (the case's premise); every backfill match reaches
the person within 120 s of the lists being saved (its summary mail); publish -> mail median
<= 60 s and p90 <= 120 s; every article mailed.

Usage: .venv/bin/python bench/freshness_backfill.py [--minutes 6] [--publish-every 20]
       [--configs embedded,postgres] [--keep]
"""

from __future__ import annotations

import argparse
import email
import json
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email import policy
from pathlib import Path

ROOT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.freshness import BLOG, SAMPLE_SECONDS, Story, Stream, eval_stories, fmt, pct  # noqa: E402
from bench.freshness_stack import (  # noqa: E402
    Inbox,
    Stack,
    drop_database,
    make_stack,
    serve_directory,
    set_up,
)

READER = "reader@bench.example"
BLOG_LISTS = [("Python", "python"), ("Linux", "linux"), ("Django", "django")]
NEWS_LISTS = 8
MIN_BACKFILL = 50
TARGET_SUMMARY, TARGET_MEDIAN, TARGET_P90 = 120.0, 60.0, 120.0
CRAWL_WAIT = 600  # seconds at most for the blog's first crawl
TAIL_SECONDS = 150

SAVE_LISTS = """
import json, os, time
from django.utils import timezone
from accounts.models import User
from clipping import tasks
from clipping.models import KeywordList

reader = User.objects.get(email=os.environ["BENCH_READER"])
saved = time.time()
for name, terms in json.loads(os.environ["BENCH_LISTS"]):
    keyword_list = KeywordList.objects.create(owner=reader, name=name, terms=terms)
    tasks.request_backfill(keyword_list.id)  # as the list form does on saving
print(json.dumps(saved))
"""


@dataclass
class Result:
    name: str
    backfilled: int = 0
    summaries: list[float] = field(default_factory=list)  # seconds after the lists were saved
    latencies: list[float] = field(default_factory=list)
    missing: int = 0
    mails: dict[str, int] = field(default_factory=dict)


def news_lists(stories: list[Story]) -> list[tuple[str, str]]:
    """Deal the articles' own words into NEWS_LISTS lists, one term per line."""
    groups: list[list[str]] = [[] for _ in range(NEWS_LISTS)]
    for n, story in enumerate(stories):
        groups[n % NEWS_LISTS].append(story.keyword)
    return [(f"News {n}", "\n".join(words)) for n, words in enumerate(groups) if words]


def spec(stream: Stream, blog_url: str) -> dict[str, object]:
    demo = {
        "name": "news",
        "root_url": stream.feed_site.url,
        "strategy": "bfs",
        "crawl_delay": 0.1,
        "page_budget": 200,
        "max_depth": 4,
        "subscribers": [READER],
        "durations": {
            "revisit_interval": 300,
            "feed_poll_interval": 30,
            "min_hub_revisit": 60,
            "min_page_revisit": 600,
        },
    }
    blog = {
        "name": "blog",
        "root_url": blog_url,
        "strategy": "bfs",
        "crawl_delay": 0.1,
        "page_budget": 600,
        "max_depth": 8,
        "subscribers": [READER],
        "durations": {"revisit_interval": 3600},
    }
    return {"people": [{"email": READER, "lists": []}], "sites": [demo, blog]}  # fmt: skip


def wait_for_blog(stack: Stack) -> int:
    """Wait until the blog's first crawl run is over; return its pages handed to clipping."""
    count = "SELECT COUNT(*) FROM crawler_pageversion WHERE has_information"
    deadline = time.time() + CRAWL_WAIT
    while time.time() < deadline:
        done = stack.query(
            "SELECT COUNT(*) FROM crawler_crawlrun r JOIN crawler_site s ON s.id = r.site_id "
            "WHERE s.name = 'blog' AND r.finished_at IS NOT NULL"
        )[0][0]
        if done:
            break
        time.sleep(SAMPLE_SECONDS)
    return int(stack.query(count)[0][0])


def run_config(name: str, stories: list[Story], args: argparse.Namespace) -> Result:
    result = Result(name)
    var_dir = Path(tempfile.mkdtemp(prefix=f"webclip-backfill-{name}-"))
    stream = Stream(stories, args.publish_every)
    stream.news.started = datetime.now(UTC) + timedelta(days=365)  # nothing published yet
    blog = serve_directory(BLOG)
    with Inbox() as inbox:
        stack = make_stack(name, inbox.port, var_dir)
        stack.manage("migrate", "--no-input")
        set_up(stack, spec(stream, blog.url))
        stack.start()
        try:
            pages = wait_for_blog(stack)
            print(f"[{name}] blog crawled: {pages} pages handed to clipping")
            lists = BLOG_LISTS + news_lists(stories)
            out = stack.manage(
                "shell",
                "-c",
                SAVE_LISTS,
                extra_env={"BENCH_READER": READER, "BENCH_LISTS": json.dumps(lists)},
            )
            saved = json.loads(out.strip().splitlines()[-1])
            stream.start()
            print(f"[{name}] {len(lists)} lists saved; the news site publishes from now")
            time.sleep(args.minutes * 60 + TAIL_SECONDS)
        finally:
            stack.stop()
        measure(result, stack, stream, inbox.taken(), saved)
    blog.shutdown()
    if name == "postgres" and not args.keep:
        drop_database()
    if not args.keep:
        shutil.rmtree(var_dir, ignore_errors=True)
    return result


def measure(
    result: Result,
    stack: Stack,
    stream: Stream,
    mails: list[tuple[float, list[str], bytes]],
    saved: float,
) -> None:
    """Fill in the summaries' and the articles' latencies from the mail and the database."""
    result.backfilled = int(
        stack.query(
            "SELECT COUNT(*) FROM clipping_match m JOIN clipping_digest d ON d.id = m.digest_id "
            "WHERE d.kind = 'summary'"
        )[0][0]
    )
    mailed: dict[int, float] = {}
    kinds = {"instant": 0, "summary": 0, "hourly digest": 0}
    for arrived, recipients, raw in mails:
        if READER not in recipients:
            continue
        message = email.message_from_bytes(raw, policy=policy.default)
        subject = str(message["Subject"])
        if "already match" in subject:
            kinds["summary"] += 1
            result.summaries.append(arrived - saved)
            continue
        kinds["hourly digest" if "from the last hour" in subject else "instant"] += 1
        part = message.get_body(preferencelist=("plain",))
        body = part.get_content() if part is not None else ""
        for path in re.findall(r"http://127\.0\.0\.1:\d+(/article/[^\s/]+/)", body):
            n = stream.by_url(path)
            if n is not None:
                mailed.setdefault(n, arrived)
    published = [stream.published_at(n).timestamp() for n in range(len(stream.stories))]
    due = [n for n in range(len(stream.stories)) if published[n] <= time.time() - TAIL_SECONDS]
    result.latencies = [max(mailed[n] - published[n], 0.0) for n in due if n in mailed]
    result.missing = sum(n not in mailed for n in due)
    result.mails = kinds


def report(result: Result) -> list[bool]:
    print(f"\n== {result.name} ==")
    print(f"  mails: {result.mails}")
    checks = [
        (f"backfill matches >= {MIN_BACKFILL}", result.backfilled >= MIN_BACKFILL,
         str(result.backfilled)),
        (f"every backfill match mailed within {TARGET_SUMMARY:.0f} s of saving (summaries)",
         bool(result.summaries) and max(result.summaries) <= TARGET_SUMMARY,
         f"{len(result.summaries)} summaries, last after {fmt(max(result.summaries, default=None))}"),
        (f"publish -> mail median <= {TARGET_MEDIAN:.0f} s", _at_most(result, 50, TARGET_MEDIAN),
         fmt(pct(result.latencies, 50))),
        (f"publish -> mail p90 <= {TARGET_P90:.0f} s", _at_most(result, 90, TARGET_P90),
         fmt(pct(result.latencies, 90))),
        ("every article published mailed", result.missing == 0 and bool(result.latencies),
         f"{len(result.latencies)} mailed, {result.missing} missing, "
         f"max {fmt(max(result.latencies, default=None))}"),
    ]  # fmt: skip
    for name, ok, shown in checks:
        print(f"  {'PASS' if ok else 'FAIL'}  {name}: {shown}")
    return [ok for _, ok, _ in checks]


def _at_most(result: Result, p: float, target: float) -> bool:
    value = pct(result.latencies, p)
    return value is not None and value <= target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=6.0)
    parser.add_argument("--publish-every", type=float, default=20.0)
    parser.add_argument("--configs", default="embedded,postgres")
    parser.add_argument("--keep", action="store_true", help="keep the database and var dir")
    args = parser.parse_args()
    stories = eval_stories(int(args.minutes * 60 // args.publish_every))
    print(f"{len(stories)} articles, one every {args.publish_every:.0f} s for {args.minutes} min")
    checks: list[bool] = []
    for name in args.configs.split(","):
        checks += report(run_config(name, stories, args))
    print(f"\n{'PASS' if all(checks) else 'FAIL'}: {sum(checks)}/{len(checks)} targets met")


if __name__ == "__main__":
    main()
