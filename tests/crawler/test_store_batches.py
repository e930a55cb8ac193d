"""Pages stored together: one transaction, their own rows written together at its end."""

from __future__ import annotations

from contextlib import nullcontext

import pytest
import time_machine

from crawler.fetch.result import FetchResult
from crawler.models import Link, Page, PageVersion, Site
from crawler.run.frontier import Frontier
from crawler.run.step import process
from crawler.store.held import stored_together

pytestmark = pytest.mark.django_db

ROOT = "http://127.0.0.1:9/"
ARTICLE = "<p>The harbour council met on Tuesday to discuss the new ferry timetable.</p>" * 30


def html(title: str, *links: str) -> bytes:
    anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
    return (
        f"<html><head><title>{title}</title></head><body><main><article><h1>{title}</h1>"
        f"{ARTICLE}</article><aside><ul>{anchors}</ul></aside></main></body></html>"
    ).encode()


def answer(url: str, body: bytes, final_url: str | None = None) -> FetchResult:
    return FetchResult(url, final_url or url, 200, body, "text/html", "utf-8")


@pytest.fixture
def frontier():
    site = Site.objects.create(name="Batches", root_url=ROOT, max_depth=5)
    frontier = Frontier(site)
    frontier.add([ROOT + "a", ROOT + "b"], depth=1)
    return frontier


def page(frontier: Frontier, url: str) -> Page:
    found = Page.objects.get(site=frontier.site, url=url)
    found.site = frontier.site
    return found


def test_pages_stored_together_reach_the_database_whole_when_the_batch_ends(frontier):
    a, b = page(frontier, ROOT + "a"), page(frontier, ROOT + "b")
    with stored_together() as batch:
        first = process(frontier, None, a, answer(a.url, html("A", "/c", "/b")), batch=batch)
        process(frontier, None, b, answer(b.url, html("B", "/a")), batch=batch)
        # Held: not one of the pages' own rows is written yet.
        assert not PageVersion.objects.exists() and not Link.objects.exists()
        assert Page.objects.get(id=a.id).last_fetched_at is None
    assert first.version_id == PageVersion.objects.get(page=a).id
    assert Page.objects.get(id=a.id).last_fetched_at is not None
    links = {(link.from_page.url, link.target_url): link.target_page for link in Link.objects.all()}
    c = Page.objects.get(url=ROOT + "c")
    assert links[(ROOT + "a", ROOT + "c")] == c and links[(ROOT + "b", ROOT + "a")].id == a.id


def test_a_failure_in_the_batch_writes_none_of_its_pages(frontier):
    a = page(frontier, ROOT + "a")
    with pytest.raises(RuntimeError), stored_together() as batch:
        process(frontier, None, a, answer(a.url, html("A", "/c")), batch=batch)
        raise RuntimeError("killed")
    assert not PageVersion.objects.exists() and not Link.objects.exists()
    assert Page.objects.get(id=a.id).last_fetched_at is None


def test_a_redirect_to_a_page_stored_earlier_in_the_batch_finds_it_stored(frontier):
    a, b = page(frontier, ROOT + "a"), page(frontier, ROOT + "b")
    body = html("A", "/c")
    with stored_together() as batch:
        process(frontier, None, a, answer(a.url, body), batch=batch)
        moved = process(frontier, None, b, answer(b.url, body, final_url=a.url), batch=batch)
    assert moved.counts.get("unchanged") == 1  # the same body as A's version: not a new one
    assert PageVersion.objects.filter(page=a).count() == 1
    assert Page.objects.get(id=b.id).status == 301


def test_a_linked_page_another_process_stored_meanwhile_keeps_its_own_id(frontier):
    a = page(frontier, ROOT + "a")
    # Stored behind the run's back after the frontier read the site: the run does not know it.
    other = Page.objects.create(site=frontier.site, url=ROOT + "late", depth=4)
    with stored_together() as batch:
        process(frontier, None, a, answer(a.url, html("A", "/late", "/new")), batch=batch)
    (late,) = Link.objects.filter(from_page__url=ROOT + "a", target_url=ROOT + "late")
    assert late.target_page_id == other.id
    assert Page.objects.filter(site=frontier.site, url=ROOT + "late").count() == 1
    assert frontier.add([ROOT + "late"], depth=2) == {ROOT + "late": other.id}
    new = Link.objects.get(target_url=ROOT + "new")
    assert new.target_page_id == Page.objects.get(url=ROOT + "new").id


def test_a_crawl_run_relaxes_commits_for_its_connection_only_while_it_runs(db):
    from django.db import connection

    from crawler.store.held import commits_relaxed

    def setting() -> str | None:
        if connection.vendor != "postgresql":
            return None
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            return cursor.fetchone()[0]

    before = setting()
    with commits_relaxed():
        assert setting() in (None, "off")
    assert setting() == before


# Text that quoting gets wrong: quotes, backslashes, braces and commas (array and JSON
# syntax), non-ASCII letters and a character outside the Basic Multilingual Plane.
AWKWARD = 'Quote " back\\slash {brace}, comma \\x41 Ærø 😀'


