"""Benchmark xCrawl's recall against breadth-first on a real blog, a generated shop and the demo.

1. The real blog (`../shared/eval/sites/andreagrandi`, a Hugo blog: 255 posts, a paginated
   post list of 51 pages, category and tag hubs, feeds, a sitemap on the production host),
   served from its dump by `python3 -m http.server` on 127.0.0.1. For each topic (a user's
   one-word keyword list: python 36 posts, maemo 48, ubuntu 25) breadth-first and the
   xCrawl variants crawl it in the same run, once with every hub and once with category
   and tag hubs excluded (the site's exclude pattern refuses /categories/ and /tags/), with
   the site's default max_depth (8). Recall after 100 and 250 fetches: the topic's posts
   fetched / the topic's posts.
2. Repeatability: the same xCrawl run twice with the same seed fetches the same URLs in the
   same order.
3. The generated shop (tests/crawler/xcrawl_site.py, about 3,900 pages): targets are the
   pages the validator accepts; recall after 100, 250 and 500 fetches.
4. The demo site (demo/): a calendar trap and print copies with tracking parameters and
   rel=canonical; trap fetches and the duplicate share of fetches, per strategy.
5. Crawl speed: pages/s of xCrawl and breadth-first over the same budget, fetching,
   analysis and storage included (the whole run loop, PostgreSQL), after a short untimed
   run of each strategy has done what a worker does once (analysing processes started,
   word lists and libraries loaded); the ratio of every topic's pair is printed too.

Usage: .venv/bin/python bench/focused_recall.py [--variants hits+tspr,hits,hits+pagerank]
       [--topics python,maemo,ubuntu] [--skip-shop] [--skip-demo] [--seed 1]
Needs PostgreSQL (DATABASE_URL, as `make bench` sets it); uses its own database.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/webclip")
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.test.utils import setup_databases, teardown_databases  # noqa: E402

from analyzer import analyze  # noqa: E402
from analyzer.text import stems  # noqa: E402
from crawler.models import Site  # noqa: E402
from crawler.run.loop import crawl  # noqa: E402
from crawler.strategies import PageObservation  # noqa: E402
from crawler.strategies.xcrawl.validator import validate  # noqa: E402
from crawler.topic import Topic, register_topic_provider  # noqa: E402
from tests.servers import free_port  # noqa: E402

BLOG = ROOT.parent / "shared" / "eval" / "sites" / "andreagrandi"
TOPICS = {"python": "python", "maemo": "maemo-en", "ubuntu": "ubuntu-en"}
VARIANTS = {
    "hits+tspr": "xcrawl",
    "hits": "xcrawl-hits",
    "hits+pagerank": "xcrawl-pagerank",
    "evidence": "xcrawl-evidence",
    "walk": "xcrawl-walk",
}
EXCLUDE_HUBS = r"^https?://[^/]+/(categories|tags)/"
TARGETS = {"recall@100": 0.60, "vs_bfs": 2.0, "trap_fetches": 30, "duplicate_share": 0.05}
TARGETS |= {"speed": 0.80}


def keyword_topic(*words: str) -> Topic:
    """Return the topic of one keyword list holding `words`, as clipping builds it."""
    return Topic(terms={stem: 1.0 for stem in stems(list(words))}, queries={w: 1.0 for w in words})


def blog_posts() -> set[str]:
    return {
        f"/posts/{d}/"
        for d in os.listdir(BLOG / "posts")
        if (BLOG / "posts" / d / "index.html").is_file()
    }


def blog_topic(category: str) -> set[str]:
    """Return the posts of a category (the README's definition)."""
    files = [
        BLOG / "categories" / category / "index.html",
        *glob.glob(str(BLOG / "categories" / category / "page" / "*" / "index.html")),
    ]
    links: set[str] = set()
    for name in files:
        text = Path(name).read_text(encoding="utf-8")
        links |= {unquote(h) for h in re.findall(r'href="(/posts/[^"]+/)"', text)}
    return links & blog_posts()


@dataclass
class Result:
    label: str
    fetched: list[str] = field(default_factory=list)
    seconds: float = 0.0
    run: object = None


def run_one(
    label: str,
    root: str,
    strategy: str,
    topic: Topic,
    budget: int,
    seed: int,
    *,
    excludes: str = "",
    max_depth: int = 8,
) -> Result:
    Site.objects.all().delete()
    register_topic_provider(lambda site: topic)
    site = Site.objects.create(
        name=label[:100],
        root_url=root,
        allow_private_network=True,
        crawl_delay=0,
        page_budget=budget,
        max_depth=max_depth,
        obey_robots=True,
        exclude_patterns=excludes,
    )
    result = Result(label)

    def progress(run, observation: PageObservation) -> None:
        if observation.status is not None:
            result.fetched.append(observation.url)

    started = time.perf_counter()
    result.run = crawl(
        site, strategy=strategy, max_pages=budget, seed=seed, render_shells="off", progress=progress
    )
    result.seconds = time.perf_counter() - started
    return result


def rate(result: Result) -> float:
    """Return a run's fetches per second."""
    return len(result.fetched) / result.seconds


def recall(result: Result, targets: set[str], n: int) -> float:
    return len(targets & set(result.fetched[:n])) / len(targets) if targets else 0.0


class BlogServer:
    """The blog's dump served by Python's own HTTP server in another process."""

    def __enter__(self) -> str:
        port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
            cwd=BLOG,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        return f"http://127.0.0.1:{port}/"

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def bench_blog(options, variants: list[str]) -> dict:
    posts = {name: blog_topic(category) for name, category in TOPICS.items()}
    chosen = [t for t in options.topics.split(",") if t]
    figures: dict = {"rows": [], "speed": {}, "repeat": None, "checks": []}
    print(
        f"Real blog: {len(blog_posts())} posts; "
        + ", ".join(f"{t} {len(posts[t])}" for t in chosen)
        + f"; budget 250, seed {options.seed}, concurrency {options.concurrency}, max_depth 8"
    )
    print(
        f"{'topic':8} {'hubs':9} {'strategy':22} {'R@100':>7} {'R@250':>7} "
        f"{'harvest':>8} {'hub/post/trap/dup':>18} {'pages/s':>8}"
    )
    with BlogServer() as root:
        # Untimed, a short run of each strategy: what a worker does once (starting the
        # analysing processes, loading word lists and libraries) would otherwise be charged
        # to the first run of each.
        for label, strategy in [("bfs", "bfs")] + [(v, VARIANTS[v]) for v in variants]:
            run_one(f"warm-up {label}", root, strategy, keyword_topic(chosen[0]), 50, options.seed)
        for topic_name in chosen:
            topic = keyword_topic(topic_name)
            targets = {root.rstrip("/") + p for p in posts[topic_name]}
            for mode, excludes in (("all", ""), ("excluded", EXCLUDE_HUBS)):
                results = {}
                labels = [("bfs", "bfs")] + [(f"xcrawl {v}", VARIANTS[v]) for v in variants]
                for label, strategy in labels:
                    result = run_one(
                        label, root, strategy, topic, 250, options.seed, excludes=excludes
                    )
                    results[label] = result
                    run = result.run
                    print(
                        f"{topic_name:8} {mode:9} {label:22} {recall(result, targets, 100):7.1%} "
                        f"{recall(result, targets, 250):7.1%} "
                        f"{(run.harvest_rate or 0):8.1%} "
                        f"{run.hub_fetches:>4}/{run.post_fetches}/{run.trap_fetches}/"
                        f"{run.duplicate_fetches:<6} "
                        f"{rate(result):8.1f}",
                        flush=True,
                    )
                figures["rows"].append((topic_name, mode, results, targets))
                if topic_name == chosen[0] and mode == "excluded":
                    run = results.get("xcrawl hits+tspr")
                    if run is not None:
                        terms = list(run.run.learned.get("terms", {}))[:12]
                        print(f"  learned terms ({topic_name}): {', '.join(terms) or '-'}")
        # Repeatability: the same run twice.
        topic_name = chosen[0]
        topic = keyword_topic(topic_name)
        first = run_one("repeat 1", root, "xcrawl", topic, 150, options.seed, excludes=EXCLUDE_HUBS)
        second = run_one(
            "repeat 2", root, "xcrawl", topic, 150, options.seed, excludes=EXCLUDE_HUBS
        )
        figures["repeat"] = first.fetched == second.fetched
        print(
            f"Repeatability ({topic_name}, hubs excluded, seed {options.seed}, 150 fetches): "
            f"{'identical' if figures['repeat'] else 'DIFFERENT'} fetch sequences"
        )
    return figures


def judge_blog(figures: dict, variants: list[str]) -> list[tuple[bool, str]]:
    checks = []
    main = "xcrawl hits+tspr" if "hits+tspr" in variants else f"xcrawl {variants[0]}"
    for topic_name, mode, results, targets in figures["rows"]:
        mine, bfs = results[main], results["bfs"]
        if mode == "excluded":
            r100 = recall(mine, targets, 100)
            b100 = recall(bfs, targets, 100)
            checks.append(
                (
                    r100 >= TARGETS["recall@100"],
                    f"{topic_name}: {main} recall@100 "
                    f"{r100:.0%} (target >= {TARGETS['recall@100']:.0%})",
                )
            )
            ratio = r100 / b100 if b100 else float("inf")
            checks.append(
                (
                    ratio >= TARGETS["vs_bfs"],
                    f"{topic_name}: {main} recall@100 / bfs "
                    f"{ratio:.2f}x (target >= {TARGETS['vs_bfs']}x)",
                )
            )
        worst = min(
            recall(mine, targets, n) - recall(bfs, targets, n)
            for n in range(10, len(mine.fetched) + 1, 10)
        )
        checks.append(
            (
                worst >= 0,
                f"{topic_name} ({mode} hubs): {main} never below bfs "
                f"(worst gap {worst:+.1%} over budgets 10..250)",
            )
        )
    speeds = [(r[main], r["bfs"]) for _, _, r, _ in figures["rows"]]
    mine = sum(len(a.fetched) for a, _ in speeds) / sum(a.seconds for a, _ in speeds)
    theirs = sum(len(b.fetched) for _, b in speeds) / sum(b.seconds for _, b in speeds)
    checks.append(
        (
            mine >= TARGETS["speed"] * theirs,
            f"speed: {main} {mine:.1f} pages/s vs bfs "
            f"{theirs:.1f} pages/s = {mine / theirs:.1%} (target >= 80%; per topic and hubs: "
            + " / ".join(f"{rate(a) / rate(b):.0%}" for a, b in speeds)
            + ")",
        )
    )
    checks.append((bool(figures["repeat"]), "same seed -> same fetch sequence"))
    return checks


def bench_shop(options) -> list[tuple[bool, str]]:
    from tests.crawler.servers import SiteServer
    from tests.crawler.xcrawl_site import TOPIC_WORDS, build_shop

    topic = Topic(terms={stem: 1.0 for stem in stems(TOPIC_WORDS)})
    shop = build_shop(seed=options.seed)
    with SiteServer() as server:
        shop.serve(server)
        targets = {
            server.origin + path
            for path in shop.paths()
            if validate(analyze(shop.answer(path), server.origin + path), topic).accepted
        }
        print(
            f"\nGenerated shop: {len(shop.paths())} pages, {len(targets)} targets "
            f"(validator-accepted); budget 500"
        )
        print(f"{'strategy':22} {'R@100':>7} {'R@250':>7} {'R@500':>7} {'pages/s':>8}")
        results = {}
        for label, strategy in (("bfs", "bfs"), ("xcrawl hits+tspr", "xcrawl")):
            result = run_one(
                label, server.url("/"), strategy, topic, 500, options.seed, max_depth=20
            )
            results[label] = result
            print(
                f"{label:22} "
                + " ".join(f"{recall(result, targets, n):7.1%}" for n in (100, 250, 500))
                + f" {rate(result):8.1f}",
                flush=True,
            )
    mine = recall(results["xcrawl hits+tspr"], targets, 250)
    theirs = recall(results["bfs"], targets, 250)
    return [(mine >= theirs, f"shop: xcrawl recall@250 {mine:.0%} vs bfs {theirs:.0%}")]


def bench_demo(options) -> list[tuple[bool, str]]:
    from demo.server import serve

    server, _ = serve(port=0)
    root = f"http://127.0.0.1:{server.server_address[1]}/"
    checks = []
    try:
        print("\nDemo site (calendar trap, print copies with tracking parameters): budget 300")
        print(f"{'strategy':22} {'fetched':>8} {'trap':>6} {'dup':>6} {'dup share':>10}  stop")
        for label, strategy in (("bfs", "bfs"), ("xcrawl hits+tspr", "xcrawl")):
            result = run_one(label, root, strategy, keyword_topic("election"), 300, options.seed)
            run = result.run
            share = run.duplicate_fetches / run.fetched if run.fetched else 0.0
            print(
                f"{label:22} {run.fetched:8d} {run.trap_fetches:6d} {run.duplicate_fetches:6d} "
                f"{share:10.1%}  {run.stop_reason}"
            )
            shapes = run.learned.get("trap_shapes", []) + run.learned.get("copy_shapes", [])
            print(f"  judged shapes: {', '.join(shapes) or '-'}")
            checks.append(
                (
                    run.trap_fetches <= TARGETS["trap_fetches"],
                    f"demo {label}: trap fetches {run.trap_fetches} (target <= 30)",
                )
            )
            checks.append(
                (
                    share <= TARGETS["duplicate_share"],
                    f"demo {label}: duplicate share {share:.1%} (target <= 5%)",
                )
            )
    finally:
        server.shutdown()
    return checks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--variants", default="hits+tspr,hits,hits+pagerank")
    parser.add_argument("--topics", default="python,maemo,ubuntu")
    parser.add_argument("--skip-shop", action="store_true")
    parser.add_argument("--skip-demo", action="store_true")
    parser.add_argument("--database", default="webclip_bench_focused_recall")
    options = parser.parse_args()
    variants = [v for v in options.variants.split(",") if v]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; known: {', '.join(VARIANTS)}")
    settings.CRAWLER_RUN_CONCURRENCY = options.concurrency
    settings.DATABASES["default"]["TEST"]["NAME"] = options.database
    old = setup_databases(verbosity=0, interactive=False, serialized_aliases=set())
    checks: list[tuple[bool, str]] = []
    try:
        figures = bench_blog(options, variants)
        checks += judge_blog(figures, variants)
        if not options.skip_shop:
            checks += bench_shop(options)
        if not options.skip_demo:
            checks += bench_demo(options)
    finally:
        teardown_databases(old, verbosity=0)
    print()
    for ok, text in checks:
        print(f"{'PASS' if ok else 'FAIL'} {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
