"""Benchmark xCrawl's recall against breadth-first on a real blog, a generated shop and the demo.

1. The real blog (`../shared/eval/sites/andreagrandi`, a Hugo blog: 255 posts, a paginated
   post list of 51 pages, category and tag hubs, feeds, a sitemap on the production host),
   served from its dump on 127.0.0.1 (bench/blog_dump.py; bench/focused_blog.py runs it).
   Topics (a user's one-word keyword list; targets: the posts of a category): python 36
   posts, maemo 48 and ubuntu 25 (older posts whose titles mostly lack the word), development
   39 (the most recent posts, no title has the word). Breadth-first and every xCrawl variant
   (HITS+TSPR, HITS, HITS+PageRank, evidence only, the walk, the paper's walk, measured but
   not held to the targets) crawl it 500 fetches, with hubs reachable, with category and
   tag hubs excluded (the site's exclude pattern), and
   with category and tag links taken out of the pages (the sitemap, rewritten to the
   served origin, lists them). Recall at 25, 50, 100, 250 and 500 fetches, the harvest
   rate, what DownloadAll spent and its harvest, the ablation table, and the paper's
   restartProbability sweep (0.05 to 0.3) by harvest rate.
2. Repeatability: best-first and walk, each run twice with the same seed, fetch the same
   URLs in the same order.
3. The generated shop (tests/crawler/xcrawl_site.py, about 3,900 pages): targets are the
   pages the validator accepts; recall after 100, 250 and 500 fetches.
4. The demo site (demo/): a calendar trap and print copies with tracking parameters and
   rel=canonical; trap fetches and the duplicate share of fetches, per strategy.
5. Crawl speed: pages/s of xCrawl and breadth-first over the same runs, after a short
   untimed run of each strategy (analysing processes started, word lists loaded).

Usage: .venv/bin/python -m bench.focused_recall [--variants hits+tspr,walk] [--topics python]
       [--modes all,excluded,sitemap] [--skip-sweep] [--skip-shop] [--skip-demo] [--seed 1]
       [--concurrency N] [--database NAME]
Needs PostgreSQL (DATABASE_URL, as `make bench` sets it); uses its own database.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

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
from bench.focused_blog import (  # noqa: E402
    MODES,
    TOPICS,
    VARIANTS,
    ablation,
    bench_blog,
    judge_blog,
    keyword_topic,
    rate,
    recall,
    run_one,
)
from crawler.conf import crawler_settings  # noqa: E402
from crawler.strategies.xcrawl.validator import validate  # noqa: E402
from crawler.topic import Topic  # noqa: E402

TARGETS = {"trap_fetches": 30, "duplicate_share": 0.05}


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
    # The product's default (CRAWLER_RUN_CONCURRENCY): what a person's crawl runs with.
    parser.add_argument("--concurrency", type=int, default=crawler_settings().concurrency)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--topics", default=",".join(TOPICS))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--skip-sweep", action="store_true")
    parser.add_argument("--skip-shop", action="store_true")
    parser.add_argument("--skip-demo", action="store_true")
    parser.add_argument("--database", default="webclip_bench_focused_recall")
    options = parser.parse_args()
    variants = [v for v in options.variants.split(",") if v]
    unknown = [v for v in variants if v not in VARIANTS]
    unknown += [t for t in options.topics.split(",") if t and t not in TOPICS]
    unknown += [m for m in options.modes.split(",") if m and m not in MODES]
    if unknown:
        parser.error(
            f"unknown {unknown}; known variants {', '.join(VARIANTS)}, topics "
            f"{', '.join(TOPICS)}, modes {', '.join(MODES)}"
        )
    settings.CRAWLER_RUN_CONCURRENCY = options.concurrency
    settings.DATABASES["default"]["TEST"]["NAME"] = options.database
    old = setup_databases(verbosity=0, interactive=False, serialized_aliases=set())
    checks: list[tuple[bool | None, str]] = []
    try:
        if options.modes:
            figures = bench_blog(options, variants)
            ablation(figures, variants)
            checks += judge_blog(figures, variants)
        if not options.skip_shop:
            checks += bench_shop(options)
        if not options.skip_demo:
            checks += bench_demo(options)
    finally:
        teardown_databases(old, verbosity=0)
    print()
    for ok, text in checks:
        print(f"{'INFO' if ok is None else 'PASS' if ok else 'FAIL'} {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
