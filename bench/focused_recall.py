"""Benchmark xCrawl's recall against breadth-first and a best-first focused crawler.

The site: a generated shop on 127.0.0.1 (tests/crawler/xcrawl_site.py), about 3,900 pages:
a header menu with JavaScript brand menus built on hover, a category hierarchy (12 sections
-> 7 brands each -> paginated product lists, 24 to 60 products per brand, 12 per page),
product pages with breadcrumbs and related products, a site map page, a paginated blog, a
GET search form, and off-topic sections built from structurally identical pages (cameras
versus printers, phones, laptops, tablets, televisions, headphones, monitors, watches,
consoles, kitchen appliances, accessories). URLs carry ids, not words; 30% of the product
names end with their category's noun ("... camera", "... printer"), and some off-topic
anchors name the topic (camera bags, lens care, webcams "for zoom calls"). The targets
(the cameras and the camera guides) are about 6.5% of the pages.

The topic: the keywords camera, sensor, zoom, lens, megapixel. The targets: every page the
validator accepts (checked offline on every page of the site), the denominator of recall.

Every strategy runs through the real crawl loop (crawler.run.loop.crawl: real fetcher, real
analyzer, PostgreSQL) with the same budget; recall after 100, 250 and 500 fetches and the
harvest rate (targets / fetched) come from the order of the fetches. Peers:

- bfs: the crawler's breadth-first strategy;
- best-first: a classic focused crawler; each unfetched URL is scored by the similarity of
  its anchor texts and URL words to the topic (stems), ties in discovery order;
- xcrawl variants: HITS only, HITS + PageRank, HITS + topic-sensitive PageRank (default),
  and the default without the site's search (no query generation).

Usage: .venv/bin/python bench/focused_recall.py [--budget 500] [--seed 1] [--concurrency 4]
Needs PostgreSQL (DATABASE_URL, as `make bench` sets it); uses its own database.
"""

from __future__ import annotations

import argparse
import heapq
import os
import sys
import time
from dataclasses import dataclass, field
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
from analyzer.text import stems, tokenize  # noqa: E402
from crawler.conf import xcrawl_settings  # noqa: E402
from crawler.models import Site  # noqa: E402
from crawler.run.loop import crawl  # noqa: E402
from crawler.strategies import PageObservation, Strategy, register  # noqa: E402
from crawler.strategies.xcrawl import XCrawl, XCrawlHits, XCrawlPageRank  # noqa: E402
from crawler.strategies.xcrawl.validator import validate  # noqa: E402
from crawler.topic import Topic, register_topic_provider  # noqa: E402
from tests.crawler.servers import SiteServer  # noqa: E402
from tests.crawler.xcrawl_site import TOPIC_WORDS, build_shop  # noqa: E402

CHECKPOINTS = (100, 250, 500)
TARGETS = {"vs_bfs": 2.0, "vs_best_first": 1.4, "weight_share": 0.10}
TOPIC = Topic(terms={stem: 1.0 for stem in stems(TOPIC_WORDS)}, language="en")
INSTANCES: list[Strategy] = []


# --- The best-first baseline ------------------------------------------------------------------


@register
class BestFirst(Strategy):
    """Fetch the URL whose anchors and URL words share most stems with the topic first."""

    name = "b-best-first"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.heap: list[tuple[float, int, str]] = []
        self.score: dict[str, float] = {}
        self.order = 0
        self.seen: set[str] = set()
        for url in self.site.seeds():
            self._push(self.frontier.canonical(url), 1.0)

    def next_urls(self, limit: int) -> list[str]:
        urls: list[str] = []
        while self.heap and len(urls) < limit:
            negative, _, url = heapq.heappop(self.heap)
            if url in self.seen or -negative < self.score.get(url, 0.0):
                continue  # fetched, or an outdated entry
            self.seen.add(url)
            urls.append(url)
        return urls

    def observe(self, observation: PageObservation) -> None:
        for link in observation.links:
            if link.url in self.seen or self.frontier.refusal(link.url, observation.depth + 1):
                continue
            words = tokenize(link.anchor) + tokenize(link.url.split("://", 1)[-1])
            found = set(stems(words, TOPIC.language))
            relevance = TOPIC.score(found) / max(1.0, sum(TOPIC.terms.values()))
            self._push(link.url, max(relevance, self.score.get(link.url, 0.0)))

    def _push(self, url: str, score: float) -> None:
        if url in self.score and score <= self.score[url]:
            return
        self.score[url] = score
        self.order += 1
        heapq.heappush(self.heap, (-score, self.order, url))


# --- xCrawl variants, remembered so their weight time can be read -----------------------------


def remembered(cls: type[XCrawl], name: str, **overrides: object) -> type[XCrawl]:
    def init(self, *args, **kwargs) -> None:
        kwargs["settings"] = xcrawl_settings(
            **({"variant": cls.variant} if cls.variant else {}), **overrides
        )
        cls.__init__(self, *args, **kwargs)
        INSTANCES.append(self)

    return register(
        type(f"Bench{cls.__name__}{len(name)}", (cls,), {"name": name, "__init__": init})
    )


RUNS = [
    ("bfs", "bfs"),
    ("best-first", "b-best-first"),
    ("xcrawl hits", remembered(XCrawlHits, "b-xc-hits").name),
    ("xcrawl hits+pagerank", remembered(XCrawlPageRank, "b-xc-pagerank").name),
    ("xcrawl hits+tspr", remembered(XCrawl, "b-xc").name),
    ("xcrawl hits+tspr, no search", remembered(XCrawl, "b-xc-nosearch", search=False).name),
]


