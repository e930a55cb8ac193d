"""Cost of analysing under caps: pages/s in-process and in the capped analysing process.

Usage: python bench/analyzer_isolation.py [--rounds N] [--memory-mb M] [--seconds S]

Runs the real pages of ../shared/eval/extraction-dev (gzipped HTML) through analyze() in this
process and through analyzer.isolation.Isolated (one child process, RLIMIT_AS and a wall-clock
cap), alternating rounds so that load on a shared machine hits both alike. Wall-clock time, as
the child's work is not this process's CPU time. Prints pages/s of each (best round and median),
the overhead per page, and what starting the child costs once. Exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analyzer import AnalyzerError, analyze  # noqa: E402
from analyzer.isolation import MIB, Isolated  # noqa: E402

PAGES = ROOT.parent / "shared" / "eval" / "extraction-dev" / "html"


def load() -> list[bytes]:
    """Return the dev set's pages as fetched bytes."""
    return [gzip.decompress(path.read_bytes()) for path in sorted(PAGES.glob("*.html.gz"))]


def one_round(pages: list[bytes], analyse) -> float:  # noqa: ANN001
    """Return the wall seconds to analyse every page once."""
    start = time.perf_counter()
    for page in pages:
        with contextlib.suppress(AnalyzerError):
            analyse(page, "https://bench.example/page")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--memory-mb", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    pages = load()
    guard = Isolated(args.memory_mb * MIB, args.seconds)
    started = time.perf_counter()
    guard.analyze(pages[0], "https://bench.example/page")  # starts the child
    start_cost = time.perf_counter() - started
    one_round(pages, analyze)  # warm both: lazy data (stemmers, language profiles)
    one_round(pages, guard.analyze)
    inline, isolated = [], []
    for _ in range(args.rounds):
        inline.append(one_round(pages, analyze))
        isolated.append(one_round(pages, guard.analyze))
    guard.close()
    n = len(pages)
    print(f"{n} pages, {args.rounds} rounds, caps {args.memory_mb} MiB / {args.seconds:g} s")
    for name, times in (("in-process", inline), ("isolated", isolated)):
        best, median = min(times), statistics.median(times)
        print(f"{name:>11}: {n / best:6.1f} pages/s best, {n / median:6.1f} median")
    overhead = (statistics.median(isolated) - statistics.median(inline)) / n
    print(f"   overhead: {overhead * 1000:.1f} ms per page (median rounds)")
    print(f" child start: {start_cost * 1000:.0f} ms once per worker process (first page included)")


if __name__ == "__main__":
    main()
