"""Benchmark the keyword index against a naive per-list loop and an Aho-Corasick scan.

Workload (bench/matching_workload.py, offline from Debian's WordNet, seeded): 100,000 lists
x 10 terms = 1,000,000 terms, 20% of them two- or three-word phrases; 200 pages of about
2,000 words about one or two topics each. Times are CPU time of this process
(time.process_time), so other programs on the machine do not count; "wall" figures are
printed beside them.

The build is measured twice: by the first worker ever (nothing shared: WordNet and
stemming for every list, then its work put into the shared cache), and by a new worker, a
fresh process started with nothing in memory but the shared cache filled, as production
has it (Redis there; here a dict of pickled values handed over in a file, its transfer not
counted, each value's unpickling counted).

The index is measured as it runs: pure Python (clipping/matching/index.py).

With --real-pages DIR the pages are the main text the analyzer finds in real HTML pages
(*.html or *.html.gz, e.g. ../shared/eval/extraction-dev/html) instead of generated ones; the
lists stay generated.

Usage: .venv/bin/python bench/matching.py [--lists N] [--pages N] [--naive-pages N] [--seed S]
       [--real-pages DIR]
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ahocorasick  # noqa: E402
from matching_workload import (  # noqa: E402
    HOSTS,
    PAGE_WORDS,
    Row,
    load_vocabulary,
    make_lists,
    make_pages,
)

from analyzer.text import synonyms  # noqa: E402
from clipping.matching import (  # noqa: E402
    KeywordIndex,
    NaiveMatcher,
    compile_text,
    prepare_text,
    shared,
)
from clipping.matching import index as pure  # noqa: E402
from clipping.matching.index import paused_gc  # noqa: E402
from clipping.matching.keys import SEPARATOR  # noqa: E402

# Per-page targets (CPU time, one core): match, and tokenise + stem + match.
PURE_MATCH_MS, PURE_FULL_MS = 5.0, 6.0
# Before synonyms by sense, pure Python matched a page in 2.31 ms: sense-aware synonyms may
# cost at most a quarter more. The first worker ever built in 7.5 s then; its build (WordNet
# for every line, done once and shared) is printed beside that figure.
PURE_MATCH_BEFORE_MS, FIRST_BUILD_BEFORE_S, SLOWER_AT_MOST = 2.31, 7.5, 1.25
NEW_WORKER_S, WORKER_MB = 5.0, 300.0
from clipping.matching.text import PreparedText  # noqa: E402


def real_pages(folder: Path) -> list[str]:
    """Return the analyzer's main text of every HTML page in folder (gzipped or not)."""
    from analyzer import analyze  # noqa: PLC0415

    pages = []
    for path in sorted([*folder.glob("*.html"), *folder.glob("*.html.gz")]):
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        text = analyze(data, f"https://{path.stem}.example/").main_text
        if text:
            pages.append(text)
    return pages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lists", type=int, default=100_000)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--naive-pages", type=int, default=10)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--real-pages", type=Path, help="folder of real HTML pages")
    parser.add_argument("--new-worker", type=Path, help=argparse.SUPPRESS)  # see measure_build
    args = parser.parse_args()
    if args.new_worker:
        return new_worker(args.new_worker)
    rng = np.random.default_rng(args.seed)
    verdicts: list[Verdict] = []

    vocabulary = load_vocabulary(args.seed)
    rows = make_lists(args.lists, vocabulary, rng)
    pages = (
        real_pages(args.real_pages) if args.real_pages else make_pages(args.pages, vocabulary, rng)
    )
    hosts = [HOSTS[number % len(HOSTS)] for number in range(len(pages))]
    lines = [line for row in rows for line in row.terms.splitlines()]
    phrases = sum(" " in line.strip('-"') and not line.startswith("site:") for line in lines)
    print(f"Workload: {len(rows):,} lists, {len(lines):,} lines, {len(set(lines)):,} distinct;")
    print(
        f"  {phrases / len(lines):.0%} of lines are phrases; "
        + (
            f"{len(pages)} real pages from {args.real_pages}"
            if args.real_pages
            else f"{len(pages)} pages x {PAGE_WORDS:,} words"
        )
        + f"; {len(vocabulary.common):,} common words, {len(vocabulary.topic_words):,} topics"
    )
    synonyms("car")  # open WordNet: the analyzer's start-up, not the index's

    index, compiled, build_s = measure_build(rows, verdicts)
    results, match_ms = measure_index(index, compiled, pages, hosts, verdicts)
    naive = NaiveMatcher(compiled)
    measure_naive(naive, pages[: args.naive_pages], hosts, results, match_ms, verdicts)
    measure_incremental(index, naive, rows, pages[0], hosts[0], build_s, verdicts)
    measure_aho(compiled, pages, hosts, results, match_ms)
    print("\nTargets (CPU time, one core)")
    for target, figure, ok in verdicts:
        print(f"  {'PASS' if ok else 'FAIL'}  {target:<52} {figure}")
    missed = [target for target, _, ok in verdicts if not ok]
    print("\nResult:", "every target met" if not missed else f"MISSED: {'; '.join(missed)}")
    return 0 if not missed else 1


