"""Benchmark what rendering costs a crawl of the demo site, decided per page or for every page.

The demo news site (demo/, the site of `make run`) runs on 127.0.0.1 with a request counter
in front of it. Its live desks exist only through scripts: their menu items are added by
/static/live.js, the Climate desk's stories come from a JSON API behind a "Load more"
button, the Markets desk's from the same kind of API as the list is scrolled. The site is
marked as needing a browser, and crawled twice, each run on a fresh Site row:

- decide: each page is rendered only when it needs it (a script shell, a page made from
  inline state, a "Load more" control, an empty list a script fills, a script-built menu
  once per run), from the body already fetched;
- every:  every page is rendered (RenderMemory.every), as the site flag used to mean.

Printed: JS-only stories found / present, requests for the main document per rendered page
(the fetch included: the target is 1.0), rendered pages per second, and the whole-crawl
time of both runs. Targets: >= 95% of JS-only stories found; 1.0 request per rendered
page's main document; the per-page decision >= 5x faster than rendering every page.

Usage: .venv/bin/python bench/render_cost.py [--budget 150]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections import Counter
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

ROOT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT_DIR))

from bench.benchdb import setup_django, throwaway_database  # noqa: E402

BENCH_DB = "webclip_bench_render_cost"


def setup() -> None:
    setup_django(crawl_only=True)
    from crawler.run import passes

    passes.unregister_run_pass("hidden-web")  # the links crawl alone


def warm_up() -> None:
    """Start the process's Chromium before timing: neither leg should pay for its launch."""
    from crawler.fetch import policy_from_settings
    from crawler.render import HOST

    HOST.submit(HOST.browser(policy_from_settings())).result()


def counting_demo() -> tuple[ThreadingHTTPServer, Counter[str]]:
    """Start the demo site with a counter of GET requests per path and query."""
    from demo.server import Handler, NewsSite

    hits: Counter[str] = Counter()

    class Counting(Handler):
        site = NewsSite(0)

        def do_GET(self) -> None:  # noqa: N802 (stdlib hook name)
            hits[self.path] += 1
            super().do_GET()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, hits


def leg(name: str, budget: int, *, every: bool) -> dict:
    """Crawl the demo once; return time, renders and what was found."""
    from crawler.models import Page, Site
    from crawler.models.hiddenweb import RunRender
    from crawler.render.shell import RenderMemory
    from crawler.run.loop import crawl
    from demo import live

    server, hits = counting_demo()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    RenderMemory.every = every
    try:
        site = Site.objects.create(
            name=name, root_url=base + "/", allow_private_network=True, crawl_delay=0,
            page_budget=budget, max_depth=6, needs_browser=True,
        )  # fmt: skip
        started = time.perf_counter()
        run = crawl(site)
        seconds = time.perf_counter() - started
    finally:
        RenderMemory.every = False
        server.shutdown()
    pages = set(
        Page.objects.filter(site=site, versions__isnull=False).values_list("url", flat=True)
    )
    renders = list(RunRender.objects.filter(run=run))
    documents = [hits[_path(r.url)] for r in renders]
    return {
        "run": run,
        "seconds": seconds,
        "renders": renders,
        "documents": documents,
        "reasons": Counter(r.reason for r in renders),
        "found": sum(base + s.url in pages for s in live.STORIES),
        "present": len(live.STORIES),
    }


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--budget", type=int, default=150, help="pages per crawl run")
    args = parser.parse_args()
    setup()
    with throwaway_database(BENCH_DB):
        warm_up()
        decide = leg("decide", args.budget, every=False)
        every = leg("every", args.budget, every=True)
    report(decide, every)


def report(decide: dict, every: dict) -> None:
    print(
        f"Render cost on the demo site ({os.cpu_count()} cores), site marked as needing a browser\n"
    )
    for name, leg_ in (("decide per page", decide), ("render every page", every)):
        run, renders = leg_["run"], leg_["renders"]
        render_seconds = sum(r.seconds for r in renders)
        rate = len(renders) / render_seconds if render_seconds else 0.0
        print(
            f"{name:18} {leg_['seconds']:6.1f} s  fetched {run.fetched:3}  rendered "
            f"{len(renders):3} ({rate:.2f} rendered pages/s per render slot, "
            f"{len(renders) / leg_['seconds']:.2f}/s of crawl)  JS-only stories "
            f"{leg_['found']}/{leg_['present']}  stop: {run.stop_reason}"
        )
    print("\nWhy pages were rendered (decide): " + ", ".join(
        f"{reason} {count}" for reason, count in decide["reasons"].most_common()
    ))  # fmt: skip
    expanded = sum(r.expanded for r in decide["renders"])
    api = sum(r.api_links for r in decide["renders"])
    print(f"List expansions (Load more clicks, scrolls): {expanded}; links read from JSON: {api}")
    documents = decide["documents"] + every["documents"]
    per_page = sum(documents) / len(documents) if documents else 0.0
    relayed = sum(r.document_requests for r in decide["renders"] + every["renders"])
    print(
        f"Main-document requests per rendered page, fetch included: {per_page:.2f} "
        f"({relayed} relayed by the browser over {len(documents)} rendered pages)"
    )
    share = decide["found"] / decide["present"]
    speedup = every["seconds"] / decide["seconds"]
    print()
    print(
        f"Target >= 95% of JS-only stories found: {decide['found']}/{decide['present']} = "
        f"{share:.1%}  {verdict(share >= 0.95)}"
    )
    print(
        f"Target rendered pages request the main document once: {per_page:.2f}  "
        f"{verdict(abs(per_page - 1.0) < 1e-9)}"
    )
    print(
        f"Target per-page decision >= 5x faster than rendering every page: "
        f"{every['seconds']:.1f} s / {decide['seconds']:.1f} s = {speedup:.1f}x  "
        f"{verdict(speedup >= 5)}"
    )


if __name__ == "__main__":
    main()
