"""Benchmark crawling economy on the demo site: every fetch spent once, over a first run, two
revisits and a watch.

The demo news site (demo/) holds each case: search result links carry a tracking parameter
(`?ref=search-1-3`) while every article names its clean URL in rel=canonical; an inline
script appends two sections and two JavaScript-only desks (a JSON API behind "Load more" and
an infinite list) to a menu that already holds links; an endless events calendar; print
copies; an archive behind GET and POST search forms. The users' 11 keyword lists
(`demo.archive.KEYWORDS`) are the topic. xCrawl, page budget 2500, crawl delay 0, the
JavaScript setting at its default (rendering decided page by page). Nothing is published
between runs; before each revisit the clock of every stored row is moved back 6 minutes
(the site's revisits are due every 5 minutes).

Every request the site answers is counted on the server (HTML, JSON, scripts, robots.txt):

- fetches per relevant article: all requests of the three runs and the watch / the articles
  holding a user's keyword that were stored (target <= 6);
- duplicate full downloads: an article path fully downloaded a second time in one run, under
  any spelling (target <= 2% of the requests);
- trap fetches: calendar requests in all runs together (target <= 30);
- search fetches in a revisit run with nothing new published: requests to the search pages
  (GET and POST) against the first run's (target <= 10%);
- JavaScript-only stories stored (linked only from the desks the script adds; the site's
  search never returns them) (target >= 95%);
- links people receive without tracking parameters: the clips' URLs after matching every
  stored version against the users' lists (every mail, feed and API answer carries the
  clip's URL) (target 100%).

Usage: .venv/bin/python -m bench.crawl_economy
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

ROOT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.benchdb import setup_django, throwaway_database  # noqa: E402

BENCH_DB = "webclip_bench_crawl_economy"
VERBOSE = "--verbose" in sys.argv  # print every search request as it is answered
ARTICLE_PREFIXES = ("/article/", "/archive/story/", "/reports/", "/live/story/")
SEARCH_PATHS = ("/search", "/archive/search", "/archive/advanced/results")
TRACKING = {"ref", "utm_source", "utm_medium", "utm_campaign"}
REVISIT_SHIFT = timedelta(minutes=6)
TARGETS = {
    "fetches_per_article": 6.0,
    "duplicate_share": 0.02,
    "trap_fetches": 30,
    "revisit_search_share": 0.10,
    "js_found": 0.95,
    "clean_links": 1.0,
}


class Tally:
    """What the demo site answered, per leg (run or watch)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.leg = "setup"
        self.requests: Counter[str] = Counter()
        self.searches: Counter[str] = Counter()
        self.asked: dict[str, Counter[str]] = {}  # per leg, search requests by path
        self.calendar: Counter[str] = Counter()
        self.duplicates: Counter[str] = Counter()
        self.downloaded: dict[str, set[str]] = {}

    def saw(self, method: str, raw_path: str, status: int) -> None:
        path = urlsplit(raw_path).path
        with self.lock:
            self.requests[self.leg] += 1
            if path in SEARCH_PATHS:
                self.searches[self.leg] += 1
                self.asked.setdefault(self.leg, Counter())[f"{method} {path}"] += 1
                if VERBOSE:
                    print(f"  [{self.leg}] {method} {raw_path}", flush=True)
            if path.startswith("/events/"):
                self.calendar[self.leg] += 1
            if status == 200 and method == "GET" and path.startswith(ARTICLE_PREFIXES):
                seen = self.downloaded.setdefault(self.leg, set())
                if path.rstrip("/").endswith("print"):
                    path = path.rsplit("print", 1)[0]
                if path in seen:
                    self.duplicates[self.leg] += 1
                    if VERBOSE:
                        print(f"  [{self.leg}] again: {method} {raw_path}", flush=True)
                seen.add(path)


def serve_counted(tally: Tally):
    """Start the demo site with every answer counted in `tally`."""
    from http.server import ThreadingHTTPServer

    from demo.server import Handler, NewsSite

    class Counted(Handler):
        site = NewsSite(0)

        def send_response(self, code: int, message: str | None = None) -> None:
            tally.saw(self.command, self.path, code)
            super().send_response(code, message)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Counted)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, Counted.site


def users_topic():
    from analyzer.text import stems, tokenize
    from crawler.topic import Topic
    from demo.archive import KEYWORDS

    terms = {}
    phrases = []
    for keyword in KEYWORDS:
        words = tuple(stems(tokenize(keyword), "en"))
        phrases.append(words)
        terms.update(dict.fromkeys(words, 1.0))
    return Topic(terms=terms, phrases=tuple(phrases), queries=dict.fromkeys(KEYWORDS, 1.0))


def holds_keyword(text: str) -> bool:
    from analyzer.text import stems, tokenize
    from demo.archive import KEYWORDS

    joined = f" {' '.join(stems(tokenize(text), 'en'))} "
    return any(f" {' '.join(stems(tokenize(k), 'en'))} " in joined for k in KEYWORDS)


def relevant_paths(news) -> set[str]:
    """Return the paths of every article of the demo holding a user's keyword."""
    from demo import archive, live

    paths = {
        a.url for a in news.articles() if holds_keyword(a.title + " " + " ".join(a.paragraphs))
    }
    paths |= {s.url for s in archive.ARCHIVE if holds_keyword(s.text)}
    paths |= {s.url for s in live.STORIES if holds_keyword(s.title + " " + " ".join(s.paragraphs))}
    return paths


