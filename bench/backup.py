"""Benchmark `manage.py backup` and `restore` on a filled throwaway database.

Contents: the real pages of ../shared/eval/extraction-dev/html stored again and again as page
versions (their compressed bodies are most of a real database's bytes), 1,000 people with 3
lists each, 20,000 clips and 60,000 matches with their spans and reasons. The database is the
one DATABASE_URL names (a throwaway database is created on its server, or an SQLite file).
Times are wall seconds (the database server's time counts, and other programs on the machine)
and the CPU seconds of this process (the targets); the round trip is checked row by row. Most of the archive is page bodies, stored compressed already.

Usage: .venv/bin/python bench/backup.py [--versions 3000] [--clips 20000]
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
import time
from itertools import cycle
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.benchdb import setup_django, throwaway_database  # noqa: E402

PAGES = Path(__file__).resolve().parent.parent.parent / "shared/eval/extraction-dev/html"


def fill(versions: int, clips: int) -> None:
    """Store people, lists, sites, page versions, clips and matches in bulk."""
    from django.utils import timezone  # noqa: PLC0415

    from accounts.models import User  # noqa: PLC0415
    from clipping.models import Clip, KeywordList, Match  # noqa: PLC0415
    from crawler.models import Page, PageVersion, Site  # noqa: PLC0415

    now = timezone.now()
    users = User.objects.bulk_create(User(email=f"p{n}@example.com") for n in range(1000))
    lists = KeywordList.objects.bulk_create(
        KeywordList(owner=user, name=f"List {n}", terms=f"solar\nwind {n}\n-sports")
        for user in users
        for n in range(3)
    )
    site = Site.objects.create(name="Real pages", root_url="https://real.example/")
    bodies = [gzip.decompress(path.read_bytes()) for path in sorted(PAGES.glob("*.html.gz"))]
    pages = Page.objects.bulk_create(
        Page(site=site, url=f"https://real.example/{n}") for n in range(versions)
    )
    stored = []
    for page, body in zip(pages, cycle(bodies), strict=False):
        version = PageVersion(page=page, content_hash=f"{page.pk:064d}", fetched_at=now)
        version.set_body(body)
        stored.append(version)
    PageVersion.objects.bulk_create(stored, batch_size=500)
    made = Clip.objects.bulk_create(
        (
            Clip(
                site=site,
                url=f"https://real.example/{n % versions}",
                host="real.example",
                area_path=f"html/body/article[{n // versions + 1}]",
                title=f"Solar and wind story {n}",
                summary="The council gives households solar subsidies for panels. " * 3,
                spans=[[30, 35, "solar"]],
                language="en",
                seen_at=now,
            )
            for n in range(clips)
        ),
        batch_size=1000,
    )
    reasons = [{"term": "solar", "form": "exact", "matched": "solar", "via": [], "sentence": "…"}]
    Match.objects.bulk_create(
        (
            Match(
                owner_id=lists[(n * 3 + k) % len(lists)].owner_id,
                keyword_list=lists[(n * 3 + k) % len(lists)],
                clip=clip,
                story=clip,
                summary=clip.summary,
                spans=clip.spans,
                reasons=reasons,
                found_at=now,
            )
            for n, clip in enumerate(made)
            for k in range(3)
        ),
        batch_size=1000,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versions", type=int, default=3000)
    parser.add_argument("--clips", type=int, default=20_000)
    args = parser.parse_args()
    setup_django()
    from ops.archive import dumped_models  # noqa: PLC0415
    from ops.backup import backup  # noqa: PLC0415
    from ops.restore import restore  # noqa: PLC0415

    def every_table() -> dict[str, list[tuple[object, ...]]]:
        return {
            model._meta.label_lower: [
                tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)
                for row in model._base_manager.order_by("pk").values_list(
                    *[f.attname for f in model._meta.concrete_fields]
                )
            ]
            for model in dumped_models()
        }

    with throwaway_database("bench_backup"), tempfile.TemporaryDirectory() as folder:
        fill(args.versions, args.clips)
        before = every_table()
        rows = sum(map(len, before.values()))
        started, cpu = time.perf_counter(), time.process_time()
        written = backup(Path(folder) / "bench.zip")
        backup_s, backup_cpu = time.perf_counter() - started, time.process_time() - cpu
        size = written.path.stat().st_size / 1e6
        started, cpu = time.perf_counter(), time.process_time()
        restore(written.path)
        restore_s, restore_cpu = time.perf_counter() - started, time.process_time() - cpu
        same = every_table() == before
    from django.db import connection  # noqa: PLC0415

    print(f"{connection.vendor}: {rows:,} rows in {len(before)} tables; archive {size:.1f} MB")
    for name, wall, cpu in (("backup", backup_s, backup_cpu), ("restore", restore_s, restore_cpu)):
        print(
            f"  {name:<7} {wall:6.1f} s wall ({rows / wall:,.0f} rows/s), "
            f"{cpu:6.1f} s CPU of this process ({rows / cpu:,.0f} rows/s)"
        )
    verdicts = [
        ("every table back exactly", "identical" if same else "DIFFERENT", same),
        ("backup >= 4,000 rows per CPU s", f"{rows / backup_cpu:,.0f}", rows >= 4000 * backup_cpu),
        (
            "restore >= 2,000 rows per CPU s",
            f"{rows / restore_cpu:,.0f}",
            rows >= 2000 * restore_cpu,
        ),
    ]
    for target, figure, ok in verdicts:
        print(f"  {'PASS' if ok else 'FAIL'}  {target:<30} {figure}")
    return 0 if all(ok for _, _, ok in verdicts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
