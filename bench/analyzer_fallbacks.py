"""The analyzer's second readings (analyzer/fallback.py), each measured by cross-validation.

Usage: python bench/analyzer_fallbacks.py [--data DIR] [--snippets DIR] [--folds K] [--rounds N]

1. Every subset of the readings (fallback.READINGS, tried in that order; those with
   "markup" once per MARKUP_RATIO of RATIOS) is run on the 60 dev pages (article bodies as ground truth, the shingle metric of
   bench/analyzer_extraction.py) and on the 330 snippets-dev pages (trafilatura's snippet
   metric), trafilatura beside them on the same pages.
2. Cross-validation, on each corpus alone: its pages are dealt into K folds (page i of the
   name-sorted list to fold i mod K); for each fold the subset with the best F1 on the
   other folds is chosen (F1 to four decimals; ties: fewer whole-article losses, then the
   configuration nearest the one in force, the prior: a reading that changes no page of
   the other folds is neither evidence for nor against it) and scored
   on the held-out fold. Printed per fold: the subset chosen, held-out F1 against
   trafilatura's, held-out whole-article losses (pages where none of the expected passages
   is found); then mean, stdev and range, per language group on snippets-dev (the held-out
   folds' counts pooled).
3. Each reading's own effect: per fold, held-out F1 with all readings minus held-out F1
   without that one (at the shipped ratio), mean and spread. A reading is kept when its effect on held-out folds
   is not negative on either corpus.
4. Speed: our analyzer (the readings in force) and trafilatura in turn, page by page, over
   the dev pages for --rounds passes after a warm-up; pages/s and our p99 per page.

Exits 0; the last lines say whether the targets are met.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import analyzer_extraction as extraction  # noqa: E402

from analyzer import fallback  # noqa: E402

TARGET_DEV_F1 = 0.98
TARGET_LOST = 2  # snippets-dev pages with no expected passage found, held-out
TARGET_SPEED = 1.5
TARGET_P99 = 0.5
GROUPS = ("de", "en", "other")
RATIOS = (1.5, 2.0, 3.0)  # MARKUP_RATIO settings cross-validation chooses from


@dataclass(frozen=True)
class Config:
    """The readings in force, and MARKUP_RATIO when "markup" is one of them."""

    readings: tuple[str, ...]
    ratio: float

    @property
    def label(self) -> str:
        """Return a short name for the configuration."""
        names = "+".join(self.readings) or "none"
        return f"{names} (ratio {self.ratio:g})" if "markup" in self.readings else names


@dataclass(frozen=True)
class SnippetPage:
    """One snippets-dev page: its name, bytes, URL, language group and snippets."""

    name: str
    html: bytes
    url: str
    group: str
    with_: tuple[str, ...]
    without: tuple[str, ...]


# Per page: (tp, fn, fp, lost) where lost is 1 when no expected passage is found.
Tally = tuple[int, int, int, int]


def load_snippets(folder: Path) -> list[SnippetPage]:
    """Return the snippets-dev pages, sorted by name."""
    meta = json.loads((folder / "snippets.json").read_text(encoding="utf-8"))
    pages = []
    for name, item in sorted(meta.items()):
        lang = item.get("lang") or ""
        pages.append(
            SnippetPage(
                name,
                gzip.decompress((folder / "html" / f"{name}.gz").read_bytes()),
                item["url"],
                lang if lang in GROUPS else "other",
                tuple(" ".join(s.split()) for s in item["with"]),
                tuple(" ".join(s.split()) for s in item["without"]),
            )
        )
    return pages


def tally(page: SnippetPage, text: str) -> Tally:
    """Return (tp, fn, fp, lost) of one output on one snippets page."""
    text = " ".join(text.split())
    found = sum(snippet in text for snippet in page.with_)
    leaked = sum(snippet in text for snippet in page.without)
    return found, len(page.with_) - found, leaked, int(bool(page.with_) and not found)


def snippet_f1(tallies: Sequence[Tally]) -> float:
    """Return the snippet F1 of summed tallies."""
    tp = sum(t[0] for t in tallies)
    fn = sum(t[1] for t in tallies)
    fp = sum(t[2] for t in tallies)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def dev_f1(scores: Sequence[extraction.Scores]) -> float:
    """Return the dev set's F1 (per-page precision and recall averaged)."""
    return extraction.score(list(scores))[0]


def configurations() -> list[Config]:
    """Return every subset of the readings (in the order they are tried, smallest first),
    those with "markup" once per ratio of RATIOS."""
    names = fallback.READINGS
    found = []
    for size in range(len(names) + 1):
        for combo in itertools.combinations(names, size):
            ratios = RATIOS if "markup" in combo else (fallback.MARKUP_RATIO,)
            found.extend(Config(combo, ratio) for ratio in ratios)
    return found


