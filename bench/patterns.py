"""Benchmark re: lines: what each distinct pattern adds to matching one page, and the cap.

Pages: the analyzer's main text of the real pages in ../shared/eval/extraction-dev/html. Lists:
1,000 lists of two words each (words of those pages), then the same with one re: line each,
drawn from N distinct patterns made of the pages' words in shapes people write (alternatives,
optional letters, word boundaries, a number after a word). Every distinct pattern runs once
per page whatever the number of lists holding it, so the cost grows with N, not with lists.
Times are CPU time of this process per page (time.process_time), best of 3 passes.

Usage: .venv/bin/python bench/patterns.py [--pages DIR] [--patterns 10,100,1000]
"""

from __future__ import annotations

import argparse
import gzip
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analyzer import analyze  # noqa: E402
from analyzer.text import tokenize  # noqa: E402
from clipping.matching import KeywordIndex, ListSpec, patterns, prepare_text  # noqa: E402
from clipping.terms import parse_terms  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT.parent / "shared" / "eval" / "extraction-dev" / "html"
LISTS = 1000
SHAPES = [
    r"\b{a}s?\b",
    r"\b({a}|{b})\b",
    r"{a}\W+{b}",
    r"\b{a}\w*",
    r"{a} \d+",
    r"(?-i)\b{A}\b",
]


def page_texts(folder: Path) -> list[str]:
    """Return the main text of every page in folder."""
    texts = []
    for path in sorted(folder.glob("*.html*")):
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        text = analyze(data, f"https://{path.stem[:12]}.example/").main_text
        if text:
            texts.append(text)
    return texts


def make_patterns(words: list[str], count: int, rng: random.Random) -> list[str]:
    """Return count distinct patterns over the pages' words."""
    found: dict[str, None] = {}
    while len(found) < count:
        a, b = rng.sample(words, 2)
        found[rng.choice(SHAPES).format(a=a, b=b, A=a.capitalize())] = None
    return list(found)


def per_page_ms(index: KeywordIndex, texts: list[str]) -> float:
    """Return the best of 3 passes' CPU milliseconds per page."""
    prepared = [prepare_text(text) for text in texts]
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        for page in prepared:
            index.match_prepared(page)
        best = min(best, time.process_time() - started)
    return best * 1000 / len(texts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=Path, default=PAGES)
    parser.add_argument("--patterns", default="10,100,1000")
    args = parser.parse_args()
    rng = random.Random(7)
    texts = page_texts(args.pages)
    counts = Counter(word for text in texts for word in tokenize(text) if len(word) > 3)
    words = [word for word, _ in counts.most_common(3000)]
    size = sum(map(len, texts)) / len(texts)
    print(f"{len(texts)} real pages from {args.pages}, {size:,.0f} characters each on average")
    plain = [f"{rng.choice(words)}\n{rng.choice(words)}" for _ in range(LISTS)]

    def index_of(lines: list[str]) -> KeywordIndex:
        texts_of = [
            f"{text}\nre:{lines[at % len(lines)]}" if lines else text
            for at, text in enumerate(plain)
        ]
        return KeywordIndex.build(
            ListSpec(at, "en", parse_terms(text), use_synonyms=False)
            for at, text in enumerate(texts_of)
        )

    base = per_page_ms(index_of([]), texts)
    print(f"{LISTS:,} lists of two words, no re: line: {base:.2f} ms a page")
    worst = 0.0
    for count in (int(part) for part in args.patterns.split(",")):
        with_patterns = per_page_ms(index_of(make_patterns(words, count, rng)), texts)
        extra = (with_patterns - base) * 1000 / count
        worst = max(worst, extra)
        print(
            f"  + {count:>5,} distinct re: lines: {with_patterns:8.2f} ms a page "
            f"({extra:.1f} µs a pattern a page)"
        )
    catastrophic = KeywordIndex.build([ListSpec(1, "en", parse_terms("re:(a|aa)+b"))])
    text = prepare_text("a" * 80 + "!")
    started = time.perf_counter()
    catastrophic.match_prepared(text)
    cut = time.perf_counter() - started
    print(f"re:(a|aa)+b on 80 a's (about 1.6^80 ways): cut off after {cut:.2f} s wall")
    verdicts = [
        ("a distinct pattern costs <= 100 µs a page", f"{worst:.1f} µs", worst <= 100),
        (
            f"a catastrophic pattern stops <= 4x its limit ({patterns.PATTERN_TIMEOUT} s)",
            f"{cut:.2f} s",
            cut <= 4 * patterns.PATTERN_TIMEOUT,
        ),
    ]
    for target, figure, ok in verdicts:
        print(f"  {'PASS' if ok else 'FAIL'}  {target:<56} {figure}")
    return 0 if all(ok for _, _, ok in verdicts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
