"""Article extraction: our main_text against trafilatura on the 60 dev pages, same run.

Usage: python bench/analyzer_extraction.py [--data DIR] [--rounds N] [--calibrate]

Scores both with the article-extraction benchmark's metric (../shared/eval/extraction-dev/
README.md): lower-cased \\w+ tokens, 4-token shingles counted with repeats; per page
tp/fp/fn; precision and recall averaged over pages (pages with an empty prediction left out
of the precision mean); F1 the harmonic mean of the two means. Speed: both extractors get
the same bytes and URL, page by page in turn (so both see the same machine load), for
--rounds passes after one warm-up pass; pages per second is pages / total time.

trafilatura runs as the README measured it: extract(html, url=url, include_comments=False).
--calibrate also prints the sweeps behind the ThrIV and ThrHV defaults of
analyzer/settings.py. Exits 0; the last lines say whether the targets are met.
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
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import trafilatura  # noqa: E402

import analyzer  # noqa: E402
from analyzer import settings  # noqa: E402
from analyzer.areas import area_of, characterize, innermost, thresholds  # noqa: E402
from analyzer.encoding import decode  # noqa: E402
from analyzer.tree import parse  # noqa: E402
from analyzer.walk import Page, walk  # noqa: E402

DATA = ROOT.parent / "shared" / "eval" / "extraction-dev"
_TOKEN = re.compile(r"\w+")

Extractor = Callable[[bytes, str], str]


def shingles(text: str, size: int = 4) -> set[tuple[tuple[str, ...], int]]:
    """Return the text's shingles, each occurrence of a repeated shingle numbered."""
    tokens = _TOKEN.findall(text.lower())
    counts = Counter(tuple(tokens[i : i + size]) for i in range(max(1, len(tokens) - size + 1)))
    return {(shingle, n) for shingle, count in counts.items() if shingle for n in range(count)}


def score_page(truth: str, prediction: str) -> tuple[int, int, int]:
    """Return (tp, fp, fn) of a prediction against the ground truth."""
    expected, found = shingles(truth), shingles(prediction)
    return len(expected & found), len(found - expected), len(expected - found)


def score(scores: list[tuple[int, int, int]]) -> tuple[float, float, float]:
    """Return (F1, precision, recall) by the benchmark's averaging."""
    precision = statistics.mean(tp / (tp + fp) for tp, fp, _ in scores if tp + fp > 0)
    recall = statistics.mean(tp / (tp + fn) for tp, _, fn in scores if tp + fn > 0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return f1, precision, recall


def load(data: Path) -> list[tuple[str, bytes, str, str]]:
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


def theirs(html: bytes, url: str) -> str:
    """Return trafilatura's article text."""
    return trafilatura.extract(html, url=url, include_comments=False) or ""


def race(pages: list[tuple[str, bytes, str, str]], rounds: int) -> dict[str, float]:
    """Time both extractors page by page in turn; return seconds per extractor."""
    extractors: dict[str, Extractor] = {"ours": ours, "trafilatura": theirs}
    for _, html, url, _ in pages:  # warm-up: imports, caches, lazy data
        for extract in extractors.values():
            extract(html, url)
    spent = dict.fromkeys(extractors, 0.0)
    for _ in range(rounds):
        for _, html, url, _ in pages:
            for name, extract in extractors.items():
                started = time.perf_counter()
                extract(html, url)
                spent[name] += time.perf_counter() - started
    return spent


def calibrate(pages: list[tuple[str, bytes, str, str]]) -> None:
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
    """Run the benchmark and print both tools' figures and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="extraction-dev folder")
    parser.add_argument("--rounds", type=int, default=3, help="timed passes (default 3)")
    parser.add_argument("--calibrate", action="store_true", help="print threshold sweeps")
    args = parser.parse_args()
    pages = load(args.data)
    quality = {
        name: score([score_page(truth, extract(html, url)) for _, html, url, truth in pages])
        for name, extract in (("ours", ours), ("trafilatura", theirs))
    }
    spent = race(pages, args.rounds)
    speed = {name: len(pages) * args.rounds / seconds for name, seconds in spent.items()}
    print(f"{len(pages)} pages from {args.data}, {args.rounds} timed rounds after a warm-up")
    print(f"{'':<12} {'F1':>6} {'precision':>9} {'recall':>7} {'pages/s':>8}")
    for name in ("ours", "trafilatura"):
        f1, precision, recall = quality[name]
        print(f"{name:<12} {f1:6.4f} {precision:9.4f} {recall:7.4f} {speed[name]:8.1f}")
    f1_ratio = quality["ours"][0] / quality["trafilatura"][0]
    speed_ratio = speed["ours"] / speed["trafilatura"]
    print(f"ratio ours/trafilatura: F1 {f1_ratio:.3f}, pages/s {speed_ratio:.2f}")
    print(f"target F1 >= trafilatura: {'met' if f1_ratio >= 1 else 'NOT met'}")
    print(f"target pages/s >= trafilatura: {'met' if speed_ratio >= 1 else 'NOT met'}")
    if args.calibrate:
        calibrate(pages)
    return 0


if __name__ == "__main__":
    sys.exit(main())