def run_with(config: Config, extract: Callable[[], list[str]]) -> list[str]:
    """Return the outputs of extract() under one configuration of the readings."""
    saved = fallback.FALLBACKS, fallback.MARKUP_RATIO
    fallback.FALLBACKS, fallback.MARKUP_RATIO = config.readings, config.ratio
    try:
        return extract()
    finally:
        fallback.FALLBACKS, fallback.MARKUP_RATIO = saved


def cross_validate(
    corpus: str,
    per_config: dict[Config, list[Tally]],
    peer: list[Tally],
    folds: int,
    metric: Callable[[Sequence[Tally]], float],
) -> tuple[list[float], list[float], list[int], dict[str, list[float]], list[Config]]:
    """Run step 2 and 3 on one corpus; return held-out F1s (ours, peer), losses, effects
    and the subset chosen per fold."""
    size = len(peer)
    fold_of = [index % folds for index in range(size)]
    ours, theirs, lost, chosen = [], [], [], []
    effect: dict[str, list[float]] = {name: [] for name in fallback.READINGS}
    shipped = Config(fallback.FALLBACKS, fallback.MARKUP_RATIO)
    everything = Config(fallback.READINGS, fallback.MARKUP_RATIO)
    print(f"\n{corpus}: {folds}-fold cross-validation of the readings (held-out F1, losses)")
    print(f"{'fold':<5} {'pages':>5} {'ours':>7} {'trafil.':>7} {'lost':>5} {'t.lost':>6}  chosen")
    for fold in range(folds):
        train = [i for i in range(size) if fold_of[i] != fold]
        test = [i for i in range(size) if fold_of[i] == fold]

        def key(config: Config, pages: list[int] = train) -> tuple[float, int, int, float]:
            rows = [per_config[config][i] for i in pages]
            differs = len(set(config.readings) ^ set(shipped.readings))
            distance = abs(config.ratio - shipped.ratio)
            return round(metric(rows), 4), -sum(r[3] for r in rows), -differs, -distance

        best = max(per_config, key=key)
        chosen.append(best)
        held = [per_config[best][i] for i in test]
        ours.append(metric(held))
        theirs.append(metric([peer[i] for i in test]))
        lost.append(sum(r[3] for r in held))
        for name in everything.readings:
            without = Config(
                tuple(n for n in everything.readings if n != name), fallback.MARKUP_RATIO
            )
            effect[name].append(
                metric([per_config[everything][i] for i in test])
                - metric([per_config[without][i] for i in test])
            )
        peer_lost = sum(peer[i][3] for i in test)
        print(
            f"{fold + 1:<5} {len(test):>5} {ours[-1]:7.4f} {theirs[-1]:7.4f} {lost[-1]:>5} "
            f"{peer_lost:>6}  {best.label}"
        )
    for caption, function in (("mean", statistics.mean), ("stdev", statistics.stdev)):
        print(f"{caption:<5} {'':>5} {function(ours):7.4f} {function(theirs):7.4f}")
    print(f"{'range':<5} {'':>5} {max(ours) - min(ours):7.4f} {max(theirs) - min(theirs):7.4f}")
    print(f"held-out whole-article losses: ours {sum(lost)}, trafilatura {sum(p[3] for p in peer)}")
    for name, deltas in effect.items():
        print(
            f"effect of '{name}' on held-out F1: mean {statistics.mean(deltas):+.4f}, "
            f"stdev {statistics.stdev(deltas):.4f}, min {min(deltas):+.4f}, max {max(deltas):+.4f}"
        )
    return ours, theirs, lost, effect, chosen


def pooled_groups(
    pages: list[SnippetPage],
    per_config: dict[Config, list[Tally]],
    peer: list[Tally],
    chosen: list[Config],
    folds: int,
) -> dict[str, tuple[float, float]]:
    """Return (ours, trafilatura) F1 per language group, each page scored by the subset
    chosen without its fold."""
    result = {}
    for group in (*GROUPS, "all"):
        indexes = [i for i, page in enumerate(pages) if group in (page.group, "all")]
        ours = [per_config[chosen[i % folds]][i] for i in indexes]
        result[group] = (snippet_f1(ours), snippet_f1([peer[i] for i in indexes]))
    print("\nsnippets-dev, held-out outputs pooled: snippet F1 per language group")
    for group, (ours_f1, peer_f1) in result.items():
        print(f"  {group:<6} ours {ours_f1:.4f}  trafilatura {peer_f1:.4f}")
    return result