def stored_rows(site: Site) -> dict[str, object]:
    """Return what is stored of a site's pages, without ids and the site."""
    pages, versions, links = {}, {}, set()
    for page in Page.objects.filter(site=site):
        row = {f.attname: getattr(page, f.attname) for f in Page._meta.concrete_fields}
        pages[page.url.removeprefix(site.root_url)] = {
            k: v for k, v in row.items() if k not in ("id", "site_id", "url")
        }
    for version in PageVersion.objects.filter(page__site=site).select_related("page"):
        row = {f.attname: getattr(version, f.attname) for f in PageVersion._meta.concrete_fields}
        row["body"] = version.raw_body()
        versions[version.page.url.removeprefix(site.root_url)] = {
            k: v for k, v in row.items() if k not in ("id", "page_id", "run_id")
        }
    for link in Link.objects.filter(from_page__site=site).select_related("from_page"):
        target = link.target_page.url if link.target_page else None
        links.add(
            (
                link.from_page.url.removeprefix(site.root_url),
                link.target_url.removeprefix(site.root_url),
                target and target.removeprefix(site.root_url),
                link.anchor,
                link.area_path,
                link.area_kind,
            )
        )
    return {"pages": pages, "versions": versions, "links": links}


@pytest.mark.parametrize("held", [True, False], ids=["held", "one-by-one"])
def test_rows_written_together_equal_the_rows_written_one_by_one(held):
    """Every column of pages, versions and links arrives as the ORM writes it, awkward text,
    bodies, JSON analyses, times and empty values included."""

    def crawl_site(root: str, together: bool) -> Site:
        site = Site.objects.create(name=root, root_url=root, max_depth=5)
        answers = {
            "a": html(AWKWARD, "/c?q=1", "/b", "/d"),
            "b": html("B " + AWKWARD[::-1], "/a", "/c?q=1"),
        }
        with time_machine.travel("2026-03-04 05:06:07.891234+00:00", tick=False):
            frontier = Frontier(site)
            frontier.add([root + "a", root + "b"], depth=1)
            with stored_together() if together else nullcontext() as batch:
                for name, body in answers.items():
                    fetched = answer(root + name, body)
                    process(frontier, None, page(frontier, root + name), fetched, batch=batch)
        return site

    mine = stored_rows(crawl_site("http://127.0.0.1:9/", held))
    reference = stored_rows(crawl_site("http://127.0.0.2:9/", together=False))
    assert mine == reference
    assert mine["versions"]["a"]["title"] == AWKWARD
    assert any(link[3] == "/c?q=1" for link in mine["links"])


def test_a_page_held_twice_keeps_its_last_state_and_infinite_rates_are_stored(frontier):
    from crawler.store.held import writes_held

    stale, fresh = page(frontier, ROOT + "a"), page(frontier, ROOT + "a")
    other = page(frontier, ROOT + "b")
    stale.title, fresh.title = "stale", "fresh"
    other.title, other.change_rate = "other", float("inf")
    with writes_held() as held:
        held.updates += [(stale, ("title",)), (other, ("title", "change_rate"))]
        held.updates += [(fresh, ("title",)), (stale, ("title",)), (fresh, ("title",))]
    assert Page.objects.get(id=fresh.id).title == "fresh"
    stored = Page.objects.get(id=other.id)
    assert (stored.title, stored.change_rate) == ("other", float("inf"))


def test_a_shorter_path_found_in_the_batch_to_a_page_new_in_it_is_kept(frontier):
    a = page(frontier, ROOT + "a")
    with stored_together() as batch:
        process(frontier, None, a, answer(a.url, html("A", "/c")), batch=batch)  # c: depth 2
        frontier.add([ROOT + "c"], depth=1, batch=batch)  # and found nearer before it ends
    assert Page.objects.get(site=frontier.site, url=ROOT + "c").depth == 1


def hub_html(title: str, count: int) -> bytes:
    items = "".join(
        f'<li><a href="/story/{n}">Story number {n} of the day</a></li>' for n in range(count)
    )
    return f"<html><head><title>{title}</title></head><body><ul>{items}</ul></body></html>".encode()


@pytest.mark.postgres
def test_a_hub_brings_the_sites_watch_forward_in_the_round_trip_of_the_batchs_rows(frontier):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    a = page(frontier, ROOT + "a")
    with CaptureQueriesContext(connection) as queries, stored_together() as batch:
        process(frontier, None, a, answer(a.url, hub_html("Stories", 40)), batch=batch)
        assert Site.objects.get(id=frontier.site.id).next_watch_at is None  # held
    stored = Page.objects.get(id=a.id)
    assert stored.kind == Page.Kind.HUB
    assert Site.objects.get(id=frontier.site.id).next_watch_at == stored.next_visit_at
    watching = [q["sql"] for q in queries.captured_queries if '"next_watch_at" =' in q["sql"]]
    assert len(watching) == 1 and 'INSERT INTO "crawler_pageversion"' in watching[0]


@pytest.mark.postgres
def test_the_batchs_page_update_reads_its_pages_by_id_not_the_whole_page_table(frontier):
    from django.db import connection

    from crawler.store.held import _page_updates

    frontier.add([f"{ROOT}p/{n}" for n in range(3000)], depth=2)
    with connection.cursor() as cursor:
        cursor.execute('ANALYZE "crawler_page"')
    a = page(frontier, ROOT + "a")
    a.status = 200
    [(sql, params)] = _page_updates([(a, ("status",))])
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Seq Scan on crawler_page" not in plan
    assert "crawler_page_pkey" in plan
