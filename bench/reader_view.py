"""How fast the reader view answers for a large article: target p95 under 200 ms for 1 MB.

A page of about 1 MB (an article of long paragraphs with links, images and tables, inside a
page of navigation, sidebars and scripts; made here, the worst case: nearly all of it article)
is stored as the crawler stores it and ingested for a person's list; the reader view's whole
request (the stored body decompressed and parsed, the analyzer's area found again, words
marked, nh3) is then timed through Django's test client. The same is then timed, first view
only, on every real page of ../shared/eval/extraction-dev/html (--real), each clipped at the
area the analyzer takes for its article.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/webclip .venv/bin/python bench/reader_view.py
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.benchdb import setup_django, throwaway_database  # noqa: E402

TARGET_P95_MS = 200.0


def big_article(size: int) -> str:
    """Return an HTML page of about `size` bytes whose article holds most of it."""
    paragraph = (
        "<p>The council voted on Tuesday to extend the solar subsidies to every district, "
        "a plan the <a href='/budget'>budget office</a> costed at twelve million over three "
        "years; residents <em>welcomed</em> it at the town hall, where installers showed "
        "panels and batteries.</p>\n"
    )
    table = (
        "<table><tr><th>District</th><th>Homes</th></tr>"
        + "".join(f"<tr><td>District {n}</td><td>{n * 37}</td></tr>" for n in range(20))
        + "</table>\n"
    )
    chunks, total, n = [], 0, 0
    while total < size * 0.9:
        piece = paragraph if n % 25 else table + f"<img src='/img/{n}.jpg' alt='Photo {n}'>"
        chunks.append(piece)
        total += len(piece)
        n += 1
    nav = "".join(f"<li><a href='/section/{i}'>Section {i}</a></li>" for i in range(200))
    return (
        "<!doctype html><html lang='en'><head><title>Solar subsidies for all</title>"
        "<script>var tracking = 1;</script></head><body>"
        f"<nav><ul>{nav}</ul></nav><main><article><h1>Solar subsidies for all</h1>"
        f"{''.join(chunks)}</article></main><aside><ul>{nav}</ul></aside></body></html>"
    )


def real_pages(client, owner, folder: Path) -> tuple[list[float], list[float]]:
    """Clip each real page at its article area for `owner`; time the reader's first view."""
    from django.core.cache import cache
    from django.urls import reverse

    from analyzer import analyze
    from clipping.handclip import main_area
    from clipping.models import Clip
    from tests.factories import make_list, make_match, make_site, store_version

    site = make_site("Real pages", "https://real.example.org/")
    real_list = make_list(owner, "Real", "the")
    times, cpu = [], []
    for number, path in enumerate(sorted(folder.glob("*.htm*"))):
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        url = f"https://real.example.org/{number}"
        version = store_version(site, url, data.decode("utf-8", "replace"))
        area = main_area(analyze(data, url))
        if area is None:
            continue
        clip = Clip.objects.create(
            site=site,
            page=version.page,
            page_version=version,
            url=url,
            host="real.example.org",
            area_path=area.path,
            title=(area.title or path.name)[:300],
            summary=area.text[:400],
        )
        make_match(real_list, clip, term=(area.text.split() or [""])[0])
        cache.clear()
        start, start_cpu = time.perf_counter(), time.process_time()
        response = client.get(reverse("clip_read", args=[clip.pk]))
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        assert response.status_code == 200, (path.name, response.status_code)
    return sorted(times), sorted(cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="page size in bytes")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument(
        "--real",
        type=Path,
        default=Path(__file__).resolve().parents[2] / "shared/eval/extraction-dev/html",
        help="a folder of real pages (*.html or *.html.gz)",
    )
    args = parser.parse_args()
    setup_django()
    with throwaway_database("webclip_bench_reader"):
        from django.conf import settings
        from django.core.cache import cache
        from django.test import Client
        from django.urls import reverse

        from clipping.models import Clip
        from tests.factories import ingest_html, make_list, make_site, make_user

        reader = make_user("reader@example.com")
        make_list(reader, "Energy", "subsidies")
        html = big_article(args.size)
        ingest_html(make_site(), "https://news.example.com/solar", html)
        clip = Clip.objects.get()
        settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
        client = Client()
        client.force_login(reader)
        url = reverse("clip_read", args=[clip.pk])
        client.get(url)  # warm: templates compiled
        found = {}
        for label, cold in (("first view (nothing cached)", True), ("read again", False)):
            times, cpu = [], []
            for _ in range(args.rounds):
                if cold:
                    cache.clear()
                start, start_cpu = time.perf_counter(), time.process_time()
                response = client.get(url)
                times.append((time.perf_counter() - start) * 1000)
                cpu.append((time.process_time() - start_cpu) * 1000)
                assert response.status_code == 200, response.status_code
            body = response.content.decode()
            assert "<mark>subsidies</mark>" in body and "tracking" not in body
            found[label] = (sorted(times), sorted(cpu))
        found["real pages, first view"] = real_pages(client, reader, args.real)
    print(
        f"made page {len(html.encode()) / 1e6:.2f} MB, {args.rounds} requests each; "
        f"real pages: {len(found['real pages, first view'][0])} from {args.real}:"
    )
    worst = 0.0
    for label, (times, cpu) in found.items():
        p95 = times[max(0, int(len(times) * 0.95) - 1)]
        cpu95 = cpu[max(0, int(len(cpu) * 0.95) - 1)]
        worst = max(worst, p95)
        print(
            f"  {label}: wall median {statistics.median(times):.1f} ms, p95 {p95:.1f} ms; "
            f"CPU p95 {cpu95:.1f} ms"
        )
    verdict = "PASS" if worst < TARGET_P95_MS else "FAIL"
    print(f"{verdict}  reader view p95 {worst:.1f} ms (target < {TARGET_P95_MS:.0f} ms)")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    raise SystemExit(main())