def move_clock_back() -> None:
    """Make every stored moment of the crawler 6 minutes older: the revisit is due."""
    from django.apps import apps
    from django.db import models
    from django.db.models import F

    for model in apps.get_app_config("crawler").get_models():
        for field in model._meta.get_fields():
            if isinstance(field, models.DateTimeField) and not field.auto_now:
                model.objects.filter(**{f"{field.name}__isnull": False}).update(
                    **{field.name: F(field.name) - REVISIT_SHIFT}
                )


def received_links(site) -> tuple[int, int]:
    """Match every stored version against the users' lists; return (clean links, links)."""
    from accounts.models import User
    from clipping.ingest import ingest_version
    from clipping.matching import refresh_index
    from clipping.models import Clip, KeywordList
    from crawler.models import PageVersion
    from demo.archive import KEYWORDS

    owner = User.objects.create_user(email="reader@example.com", password="x" * 20)
    for keyword in KEYWORDS:
        KeywordList.objects.create(owner=owner, name=keyword, terms=keyword)
    refresh_index()
    for version_id in PageVersion.objects.filter(page__site=site).values_list("id", flat=True):
        ingest_version(version_id)
    urls = list(Clip.objects.values_list("url", flat=True))
    clean = [u for u in urls if not {k.lower() for k, _ in parse_qsl(urlsplit(u).query)} & TRACKING]
    return len(clean), len(urls)


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def main() -> int:
    setup_django(crawl_only=True)
    from crawler.models import CrawlRun, Page, Site, SiteLesson
    from crawler.models.hiddenweb import RunRender
    from crawler.run.loop import crawl
    from crawler.run.watch import watch
    from crawler.topic import register_topic_provider
    from demo import live

    tally = Tally()
    started = time.perf_counter()
    with throwaway_database(BENCH_DB):
        server, news = serve_counted(tally)
        root = f"http://127.0.0.1:{server.server_address[1]}/"
        topic = users_topic()
        register_topic_provider(lambda site: topic)
        site = Site.objects.create(
            name="demo", root_url=root, allow_private_network=True, crawl_delay=0,
            page_budget=2500, max_depth=8, strategy="xcrawl",
        )  # fmt: skip
        runs = []
        try:
            for leg in ("first run", "revisit 1", "revisit 2"):
                if runs:
                    move_clock_back()
                tally.leg = leg
                runs.append(crawl(site.id, strategy="xcrawl", seed=1))
            move_clock_back()
            tally.leg = "watch"
            watched = watch(site.id)
            tally.leg = "after"
            clean, links = received_links(site)
        finally:
            server.shutdown()
        stored = set(
            urlsplit(u).path
            for u in Page.objects.filter(site=site, versions__isnull=False).values_list(
                "url", flat=True
            )
        )
        relevant = relevant_paths(news)
        found = relevant & stored
        js_only = {s.url for s in live.STORIES}
        js_found = js_only & stored
        lessons = list(SiteLesson.objects.filter(site=site).values_list("kind", "key"))
        renders = list(RunRender.objects.filter(site=site).values_list("url", "reason"))
        legs = ("first run", "revisit 1", "revisit 2", "watch")
        total = sum(tally.requests[leg] for leg in legs)
        duplicates = sum(tally.duplicates[leg] for leg in legs)
        traps = sum(tally.calendar[leg] for leg in legs)
        print(f"Crawl economy on the demo site ({time.perf_counter() - started:.0f} s)\n")
        print(f"{'leg':10} {'requests':>8} {'search':>7} {'calendar':>8} {'dup dl':>7}  run")
        for leg, run in zip(legs, [*runs, None], strict=True):
            extra = (
                f"fetched {run.fetched} rendered {run.rendered} dup {run.duplicate_fetches}"
                f" trap {run.trap_fetches} stop {run.stop_reason}"
                if isinstance(run, CrawlRun)
                else f"hubs {watched.hubs} new {watched.new_pages}"
            )
            print(
                f"{leg:10} {tally.requests[leg]:8d} {tally.searches[leg]:7d} "
                f"{tally.calendar[leg]:8d} {tally.duplicates[leg]:7d}  {extra}"
            )
        for leg in legs:
            print(f"  {leg}: search requests {dict(tally.asked.get(leg, {}))}")
        print(f"\nLessons kept for the site: {sorted(lessons)}")
        print(f"Pages rendered (url, reason): {renders}")
        per_article = total / len(found) if found else float("inf")
        first_search = tally.searches["first run"]
        revisit_search = max(tally.searches["revisit 1"], tally.searches["revisit 2"])
        search_share = revisit_search / first_search if first_search else 0.0
        checks = [
            (per_article <= TARGETS["fetches_per_article"],
             f"fetches per relevant article: {total}/{len(found)} = {per_article:.2f} (target <= 6;"
             f" {len(found)} of {len(relevant)} relevant articles stored)"),
            (duplicates <= TARGETS["duplicate_share"] * total,
             f"duplicate full downloads: {duplicates} = {duplicates / max(total, 1):.1%} of requests"
             " (target <= 2%)"),
            (traps <= TARGETS["trap_fetches"],
             f"trap (calendar) fetches in all runs and the watch: {traps} (target <= 30)"),
            (search_share <= TARGETS["revisit_search_share"],
             f"search fetches in a revisit run: {revisit_search} vs {first_search} in the first run"
             f" = {search_share:.0%} (target <= 10%)"),
            (len(js_found) >= TARGETS["js_found"] * len(js_only),
             f"JavaScript-only stories found without the site search: {len(js_found)}/{len(js_only)}"
             " (target >= 95%)"),
            (links > 0 and clean == links,
             f"links people receive without tracking parameters: {clean}/{links} (target 100%)"),
        ]  # fmt: skip
        print()
        for ok, text in checks:
            print(f"Target {verdict(ok)}: {text}")
    return 0 if all(ok for ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