Verdict = tuple[str, str, bool]  # target, measured figure, met


class PickledCache:
    """Django's cache as the workers use it (get_many, set_many), values kept pickled as
    Redis keeps them."""

    def __init__(self, data: dict[str, bytes] | None = None) -> None:
        self.data = data if data is not None else {}

    def get_many(self, keys: list[str]) -> dict[str, object]:
        data = self.data
        return {key: pickle.loads(data[key]) for key in keys if key in data}  # noqa: S301

    def set_many(self, values: dict[str, object], timeout: int | None = None) -> list:
        self.data.update((key, pickle.dumps(value)) for key, value in values.items())
        return []


def measure_build(rows: list[Row], verdicts: list[Verdict]) -> tuple[KeywordIndex, list, float]:
    """Build as the first worker ever, then as a new worker in a fresh process."""
    cache = PickledCache()
    gc.collect()
    with paused_gc():
        cpu, wall, compiled = timed(lambda: _first_worker(rows, cache))
    index_cpu, index_wall, index = timed(lambda: KeywordIndex.build(compiled))
    first = cpu + index_cpu
    print("\nBuild, one core")
    print(
        f"  compile every list, nothing shared (WordNet, stems)  {cpu:6.2f} s   wall {wall:6.2f} s"
    )
    print(
        f"  index from the compiled lists                        {index_cpu:6.2f} s"
        f"   wall {index_wall:6.2f} s"
    )
    print(f"  full build of the first worker ever (compile+index)  {first:6.2f} s")
    with tempfile.NamedTemporaryFile(suffix=".pickle") as handed:
        texts = [(row.id, row.terms, row.use_synonyms, row.match_all) for row in rows]
        pickle.dump((texts, cache.data), handed)
        handed.flush()
        child = subprocess.run(
            [sys.executable, __file__, "--new-worker", handed.name],
            capture_output=True,
            text=True,
            check=True,
        )
    fresh = json.loads(child.stdout.splitlines()[-1])
    print(
        f"  full build of a new worker, everything shared       {fresh['cpu']:6.2f} s"
        f"   wall {fresh['wall']:6.2f} s   (target <= {NEW_WORKER_S:g} s)"
    )
    print(
        f"    a fresh process: {len(cache.data):,} shared entries; WordNet opened:"
        f" {fresh['wordnet']}; lists resolved there: {fresh['unshared']:,}"
    )
    print(
        f"  memory a new worker holds (index, terms, caches)     {fresh['mb']:6.1f} MB"
        f"  (target <= {WORKER_MB:g} MB)"
    )
    verdicts.append(
        (
            f"new worker: full build <= {NEW_WORKER_S:g} s (fresh process, cache filled)",
            f"{fresh['cpu']:.2f} s",
            fresh["cpu"] <= NEW_WORKER_S,
        )
    )
    print(
        f"  the first worker ever took {FIRST_BUILD_BEFORE_S} s before synonyms by sense and"
        f" phrase parts: {first / FIRST_BUILD_BEFORE_S:.1f}x now, paid once per empty shared"
        " cache (not a target)"
    )
    verdicts.append(
        (f"new worker holds <= {WORKER_MB:g} MB", f"{fresh['mb']:.0f} MB", fresh["mb"] <= WORKER_MB)
    )
    return index, compiled, fresh["cpu"]


