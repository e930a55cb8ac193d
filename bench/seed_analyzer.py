"""Page Analyzer elements kept only if cross-validation on real pages says they do not lose.

Real pages: the shared real blog (../shared/eval/sites/andreagrandi: its post list pages,
home and category pages are hubs, its posts information pages) and the 60 real dev
articles (information pages). Pages are dealt into K folds (page i to fold i mod K).

1. LAR in hub discovery (the paper names link density metrics beside HV): a hub area with
   short anchors (median under NAV_MAX_WORDS words) stays a hub when its LAR is at most
   HUB_MAX_LAR (headline links among category links) instead of becoming navigation.
   Measure: F1 of recall (post links of list pages reachable through hub areas or teasers)
   and precision (hub-area links leading to posts or lists of posts). For each fold the
   threshold is chosen on the other folds from a grid (0 = no LAR, the rule before), and
   scored on the held-out fold; printed per fold, mean and spread, beside no LAR.
2. Page averages learnt per site (the paper's running averages of classified pages, as the
   crawl keeps them): each site's pages (the blog is one site, each dev article a site of its
   own) in a random crawl order, each classified with the averages learnt from the site's
   pages classified before it (dev-set averages as the prior), against the fixed dev-set
   averages; FOLDS orders. Measure: page-kind accuracy, pages whose kind changes, and the
   blog's learnt averages.

Usage: .venv/bin/python -m bench.seed_analyzer
"""

from __future__ import annotations

import gzip
import random
import re
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

EVAL = Path(__file__).resolve().parent.parent.parent / "shared" / "eval"
BLOG = EVAL / "sites" / "andreagrandi"
FOLDS = 5
GRID = [0.0, 1 / 25, 1 / 20, 1 / 15, 1 / 12, 1 / 10]
LEADS = ("/posts/", "/categories/", "/tags/", "/page/", "/archives/")


def labelled_pages() -> list[tuple[str, str, bytes]]:
    """Return (truth kind, url, body) for the blog's lists and posts and the dev articles."""
    lists = [BLOG / "index.html", *sorted(BLOG.glob("page/*/index.html")),
             *sorted(BLOG.glob("categories/*/index.html"))]  # fmt: skip
    pages = [("hub", "https://www.andreagrandi.it/", p.read_bytes()) for p in lists]
    pages += [
        ("information", "https://www.andreagrandi.it/", p.read_bytes())
        for p in sorted(BLOG.glob("posts/*/index.html"))
    ]
    dev = sorted((EVAL / "extraction-dev" / "html").glob("*.html.gz"))
    pages += [("information", "https://example.org/", gzip.decompress(p.read_bytes())) for p in dev]
    return pages


def hub_counts(pages, threshold: float) -> list[tuple[int, int, int, int]]:
    """Return per blog page (post links found, post links there, hub links, leading ones)."""
    from analyzer import analyze, areas

    areas.HUB_MAX_LAR = threshold
    rows = []
    for truth, url, body in pages:
        if "andreagrandi" not in url:
            continue
        analysis = analyze(body, url)
        got: set[str] = set()
        links = leading = 0
        for area in analysis.hub_areas:
            for link in area.links:
                path = urlsplit(link.url).path
                links += 1
                leading += path.startswith(LEADS)
                if path.startswith("/posts/"):
                    got.add(path)
        got |= {urlsplit(a.follow_url).path for a in analysis.informational_areas
                if a.teaser and a.follow_url}  # fmt: skip
        wanted = (
            set(re.findall(r'href="(/posts/[^"#]+/)"', body.decode())) if truth == "hub" else set()
        )
        rows.append((len(wanted & got), len(wanted), links, leading))
    return rows


