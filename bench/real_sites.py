"""Benchmark real sites as they are, on the demo's three cases (`demo.cases`), both strategies.

1. A mirror whose articles name their originals on another website (rel=canonical): every
   article of the mirror found (12 of 12), none judged a copy.
2. A script-built entry page (its script lists the books from a catalogue and gives the page
   a new address): both strategies reach every chapter of the book behind it (10 of 10),
   rendering the entry page as the per-page decision does.
3. A database front end whose only search form is on the table's page: breadth-first (the
   default strategy) finds >= 90% of the rows naming each of three keywords, which only
   search results link.

Each case is a site of its own rooted at its path (other paths of the demo excluded), with
the defaults a person's site gets: budget 300, crawl delay 0, one keyword list.

Usage: .venv/bin/python bench/real_sites.py [--seed 1]
Needs PostgreSQL (DATABASE_URL, as `make bench` sets it) and Chromium; uses its own database.
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

from analyzer.text import stems  # noqa: E402
from crawler.models import CrawlRun, Page, Site  # noqa: E402
from crawler.run.loop import crawl  # noqa: E402
from crawler.topic import Topic, register_topic_provider  # noqa: E402
from demo import cases  # noqa: E402
from demo.server import serve  # noqa: E402

BUDGET = 300
TARGETS = {"mirror": 1.0, "library": 1.0, "db": 0.9}


def keyword_topic(*words: str) -> Topic:
    """Return the topic of one keyword list holding `words`, as clipping builds it."""
    return Topic(terms={stem: 1.0 for stem in stems(list(words))}, queries={w: 1.0 for w in words})


def crawl_case(
    base: str, under: str, strategy: str, topic: Topic, seed: int
) -> tuple[CrawlRun, set[str]]:
    """Crawl the case rooted at `under` with defaults; return the run and the paths fetched."""
    Site.objects.all().delete()
    register_topic_provider(lambda site: topic)
    site = Site.objects.create(
        name=f"{under} {strategy}",
        root_url=base + under,
        allow_private_network=True,
        crawl_delay=0,
        page_budget=BUDGET,
        exclude_patterns=rf"^https?://[^/]+/(?!{under.strip('/')}/?)",
    )
    run = crawl(site, strategy=strategy, seed=seed)
    fetched = Page.objects.filter(site=site, versions__isnull=False).values_list("url", flat=True)
    return run, {url.removeprefix(base) for url in fetched}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    settings.DATABASES["default"]["TEST"]["NAME"] = "webclip_bench_real_sites"
    old = setup_databases(verbosity=0, interactive=False, serialized_aliases=set())
    server, _ = serve(port=0)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    checks: list[tuple[bool, str]] = []
    try:
        legs = [
            ("mirror", "/mirror/", ["bfs", "xcrawl"], ["harbour"], {"": cases.mirror_paths()}),
            ("library", "/library/", ["bfs", "xcrawl"], ["harbour"], {"": cases.library_paths()}),
            (
                "db",
                "/db/",
                ["bfs", "xcrawl"],
                cases.DB_KEYWORDS,
                {k: cases.db_paths(k) for k in cases.DB_KEYWORDS},
            ),
        ]
        print(f"{'case':8} {'strategy':8} {'fetched':>7} {'found':>10}  stop / learned")
        for name, under, strategies, words, targets in legs:
            for strategy in strategies:
                run, fetched = crawl_case(
                    base, under, strategy, keyword_topic(*words), options.seed
                )
                for label, paths in targets.items():
                    found = sum(p in fetched for p in paths)
                    share = found / len(paths)
                    tag = f"{name}{'/' + label if label else ''}"
                    extra = (
                        f"copies {run.learned.get('copy_shapes')}, canonicals elsewhere "
                        f"{run.learned.get('foreign_canonical_count')}, explored "
                        f"{run.learned.get('explored')}"
                    )
                    print(
                        f"{tag:24} {strategy:8} {run.fetched:7d} {found:4d} / {len(paths):3d}"
                        f"  {run.stop_reason}; {extra}"
                    )
                    wanted = name != "db" or strategy == "bfs"
                    if wanted:
                        checks.append(
                            (
                                share >= TARGETS[name],
                                f"{tag} {strategy}: {found} of {len(paths)} "
                                f"(target >= {TARGETS[name]:.0%})",
                            )
                        )
    finally:
        server.shutdown()
        register_topic_provider(None)
        teardown_databases(old, verbosity=0)
    print()
    for ok, text in checks:
        print(f"{'PASS' if ok else 'FAIL'} {text}")
    return 0 if all(ok for ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