def _compile(row: Row):
    return compile_text(row.id, row.terms, "en", row.use_synonyms, row.match_all)


def _first_worker(rows: list[Row], cache: PickledCache) -> list:
    """Compile every list as clipping.matching.live does, sharing the work in the cache."""
    unshared = shared.fetch(((row.terms, "en", row.use_synonyms, None) for row in rows), cache)
    compiled = [_compile(row) for row in rows]
    shared.share(unshared, cache, None)
    return compiled


def new_worker(handed: Path) -> int:
    """Build as a new worker in this fresh process; print the figures as JSON."""
    from analyzer.text import wordnet  # noqa: PLC0415

    texts, data = pickle.loads(handed.read_bytes())  # noqa: S301
    cache = PickledCache(data)
    gc.collect()
    before = rss_mb()

    def build() -> KeywordIndex:
        unshared = shared.fetch(((terms, "en", use, None) for _, terms, use, _ in texts), cache)
        compiled = [compile_text(*text[:2], "en", *text[2:]) for text in texts]
        build.unshared = len(unshared.resolutions)  # type: ignore[attr-defined]
        return KeywordIndex.build(compiled)

    with paused_gc():
        cpu, wall, index = timed(build)
    gc.collect()
    figures = {
        "cpu": cpu,
        "wall": wall,
        "mb": rss_mb() - before,  # everything the worker keeps: index, terms, caches
        "wordnet": bool(wordnet._readers),
        "unshared": build.unshared,  # type: ignore[attr-defined]
    }
    del index
    print(json.dumps(figures))
    return 0


def measure_index(index, compiled, pages, hosts, verdicts: list[Verdict]):
    """Time the index; return its results and its match times in ms."""
    lists = len(compiled)
    # Stem every page once: the timings then find this process's stem cache
    # (clipping/matching/text.py) as warm as a worker's after a while.
    for page in pages:
        _prepared(page)
    results, match_ms, full_ms = measure_matching(
        index, "pure Python", pages, hosts, lists, (PURE_MATCH_MS, PURE_FULL_MS)
    )
    _pure_verdicts(match_ms, full_ms, verdicts)
    return results, match_ms


def _pure_verdicts(match_ms: list[float], full_ms: list[float], verdicts: list[Verdict]) -> None:
    match, full = statistics.median(match_ms), statistics.median(full_ms)
    aim = PURE_MATCH_BEFORE_MS * SLOWER_AT_MOST
    verdicts.append(
        (
            f"pure Python: match median <= {aim:.2f} ms ({PURE_MATCH_BEFORE_MS} ms +25%)",
            f"{match:.2f} ms",
            match <= aim,
        )
    )
    verdicts.append(
        (
            f"pure Python: match median <= {PURE_MATCH_MS} ms per page",
            f"{match:.2f} ms",
            match <= PURE_MATCH_MS,
        )
    )
    verdicts.append(
        (
            f"pure Python: tokenise + stem + match <= {PURE_FULL_MS} ms",
            f"{full:.2f} ms",
            full <= PURE_FULL_MS,
        )
    )