@dataclass
class Result:
    label: str
    fetched: list[str] = field(default_factory=list)
    seconds: float = 0.0
    weight_seconds: float | None = None
    stop_reason: str = ""


def targets_of(shop, origin: str) -> set[str]:
    """Return the URLs of the pages the validator accepts (checked on every page)."""
    found = set()
    for path in shop.paths():
        analysis = analyze(shop.answer(path), origin + path)
        if validate(analysis, TOPIC).accepted:
            found.add(origin + path)
    return found


def run_one(label: str, strategy: str, server: SiteServer, budget: int, seed: int) -> Result:
    Site.objects.all().delete()
    site = Site.objects.create(
        name="GadgetHall",
        root_url=server.url("/"),
        allow_private_network=True,
        crawl_delay=0,
        page_budget=budget,
        max_depth=20,
        obey_robots=True,
    )
    result = Result(label)
    INSTANCES.clear()

    def progress(run, observation: PageObservation) -> None:
        if observation.status is not None:
            result.fetched.append(observation.url)

    started = time.perf_counter()
    run = crawl(
        site, strategy=strategy, max_pages=budget, seed=seed, render_shells="off", progress=progress
    )
    result.seconds = time.perf_counter() - started
    result.stop_reason = run.stop_reason
    if INSTANCES:
        result.weight_seconds = INSTANCES[0].weights.seconds
    return result


def recall(result: Result, targets: set[str], n: int) -> float:
    return len(targets & set(result.fetched[:n])) / len(targets)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--only", default="", help="labels to run, separated by ;")
    options = parser.parse_args()
    if os.environ.get("XCRAWL_DEBUG"):
        import logging

        debug = logging.getLogger("crawler.strategies.xcrawl")
        debug.addHandler(logging.FileHandler(os.environ["XCRAWL_DEBUG"], mode="w"))
        debug.setLevel(logging.DEBUG)
    settings.CRAWLER_RUN_CONCURRENCY = options.concurrency
    settings.DATABASES["default"]["TEST"]["NAME"] = "webclip_bench_focused_recall"
    register_topic_provider(lambda site: TOPIC)
    shop = build_shop(seed=options.seed)
    old = setup_databases(verbosity=0, interactive=False)
    try:
        with SiteServer() as server:
            shop.serve(server)
            targets = targets_of(shop, server.origin)
            print(
                f"Site: {len(shop.paths())} pages, {len(targets)} targets (validator-accepted); "
                f"budget {options.budget}, seed {options.seed}, concurrency {options.concurrency}"
            )
            chosen = [r for r in RUNS if not options.only or r[0] in options.only.split(";")]
            results = []
            for label, name in chosen:
                results.append(run_one(label, name, server, options.budget, options.seed))
                print(f"  ran {label}: {results[-1].seconds:.1f} s", file=sys.stderr)
    finally:
        teardown_databases(old, verbosity=0)
    report(results, targets)
    if os.environ.get("XCRAWL_TRACE"):
        trace(results, shop, targets)
    return 0


def trace(results: list[Result], shop, targets: set[str]) -> None:
    for result in results:
        print("==", result.label)
        line = []
        for i, url in enumerate(result.fetched):
            path = "/" + url.split("/", 3)[3]
            kind = path.split("/")[1].split("?")[0] or "home"
            if kind == "item":
                kind = "I" + shop.products[int(path.split("/")[2])].category[:3]
            mark = "*" if url in targets else ""
            line.append(f"{kind}{mark}")
            if len(line) == 20:
                print(f"{i - 19:4d}", " ".join(line))
                line = []
        if line:
            print(" ".join(line))
        missing = sorted(targets - set(result.fetched))
        print("missing:", [m.split("/", 3)[3] for m in missing])


def report(results: list[Result], targets: set[str]) -> None:
    header = f"{'strategy':30} " + " ".join(f"{'R@' + str(n):>7}" for n in CHECKPOINTS)
    print(header + f" {'harvest':>8} {'fetched':>8} {'seconds':>8} {'weights':>8}  stop")
    by_label = {}
    for result in results:
        recalls = [recall(result, targets, n) for n in CHECKPOINTS]
        harvest = len(targets & set(result.fetched)) / max(1, len(result.fetched))
        share = (
            f"{result.weight_seconds / result.seconds:8.1%}"
            if result.weight_seconds is not None
            else f"{'-':>8}"
        )
        print(
            f"{result.label:30} "
            + " ".join(f"{r:7.1%}" for r in recalls)
            + f" {harvest:8.1%} {len(result.fetched):8d} {result.seconds:8.1f} {share}  {result.stop_reason}"
        )
        by_label[result.label] = result
    best = by_label.get("xcrawl hits+tspr")
    if best is None:
        return
    at = 250
    mine = recall(best, targets, at)
    for peer, key in (("bfs", "vs_bfs"), ("best-first", "vs_best_first")):
        if peer in by_label:
            theirs = recall(by_label[peer], targets, at)
            ratio = mine / theirs if theirs else float("inf")
            verdict = "PASS" if ratio >= TARGETS[key] else "FAIL"
            print(
                f"{verdict} xcrawl recall@{at} / {peer}: {ratio:.2f}x (target >= {TARGETS[key]}x)"
            )
    if best.weight_seconds is not None:
        share = best.weight_seconds / best.seconds
        verdict = "PASS" if share < TARGETS["weight_share"] else "FAIL"
        print(
            f"{verdict} xcrawl weight computation: {best.weight_seconds:.2f} s of "
            f"{best.seconds:.1f} s = {share:.1%} (target < {TARGETS['weight_share']:.0%})"
        )


if __name__ == "__main__":
    sys.exit(main())