def race(pages: list[extraction.DevPage], rounds: int) -> tuple[float, float, float]:
    """Return (our pages/s, trafilatura's pages/s, our p99 seconds per page)."""
    tools = (extraction.ours, extraction.trafilatura_text)
    for _, html, url, _ in pages:
        for extract in tools:
            extract(html, url)
    spent = [0.0, 0.0]
    times: list[float] = []
    for _ in range(rounds):
        for _, html, url, _ in pages:
            for position, extract in enumerate(tools):
                started = time.perf_counter()
                extract(html, url)
                seconds = time.perf_counter() - started
                spent[position] += seconds
                if position == 0:
                    times.append(seconds)
    times.sort()
    count = len(pages) * rounds
    return count / spent[0], count / spent[1], times[min(len(times) - 1, int(0.99 * len(times)))]


def dev_tally(truth: str, text: str) -> Tally:
    """Return a dev page's shingle counts in Tally form, with its whole-article loss."""
    tp, fp, fn = extraction.score_page(truth, text)
    return tp, fn, fp, int(extraction.passages_found(truth, text) == 0)


def dev_metric(tallies: Sequence[Tally]) -> float:
    """Return the dev F1 of tallies in (tp, fn, fp, lost) form."""
    return dev_f1([(tp, fp, fn) for tp, fn, fp, _ in tallies])


def main() -> int:
    """Run the benchmark; print the folds, each reading's effect, speed and the targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=extraction.DATA)
    parser.add_argument("--snippets", type=Path, default=extraction.SNIPPETS)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    dev = extraction.load(args.data)
    snippets = load_snippets(args.snippets)
    shipped = Config(fallback.FALLBACKS, fallback.MARKUP_RATIO)
    print(f"{len(dev)} dev pages, {len(snippets)} snippets-dev pages; in force: {shipped.label}")
    dev_runs = {
        config: run_with(config, lambda: [extraction.ours(h, u) for _, h, u, _ in dev])
        for config in configurations()
    }
    dev_per = {
        config: [dev_tally(page[3], text) for page, text in zip(dev, texts, strict=True)]
        for config, texts in dev_runs.items()
    }
    dev_peer = [dev_tally(truth, extraction.trafilatura_text(h, u)) for _, h, u, truth in dev]
    snip_per = {
        config: run_with(config, lambda: [extraction.ours(p.html, p.url) for p in snippets])
        for config in configurations()
    }
    snip_tallies = {
        config: [tally(page, text) for page, text in zip(snippets, texts, strict=True)]
        for config, texts in snip_per.items()
    }
    snip_peer = [tally(p, extraction.trafilatura_text(p.html, p.url)) for p in snippets]
    dev_ours, dev_theirs, _, dev_effect, _ = cross_validate(
        "dev pages", dev_per, dev_peer, args.folds, dev_metric
    )
    _, _, snip_lost, snip_effect, chosen = cross_validate(
        "snippets-dev", snip_tallies, snip_peer, args.folds, snippet_f1
    )
    groups = pooled_groups(snippets, snip_tallies, snip_peer, chosen, args.folds)
    print()
    for name in fallback.READINGS:
        helps = statistics.mean(dev_effect[name]) >= 0 and statistics.mean(snip_effect[name]) >= 0
        shipped = "in force" if name in fallback.FALLBACKS else "not in force"
        print(f"reading '{name}': {'keep' if helps else 'drop'} ({shipped})")
    mine, theirs, p99 = race(dev, args.rounds)
    ratio = mine / theirs
    print(
        f"\nspeed: ours {mine:.1f} pages/s, trafilatura {theirs:.1f} ({ratio:.2f}x); p99 {p99:.4f} s"
    )
    dev_mean = statistics.mean(dev_ours)
    print(
        f"cross-validated dev F1: ours {dev_mean:.4f}, trafilatura {statistics.mean(dev_theirs):.4f}"
    )
    targets = [
        (f"cross-validated dev F1 {dev_mean:.4f} >= {TARGET_DEV_F1}", dev_mean >= TARGET_DEV_F1),
        (
            f"snippets-dev held-out whole-article losses {sum(snip_lost)} <= {TARGET_LOST}",
            sum(snip_lost) <= TARGET_LOST,
        ),
        (
            "snippets-dev F1 above trafilatura's in every language group",
            all(ours > peer for group, (ours, peer) in groups.items() if group != "all"),
        ),
        (f"pages/s {ratio:.2f}x >= {TARGET_SPEED}x trafilatura's", ratio >= TARGET_SPEED),
        (f"p99 {p99:.4f} s < {TARGET_P99} s", p99 < TARGET_P99),
    ]
    print()
    for caption, met in targets:
        print(f"target {caption}: {'met' if met else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