def measure_matching(
    index, label: str, pages, hosts, lists: int, targets: tuple[float | None, float | None]
) -> tuple[list, list, list]:
    """Time tokenising and stemming, matching, and both together; return results and CPU ms."""
    prepare, match, full, results = [], [], [], []
    for page, host in zip(pages, hosts, strict=True):
        cpu, wall, prepared = timed(lambda page=page: _prepared(page))
        prepare.append((cpu, wall))
        cpu, wall, result = timed(lambda p=prepared, h=host: index.match_prepared(p, host=h))
        match.append((cpu, wall))
        results.append(result)
        full.append(timed(lambda page=page, host=host: index.match(page, host=host))[:2])
    counts = sorted(len(result) for result in results)
    tokens = statistics.median(len(_prepared(page).words) for page in pages[:20])
    print(f"\nMatching {len(pages)} pages of about {tokens:,.0f} tokens, one core: {label}")
    print(
        f"  lists matched per page: median {statistics.median(counts):,.0f}"
        f" ({statistics.median(counts) / lists:.2%} of the lists), p90 {_p90(counts):,}"
    )
    report("tokenise + stem", prepare)
    report("match", match, targets[0])
    full_ms = report("tokenise + stem + match", full, targets[1])
    print(f"  throughput: {1000 / full_ms:,.0f} pages/s")
    return results, [cpu * 1e3 for cpu, _ in match], [cpu * 1e3 for cpu, _ in full]


def _prepared(page: str) -> PreparedText:
    prepared = prepare_text(page)
    prepared.sequence("en")
    return prepared


def measure_naive(naive, pages, hosts, results, match_ms, verdicts: list[Verdict]) -> None:
    """Time the per-list loop on some pages and compare its answers with the index's."""
    count = len(pages)
    times, same = [], True
    for number in range(count):
        prepared = _prepared(pages[number])
        cpu, wall, expected = timed(
            lambda p=prepared, h=hosts[number]: naive.match_prepared(p, host=h)
        )
        times.append((cpu, wall))
        same = same and expected == results[number]
    naive_ms = statistics.median(cpu for cpu, _ in times) * 1e3
    index_ms = statistics.median(match_ms[:count])
    print(f"\nNaive per-list loop over all {len(naive.lists):,} lists, first {count} pages")
    report("match, naive", times)
    print(
        f"  index on the same pages: median {index_ms:.2f} ms; speed-up {naive_ms / index_ms:,.0f}x"
        "   (target >= 30x)"
    )
    print(f"  matched lists and spans identical to the index's: {same}")
    speedup = naive_ms / index_ms
    verdicts.append((">= 30x faster than the naive loop", f"{speedup:,.0f}x", speedup >= 30))
    verdicts.append(("same matched lists and spans as the naive loop", str(same), same))


def measure_incremental(
    index, naive, rows, page, host, build_s: float, verdicts: list[Verdict]
) -> None:
    """Time removing and adding single lists; check the result against the naive loop."""
    removed = [row.id for row in rows[:100]]
    added = [
        compile_text(len(rows) + row.id, row.terms, "en", row.use_synonyms, row.match_all)
        for row in rows[100:200]
    ]
    remove_times = [timed(lambda list_id=list_id: index.remove(list_id))[0] for list_id in removed]
    add_times = [timed(lambda item=item: index.add(item))[0] for item in added]
    naive.lists = [item for item in naive.lists if item.id not in set(removed)] + added
    same = index.match(page, host=host) == naive.match(page, host=host)
    print("\nIncremental changes, no rebuild")
    print(
        f"  remove one list: median {statistics.median(remove_times) * 1e3:.3f} ms,"
        f" max {max(remove_times) * 1e3:.3f} ms"
    )
    print(
        f"  add one list:    median {statistics.median(add_times) * 1e3:.3f} ms,"
        f" max {max(add_times) * 1e3:.3f} ms"
    )
    print(f"  after 100 removals and 100 additions, same matches as the naive loop: {same}")
    # A change that rebuilt the whole index would cost the build time; one list's share of
    # it (1 / lists) is what an incremental change should stay near.
    slowest = max(remove_times + add_times)
    verdicts.append(
        (
            "one list added/removed without a rebuild (< 1% of build)",
            f"max {slowest * 1e3:.3f} ms vs build {build_s:.2f} s; same as naive: {same}",
            same and slowest < build_s / 100,
        )
    )


