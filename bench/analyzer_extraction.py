"""Article extraction: our main_text against trafilatura and readability-lxml, same run.

Usage: python bench/analyzer_extraction.py [--data DIR] [--snippets DIR] [--folds K]
                                          [--rounds N] [--calibrate]

1. Dev pages (../shared/eval/extraction-dev, 60 pages with the article body as ground truth),
   scored with that benchmark's metric (its README): lower-cased \\w+ tokens, 4-token
   shingles counted with repeats; per page tp/fp/fn; precision and recall averaged over pages
   (pages with an empty prediction left out of the precision mean); F1 the harmonic mean.
2. Cross-validation: the pages are dealt into K folds (page i of the id-sorted list to fold
   i mod K). For each fold, the content thresholds (GRID: analyzer/content.py and
   analyzer/segment.py) are chosen on
   the other K-1 folds (best F1 to four decimals; ties go to the setting nearest the middle
   of the grid) and scored on the held-out fold, beside trafilatura and readability on the
   same pages. Printed: each fold, then the
   mean and the spread (standard deviation, min..max) of each tool; then the defaults on all
   pages and how often each setting was chosen.
3. Second check (../shared/eval/snippets-dev, 330 pages in many languages): snippet
   precision, recall and F1 as trafilatura's own evaluation counts them (whitespace
   collapsed; a "with" snippet found is a true positive, a "without" snippet found a false
   positive), overall and per language group, for the three tools. Not used for tuning.
   Whole-article losses: on both corpora, the pages where a tool finds none of the
   expected passages (snippets-dev: no "with" snippet; dev pages: no paragraph of the
   article body with half its shingles in the output), counted and listed per tool.
4. Speed: the three extractors get the same bytes and URL, page by page in turn (so all see
   the same machine load), for --rounds passes over the dev pages after a warm-up pass;
   pages per second is pages / total time; p99 and max are our seconds per page.

trafilatura runs as the dev set's README measured it (extract(html, url=url,
include_comments=False)); readability-lxml as Document(html).summary(), its text content.
--calibrate also prints the sweeps behind the ThrIV and ThrHV defaults of analyzer/settings.py.
Exits 0; the last lines say whether the targets are met.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import lxml.html  # noqa: E402
import trafilatura  # noqa: E402
from readability import Document  # noqa: E402

import analyzer  # noqa: E402
from analyzer import content, segment, settings  # noqa: E402
from analyzer.areas import area_of, characterize, innermost, thresholds  # noqa: E402
from analyzer.encoding import decode  # noqa: E402
from analyzer.tree import parse  # noqa: E402
from analyzer.walk import Page, walk  # noqa: E402

DATA = ROOT.parent / "shared" / "eval" / "extraction-dev"
SNIPPETS = ROOT.parent / "shared" / "eval" / "snippets-dev"
_TOKEN = re.compile(r"\w+")
TOOLS = ("ours", "trafilatura", "readability")
TARGET_F1 = 0.97
TARGET_SPEED = 1.5  # our pages/s over trafilatura's
TARGET_P99 = 0.5  # seconds per page
# The content thresholds cross-validation chooses from (analyzer/content.py and
# analyzer/segment.py document each).
GRID: dict[str, tuple[float, ...]] = {
    "CONTAINER_SHARE": (0.7, 0.8, 0.9),
    "INTERRUPTION_CAP": (0, 50, 150),
    "SHORT_BASE": (15, 20, 30),
}
_LANGUAGE_GROUPS = ("de", "en")  # the rest is "other"

Extractor = Callable[[bytes, str], str]
Scores = tuple[int, int, int]
DevPage = tuple[str, bytes, str, str]


def shingles(text: str, size: int = 4) -> set[tuple[tuple[str, ...], int]]:
    """Return the text's shingles, each occurrence of a repeated shingle numbered."""
    tokens = _TOKEN.findall(text.lower())
    counts = Counter(tuple(tokens[i : i + size]) for i in range(max(1, len(tokens) - size + 1)))
    return {(shingle, n) for shingle, count in counts.items() if shingle for n in range(count)}