def f1(rows) -> float:
    found, wanted, links, leading = (sum(r[i] for r in rows) for i in range(4))
    recall = found / wanted if wanted else 1.0
    precision = leading / links if links else 1.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def lar_cv(pages) -> bool:
    from analyzer import areas

    kept = areas.HUB_MAX_LAR
    table = {t: hub_counts(pages, t) for t in GRID}
    areas.HUB_MAX_LAR = kept
    folds = [[i for i in range(len(table[0.0])) if i % FOLDS == k] for k in range(FOLDS)]
    chosen, scores, plain = [], [], []
    for fold in folds:
        rest = [i for i in range(len(table[0.0])) if i not in set(fold)]
        best = max(GRID, key=lambda t: (round(f1([table[t][i] for i in rest]), 4), -abs(t - kept)))
        chosen.append(best)
        scores.append(f1([table[best][i] for i in fold]))
        plain.append(f1([table[0.0][i] for i in fold]))
    print("1. LAR in hub discovery: F1 of hub recall (post links of list pages) and precision")
    for t in GRID:
        found, wanted, links, leading = (sum(r[i] for r in table[t]) for i in range(4))
        print(f"   HUB_MAX_LAR {t:.3f}: recall {found}/{wanted} = {found / wanted:.1%}, "
              f"precision {leading}/{links} = {leading / max(links, 1):.1%}, F1 {f1(table[t]):.3f}")  # fmt: skip
    print("   held-out folds, LAR chosen on the others: " + "  ".join(
        f"{s:.3f} (LAR {t:.3f})" for s, t in zip(scores, chosen, strict=True)))  # fmt: skip
    print("   held-out folds, no LAR:                   " + "  ".join(f"{s:.3f}" for s in plain))
    print(f"   mean {statistics.mean(scores):.3f} ± {statistics.stdev(scores):.3f} with LAR, "
          f"{statistics.mean(plain):.3f} ± {statistics.stdev(plain):.3f} without")  # fmt: skip
    ok = all(s >= p for s, p in zip(scores, plain, strict=True))
    print(
        f"   LAR kept (HUB_MAX_LAR {kept:.3f}): {'yes, no fold loses' if ok else 'NO, a fold loses'}"
    )
    return ok


def averages_cv(pages) -> bool:
    from analyzer import analyze
    from analyzer.kind import DEV_AVERAGES, kind_of

    sites: dict[str, list[tuple[str, int, float]]] = {}
    for i, (truth, url, body) in enumerate(pages):
        measures = analyze(body, url).measures  # as the crawl measures them
        if measures is not None:
            # The blog is one site; each dev article comes from a site of its own.
            site = url if "andreagrandi" in url else f"dev {i}"
            sites.setdefault(site, []).append((truth, *measures))
    rng = random.Random(33)
    fixed, learnt, flips, blog = [], [], [], []
    for _ in range(FOLDS):
        right_fixed = right_learnt = flipped = total = 0
        for site, measured in sites.items():
            order = rng.sample(measured, len(measured))  # a crawl order of the site
            averages = DEV_AVERAGES
            for truth, prose, ltr in order:
                kind, plain = kind_of(prose, ltr, averages)[0], kind_of(prose, ltr)[0]
                right_fixed += plain == truth
                right_learnt += kind == truth
                flipped += kind != plain
                total += 1
                averages = averages.learnt(prose, ltr, kind)
            if "andreagrandi" in site:
                blog.append(averages)
        fixed.append(right_fixed / total)
        learnt.append(right_learnt / total)
        flips.append(flipped)
    print("\n2. Page averages learnt per site, page-kind accuracy per random crawl order")
    print("   dev-set averages: " + "  ".join(f"{a:.3f}" for a in fixed)
          + f"   mean {statistics.mean(fixed):.3f} ± {statistics.stdev(fixed):.3f}")  # fmt: skip
    print("   learnt averages:  " + "  ".join(f"{a:.3f}" for a in learnt)
          + f"   mean {statistics.mean(learnt):.3f} ± {statistics.stdev(learnt):.3f}")  # fmt: skip
    print("   pages whose kind the learnt averages change: " + "  ".join(map(str, flips)))
    for name in ("info_text", "info_ltr", "hub_text", "hub_ltr"):
        values = [getattr(a, name) for a in blog]
        print(f"   real blog's learnt {name}: {statistics.mean(values):.2f} "
              f"± {statistics.stdev(values):.2f} (dev-set prior {getattr(DEV_AVERAGES, name):g})")  # fmt: skip
    ok = all(a >= b for a, b in zip(learnt, fixed, strict=True))
    print(f"   learnt averages kept (used by the crawl): {'yes, no order loses' if ok else 'NO'}")
    return ok


def main() -> None:
    started = time.perf_counter()
    pages = labelled_pages()
    hubs = sum(1 for t, _, _ in pages if t == "hub")
    print(f"{len(pages)} real pages: {hubs} hubs, {len(pages) - hubs} information pages\n")
    results = {"LAR": lar_cv(pages), "learnt averages": averages_cv(pages)}
    print(f"\n{time.perf_counter() - started:.0f} s; " + ", ".join(
        f"{name}: {'does not lose' if ok else 'loses'}" for name, ok in results.items()))  # fmt: skip


if __name__ == "__main__":
    main()