class AhoIndex(pure.KeywordIndex):
    """The same concepts and judging (pure Python), but keys found by one automaton per space."""

    automata: dict[str, ahocorasick.Automaton]

    def freeze(self) -> AhoIndex:
        """Make one automaton per key space from the index's keys."""
        self.automata = {}
        for name, space in self._spaces.items():
            automaton = ahocorasick.Automaton()
            for key, concepts in space.concepts.items():
                word = f" {key} "
                automaton.add_word(word, (tuple(concepts), key.count(SEPARATOR) + 1, len(word)))
            automaton.make_automaton()
            self.automata[name] = automaton
        return self

    def refreeze(self) -> None:
        """Add one key and make the automaton again: what any list change costs it."""
        automaton = self.automata["en"]
        automaton.add_word(" zzzz qqqq ", ((), 2, 11))
        automaton.make_automaton()

    def _scan(self, prepared: PreparedText, limit: int = -1) -> dict[int, list[int]]:
        """Return {concept: places} from the automata's hits on joined tokens (all of them:
        the limit only allows a scan to stop early)."""
        found: dict[int, list[int]] = {}
        stride = self._longest + 1  # see clipping.matching.spans.Found
        for name, automaton in self.automata.items():
            sequence = prepared.sequence(name)
            token_at, offset = {}, 0
            for place, token in enumerate(sequence):
                token_at[offset] = place
                offset += len(token) + 1
            joined = " " + " ".join(sequence) + " "
            for end, (concepts, size, length) in automaton.iter(joined):
                first = token_at[end - length + 1]
                for concept in concepts:
                    found.setdefault(concept, []).append(first * stride + size)
        for spans in found.values():
            spans.sort()
        return found


def measure_aho(compiled, pages, hosts, results, python_ms: list[float]) -> None:
    """Measure the alternative: Aho-Corasick automata (pyahocorasick) over joined stems."""
    build_cpu, _, aho = timed(lambda: AhoIndex.build(compiled))
    freeze_cpu, _, _ = timed(aho.freeze)
    sizes = sum(automaton.get_stats()["total_size"] for automaton in aho.automata.values())
    times, same = [], True
    for page, host, expected in zip(pages, hosts, results, strict=True):
        prepared = _prepared(page)
        cpu, wall, result = timed(lambda p=prepared, h=host: aho.match_prepared(p, host=h))
        times.append((cpu, wall))
        same = same and result == expected
    update_cpu, _, _ = timed(aho.refreeze)
    print("\nAlternative measured: Aho-Corasick automaton per key space (pyahocorasick)")
    print(
        f"  automata made in {freeze_cpu:.2f} s on top of the same concepts ({build_cpu:.2f} s),"
        f" {sizes / 2**20:.0f} MB more"
    )
    aho_ms = report("match, Aho-Corasick", times)
    print(f"  one list changed: the automaton is made again, {update_cpu * 1e3:,.0f} ms")
    print(f"  identical matches: {same}")
    print(
        f"  per page the automaton takes {aho_ms / statistics.median(python_ms):.2f}x the"
        " pure-Python dict index's time; the dict index is kept because it changes list by"
        " list in microseconds instead of being made again"
    )


def report(label: str, samples: list[tuple[float, float]], target: float | None = None) -> float:
    """Print median and p90 (CPU) and the median wall time; return the CPU median in ms."""
    cpu = sorted(sample[0] * 1e3 for sample in samples)
    wall = statistics.median(sample[1] * 1e3 for sample in samples)
    median = statistics.median(cpu)
    aim = f"   (target <= {target} ms)" if target else ""
    print(
        f"  {label:<26} median {median:7.2f} ms   p90 {_p90(cpu):7.2f} ms"
        f"   wall median {wall:7.2f} ms{aim}"
    )
    return median


def timed(function: Callable[[], object]) -> tuple[float, float, object]:
    """Return (CPU seconds, wall seconds, result) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = function()
    return time.process_time() - cpu, time.perf_counter() - wall, result


def rss_mb() -> float:
    """Return this process's resident memory in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _p90(values: list) -> float:
    ordered = sorted(values)
    return ordered[int(0.9 * (len(ordered) - 1))]


if __name__ == "__main__":
    raise SystemExit(main())