def score_page(truth: str, prediction: str) -> Scores:
    """Return (tp, fp, fn) of a prediction against the ground truth."""
    expected, found = shingles(truth), shingles(prediction)
    return len(expected & found), len(found - expected), len(expected - found)


def score(scores: list[Scores]) -> tuple[float, float, float]:
    """Return (F1, precision, recall) by the benchmark's averaging."""
    precisions = [tp / (tp + fp) for tp, fp, _ in scores if tp + fp > 0]
    precision = statistics.mean(precisions) if precisions else 0.0
    recall = statistics.mean(tp / (tp + fn) for tp, _, fn in scores if tp + fn > 0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return f1, precision, recall


def passages_found(truth: str, prediction: str) -> int:
    """Return how many paragraphs of the ground truth a prediction holds (half of a
    paragraph's shingles or more found counts as found)."""
    found = shingles(prediction)
    count = 0
    for paragraph in truth.split("\n"):
        expected = shingles(paragraph)
        if expected and 2 * len(expected & found) >= len(expected):
            count += 1
    return count


def lost_dev_pages(pages: list[DevPage], outputs: dict[str, list[str]]) -> dict[str, list[str]]:
    """Return, per tool, the dev pages where none of the article's paragraphs is found."""
    return {
        tool: [
            key
            for (key, _, _, truth), text in zip(pages, texts, strict=True)
            if passages_found(truth, text) == 0
        ]
        for tool, texts in outputs.items()
    }


def print_lost(corpus: str, lost: dict[str, list[str]]) -> None:
    """Print each tool's whole-article losses on a corpus, and list ours and the peers'."""
    counts = ", ".join(f"{tool} {len(keys)}" for tool, keys in lost.items())
    print(f"\n{corpus}: pages with none of the expected passages found: {counts}")
    for tool, keys in lost.items():
        for key in keys:
            print(f"  lost by {tool}: {key}")


def load(data: Path) -> list[DevPage]:
    """Return (id, html bytes, url, article body) for every dev page."""
    truth = json.loads((data / "ground-truth.json").read_text(encoding="utf-8"))
    return [
        (
            key,
            gzip.decompress((data / "html" / f"{key}.html.gz").read_bytes()),
            item["url"],
            item["articleBody"],
        )
        for key, item in sorted(truth.items())
    ]


def ours(html: bytes, url: str) -> str:
    """Return our article text."""
    return analyzer.analyze(html, url).main_text


def trafilatura_text(html: bytes, url: str) -> str:
    """Return trafilatura's article text."""
    return trafilatura.extract(html, url=url, include_comments=False) or ""


def readability_text(html: bytes, url: str) -> str:
    """Return readability-lxml's article text."""
    try:
        summary = Document(html, url=url).summary(html_partial=True)
        return str(lxml.html.fromstring(summary).text_content())
    except Exception:  # noqa: BLE001 - a peer that fails on a page scores it empty
        return ""


EXTRACTORS: dict[str, Extractor] = {
    "ours": ours,
    "trafilatura": trafilatura_text,
    "readability": readability_text,
}


def _module_of(name: str) -> Any:
    """Return the analyzer module that declares a content threshold."""
    return content if hasattr(content, name) else segment


@contextmanager
def configured(values: dict[str, float]) -> Iterator[None]:
    """Set content thresholds for the duration of a block."""
    saved = {name: getattr(_module_of(name), name) for name in values}
    for name, value in values.items():
        setattr(_module_of(name), name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(_module_of(name), name, value)


def cross_validate(pages: list[DevPage], folds: int) -> dict[str, list[float]]:
    """Run the K-fold cross-validation of step 2; print each fold; return F1s per tool."""
    defaults = {name: getattr(_module_of(name), name) for name in GRID}
    settings_grid = [
        dict(zip(GRID, values, strict=True)) for values in itertools.product(*GRID.values())
    ]
    if defaults not in settings_grid:
        settings_grid.insert(0, defaults)
    per_setting: list[list[Scores]] = []
    for values in settings_grid:
        with configured(values):
            per_setting.append(
                [score_page(truth, ours(html, url)) for _, html, url, truth in pages]
            )
    peers = {
        name: [score_page(truth, EXTRACTORS[name](html, url)) for _, html, url, truth in pages]
        for name in TOOLS[1:]
    }
    fold_of = [index % folds for index in range(len(pages))]
    results: dict[str, list[float]] = {name: [] for name in TOOLS}
    chosen: Counter[str] = Counter()
    print(f"\n{folds}-fold cross-validation on {len(pages)} dev pages (F1 on the held-out fold)")
    print(
        f"{'fold':<5} {'pages':>5} {'ours':>7} {'trafil.':>7} {'readab.':>7}  thresholds chosen on the other folds"
    )
    for fold in range(folds):
        train = [i for i, f in enumerate(fold_of) if f != fold]
        test = [i for i, f in enumerate(fold_of) if f == fold]

        best = _best_setting(per_setting, settings_grid, train)
        label = _label(settings_grid[best])
        chosen[label] += 1
        results["ours"].append(score([per_setting[best][i] for i in test])[0])
        for name, scores in peers.items():
            results[name].append(score([scores[i] for i in test])[0])
        row = " ".join(f"{results[name][-1]:7.4f}" for name in TOOLS)
        print(f"{fold + 1:<5} {len(test):>5} {row}  {label}")
    for caption, function in (("mean", statistics.mean), ("stdev", statistics.stdev)):
        row = " ".join(f"{function(results[name]):7.4f}" for name in TOOLS)
        print(f"{caption:<5} {'':>5} {row}")
    row = " ".join(f"{max(results[name]) - min(results[name]):7.4f}" for name in TOOLS)
    print(f"{'range':<5} {'':>5} {row}  (max - min over folds)")
    default_scores = per_setting[settings_grid.index(defaults)]
    f1, precision, recall = score(default_scores)
    print(
        f"shipped defaults ({_label(defaults)}) on all {len(pages)} pages: F1 {f1:.4f} P {precision:.4f} R {recall:.4f}"
    )
    print(
        "chosen per fold: "
        + "; ".join(f"{label} x{count}" for label, count in chosen.most_common())
    )
    best_all = _best_setting(per_setting, settings_grid, list(range(len(pages))))
    print(f"chosen on all pages (the defaults to ship): {_label(settings_grid[best_all])}")
    for name in TOOLS[1:]:
        f1, precision, recall = score(peers[name])
        print(f"{name} on all {len(pages)} pages: F1 {f1:.4f} P {precision:.4f} R {recall:.4f}")
    return results


def _best_setting(
    per_setting: list[list[Scores]], settings_grid: list[dict[str, float]], pages: list[int]
) -> int:
    """Return the position of the setting with the best F1 on the given pages.

    F1 counts to four decimals (below that it is noise on 48 pages); ties go to the setting
    nearest the middle of the grid, the prior.
    """

    def key(position: int) -> tuple[float, float]:
        scores = per_setting[position]
        f1 = round(score([scores[i] for i in pages])[0], 4)
        return f1, -_off_center(settings_grid[position])

    return max(range(len(settings_grid)), key=key)


def _off_center(values: dict[str, Any]) -> float:
    """Return how far a setting lies from the middle of the grid, in grid steps."""
    return sum(
        abs(GRID[name].index(value) - (len(GRID[name]) - 1) / 2)
        for name, value in values.items()
        if value in GRID[name]
    )


def _label(values: dict[str, Any]) -> str:
    """Return a short label for a setting of the content thresholds."""
    return " ".join(f"{name.lower()}={value:g}" for name, value in values.items())


def snippet_check(folder: Path) -> dict[str, float]:
    """Score the three tools on the snippets corpus (step 3); print per language group."""
    meta = json.loads((folder / "snippets.json").read_text(encoding="utf-8"))
    counts: dict[tuple[str, str], list[int]] = {}
    lost: dict[str, list[str]] = {tool: [] for tool in TOOLS}
    for name, item in sorted(meta.items()):
        html = gzip.decompress((folder / "html" / f"{name}.gz").read_bytes())
        lang = item.get("lang") or ""
        group = lang if lang in _LANGUAGE_GROUPS else "other"
        for tool in TOOLS:
            text = " ".join(EXTRACTORS[tool](html, item["url"]).split())
            found = sum(" ".join(s.split()) in text for s in item["with"])
            leaked = sum(" ".join(s.split()) in text for s in item["without"])
            if item["with"] and not found:
                lost[tool].append(name)
            for key in ((tool, group), (tool, "all")):
                tally = counts.setdefault(key, [0, 0, 0])
                tally[0] += found
                tally[1] += len(item["with"]) - found
                tally[2] += leaked
    print(f"\nsnippets-dev: {len(meta)} pages from {folder} (snippet F1 / precision / recall)")
    groups = (*_LANGUAGE_GROUPS, "other", "all")
    print(f"{'group':<7} {'snippets':>8}  " + "  ".join(f"{tool:>20}" for tool in TOOLS))
    overall: dict[str, float] = {}
    for group in groups:
        cells = []
        for tool in TOOLS:
            tp, fn, fp = counts[(tool, group)]
            precision = tp / (tp + fp) if tp + fp else 0.0
            recall = tp / (tp + fn) if tp + fn else 0.0
            f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
            cells.append(f"{f1:.3f} {precision:.3f} {recall:.3f}".rjust(20))
            if group == "all":
                overall[tool] = f1
        tp, fn, _ = counts[("ours", group)]
        print(f"{group:<7} {tp + fn:>8}  " + "  ".join(cells))
    print_lost("snippets-dev", lost)
    overall["lost"] = len(lost["ours"])
    overall["lost trafilatura"] = len(lost["trafilatura"])
    return overall


def race(pages: list[DevPage], rounds: int) -> tuple[dict[str, float], list[float]]:
    """Time the extractors page by page in turn; return seconds per tool and our page times."""
    for _, html, url, _ in pages:  # warm-up: imports, caches, lazy data
        for extract in EXTRACTORS.values():
            extract(html, url)
    spent = dict.fromkeys(EXTRACTORS, 0.0)
    ours_times: list[float] = []
    for _ in range(rounds):
        for _, html, url, _ in pages:
            for name, extract in EXTRACTORS.items():
                started = time.perf_counter()
                extract(html, url)
                seconds = time.perf_counter() - started
                spent[name] += seconds
                if name == "ours":
                    ours_times.append(seconds)
    return spent, ours_times


def calibrate(pages: list[DevPage]) -> None:
    """Print how Algorithm 1's areas cover the articles under other thresholds."""
    walked = [(walk(parse(decode(html)[0])), truth) for _, html, _, truth in pages]
    saved = (settings.THR_IV_SHARE, settings.THR_IV_MIN, settings.THR_IV_MAX)
    print("\nThrIV = clamp(share * Ctext, min, max): informational areas (before the article")
    print("body is merged) against the articles: F1 / precision / recall, areas per page")
    for share, low, high in itertools.product((0.05, 0.1, 0.2, 0.5), (80, 150), (800, 1500)):
        settings.THR_IV_SHARE, settings.THR_IV_MIN, settings.THR_IV_MAX = share, low, high
        results = [_informational_text(page) for page, _ in walked]
        f1, precision, recall = score(
            [score_page(truth, text) for (_, truth), (text, _) in zip(walked, results, strict=True)]
        )
        median = statistics.median(count for _, count in results)
        mark = "  <- default" if (share, low, high) == saved else ""
        print(
            f"  share {share:<4} min {low:<3} max {high:<4}  F1 {f1:.3f}  P {precision:.3f}  "
            f"R {recall:.3f}  areas {median:g}{mark}"
        )
    settings.THR_IV_SHARE, settings.THR_IV_MIN, settings.THR_IV_MAX = saved
    saved_hv = (settings.THR_HV_SHARE, settings.THR_HV_MIN, settings.THR_HV_MAX)
    print("\nThrHV = clamp(share * links, min, max): links inside some area, hub and")
    print("navigational areas per page, links per such area (medians)")
    for share, low, high in ((0.02, 3, 10), (0.05, 4, 25), (0.1, 4, 25), (0.1, 8, 40)):
        settings.THR_HV_SHARE, settings.THR_HV_MIN, settings.THR_HV_MAX = share, low, high
        covered, counts, sizes = [], [], []
        for page, _ in walked:
            found = characterize(page, thresholds(page))
            areas, memo = area_of(found), {}
            inside = sum(1 for a in page.anchors if innermost(a.node, areas, memo) is not None)
            covered.append(inside / max(len(page.anchors), 1))
            hubs = [area.hv for area in found if area.kind != "information"]
            counts.append(len(hubs))
            sizes.extend(hubs)
        mark = "  <- default" if (share, low, high) == saved_hv else ""
        print(
            f"  share {share:<4} min {low:<2} max {high:<3}  links in areas "
            f"{statistics.mean(covered):.3f}  areas {statistics.median(counts):g}  "
            f"links/area {statistics.median(sizes):g}{mark}"
        )
    settings.THR_HV_SHARE, settings.THR_HV_MIN, settings.THR_HV_MAX = saved_hv


def _informational_text(page: Page) -> tuple[str, int]:
    """Return the text of Algorithm 1's informational areas and how many there are."""
    found = [area for area in characterize(page, thresholds(page)) if area.kind == "information"]
    areas, memo = area_of(found), {}
    text = "\n".join(
        block.text for block in page.blocks if innermost(block.owner, areas, memo) is not None
    )
    return text, len(found)


def main() -> int:
    """Run the benchmark and print the three tools' figures and the targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="extraction-dev folder")
    parser.add_argument("--snippets", type=Path, default=SNIPPETS, help="snippets-dev folder")
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (5)")
    parser.add_argument("--rounds", type=int, default=3, help="timed passes (default 3)")
    parser.add_argument("--calibrate", action="store_true", help="print threshold sweeps")
    args = parser.parse_args()
    pages = load(args.data)
    print(f"{len(pages)} dev pages from {args.data}")
    folds = cross_validate(pages, args.folds)
    dev_lost = lost_dev_pages(
        pages, {tool: [EXTRACTORS[tool](html, url) for _, html, url, _ in pages] for tool in TOOLS}
    )
    print_lost(f"{len(pages)} dev pages", dev_lost)
    snippets = snippet_check(args.snippets) if args.snippets.is_dir() else {}
    spent, times = race(pages, args.rounds)
    speed = {name: len(pages) * args.rounds / seconds for name, seconds in spent.items()}
    times.sort()
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    print(f"\nspeed: {len(pages)} dev pages, {args.rounds} timed rounds after a warm-up")
    print("  " + ", ".join(f"{name} {speed[name]:.1f} pages/s" for name in TOOLS))
    print(
        f"  ours per page: p50 {statistics.median(times):.4f} s, p99 {p99:.4f} s, max {times[-1]:.4f} s"
    )
    mean = {name: statistics.mean(values) for name, values in folds.items()}
    speed_ratio = speed["ours"] / speed["trafilatura"]
    targets = [
        (f"cross-validated dev F1 mean >= {TARGET_F1}", mean["ours"] >= TARGET_F1),
        (
            "dev F1 mean above trafilatura's and readability's",
            mean["ours"] > max(mean["trafilatura"], mean["readability"]),
        ),
        (
            "snippets-dev F1 above trafilatura's",
            bool(snippets) and snippets["ours"] > snippets["trafilatura"],
        ),
        (
            "whole-article losses no more than trafilatura's, on both corpora",
            len(dev_lost["ours"]) <= len(dev_lost["trafilatura"])
            and bool(snippets)
            and snippets["lost"] <= snippets["lost trafilatura"],
        ),
        (
            f"pages/s >= {TARGET_SPEED}x trafilatura's ({speed_ratio:.2f}x)",
            speed_ratio >= TARGET_SPEED,
        ),
        (f"p99 per page < {TARGET_P99} s", p99 < TARGET_P99),
    ]
    print()
    for caption, met in targets:
        print(f"target {caption}: {'met' if met else 'NOT met'}")
    if args.calibrate:
        calibrate(pages)
    return 0


if __name__ == "__main__":
    sys.exit(main())
