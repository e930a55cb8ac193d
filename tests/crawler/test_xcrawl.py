"""The xCrawl strategy on real servers: restarts, DownloadAllAuthorities, hosts and robots.txt,
the admin choice per site and the crawl under Celery like breadth-first."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from django.urls import reverse

from analyzer import analyze
from analyzer.text import stems
from crawler.models import CrawlRun, Page, Site
from crawler.models.xcrawl import PageVerdict
from crawler.run.frontier import Frontier
from crawler.run.loop import crawl
from crawler.strategies.xcrawl.graph import WebGraph
from crawler.strategies.xcrawl.walk import Walk, authority_subtrees, links_in_subtrees
from crawler.tasks import crawl_site, enqueue_crawl
from crawler.topic import Topic, register_topic_provider
from tests.crawler.servers import SiteServer, fetch_once
from tests.crawler.sites import Published, inline_management, make_site
from tests.crawler.xcrawl_site import TOPIC_WORDS, build_shop
from tests.factories import make_user

TOPIC = Topic(terms={stem: 1.0 for stem in stems(TOPIC_WORDS)}, language="en")


@pytest.fixture
def topic():
    register_topic_provider(lambda site: TOPIC)
    yield TOPIC
    register_topic_provider(None)


def small_shop(**options):
    return build_shop(
        products_per_brand=(3, 5), categories=["cameras", "printers", "phones"], **options
    )


# --- Restarts ---------------------------------------------------------------------------------


@pytest.mark.parametrize("probability", [0.05, 0.15, 0.3])
def test_the_walk_restarts_with_the_configured_probability_over_many_seeded_steps(probability):
    walk = Walk(WebGraph(), random.Random(7), restart_probability=probability)
    steps = 20_000
    restarts = sum(walk.wants_restart() for _ in range(steps))
    # Binomial: the standard deviation is at most 0.0033 at 20,000 steps; allow 4 of them.
    assert abs(restarts / steps - probability) < 0.013
    again = Walk(WebGraph(), random.Random(7), restart_probability=probability)
    assert sum(again.wants_restart() for _ in range(steps)) == restarts  # seeded: repeatable


def test_the_walk_follows_the_heaviest_unvisited_link_and_breaks_ties_with_the_seed():
    graph = WebGraph()
    graph.add_page("/a", ["/b", "/c", "/d", "/e"])
    graph.add_page("/b", [])
    weights = [0.0, 0.9, 0.2, 0.5, 0.5]  # /b is heavier but fetched; /d and /e tie
    picks = set()
    for seed in range(20):
        walk = Walk(graph, random.Random(seed))
        walk.start_at(graph.index["/a"])
        picks.add(graph.urls[walk.choose(np.array(weights), lambda n: True)])
    assert picks == {"/d", "/e"}


# --- DownloadAllAuthorities -------------------------------------------------------------------

HUB = """<!doctype html><html lang="en"><head><title>Cameras</title></head><body>
<header><nav><ul><li><a href="/a1">Camera A1 news</a></li><li><a href="/menu">Menu</a></li></ul>
</nav></header>
<main><h1>All cameras</h1>
<section class="list"><ul>
<li><a href="/a1">Alpha 1</a><p>A compact body.</p></li>
<li><a href="/a2">Alpha 2</a><p>A larger body.</p></li>
<li><a href="/u1">Beta 1</a><p>Not seen yet.</p></li>
<li><a href="/u2">Beta 2</a><p>Not seen yet either.</p></li>
</ul></section>
<aside><h2>Elsewhere</h2><ul><li><a href="/other1">Printers</a></li>
<li><a href="/other2">Phones</a></li></ul></aside>
</main><footer><a href="/about">About</a></footer></body></html>"""


def test_download_all_authorities_takes_exactly_the_links_of_the_subtree_holding_authorities():
    with SiteServer() as server:
        server.html("/hub", HUB)
        result = fetch_once(server.url("/hub"))
    analysis = analyze(result.body, server.url("/hub"))
    graph = WebGraph()
    hub = graph.add_page("/hub", [link.url.removeprefix(server.origin) for link in analysis.links])
    for url in ("/a1", "/a2"):
        graph.add_page(url, [], accepted=True)
    graph.add_page("/other1", [], accepted=False)
    links = [
        (graph.index[link.url.removeprefix(server.origin)], link.area_path, link.area_kind)
        for link in analysis.links
    ]
    assert graph.successors(hub)  # the hub links to all of them
    subtrees = authority_subtrees(links, graph.is_accepted)
    found = [graph.urls[n] for n in links_in_subtrees(links, subtrees)]
    assert found == ["/a1", "/a2", "/u1", "/u2"]  # not the menu, the aside nor the footer


# --- Whole runs on the generated shop ---------------------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db
def test_an_xcrawl_run_finds_authorities_and_never_leaves_the_hosts_or_ignores_robots(topic):
    with SiteServer() as elsewhere, SiteServer() as server:
        elsewhere.html("/", "<html><body><p>Another site</p></body></html>")
        foreign = f"http://localhost:{elsewhere.port}/"
        shop = small_shop()
        shop.footer = [(foreign, "Our partner"), ("/private/1", "Staff")]
        shop.robots = "User-agent: *\nDisallow: /list/2/\nDisallow: /private/\n"
        shop.serve(server)
        site = make_site(server, page_budget=150, strategy=Site.Strategy.XCRAWL)
        run = crawl(site, seed=3, render_shells="off")
        requested = server.paths()
    assert run.strategy == "xcrawl" and run.status == CrawlRun.Status.FINISHED
    assert elsewhere.paths() == []  # the other host was never asked
    assert not [p for p in requested if p.startswith(("/list/2/", "/private/"))]
    assert "/robots.txt" in requested
    fetched = Page.objects.filter(site=site, last_fetched_at__isnull=False)
    assert not fetched.exclude(url__startswith=server.origin).exists()
    accepted = PageVerdict.objects.filter(page__site=site, accepted=True)
    cameras = {
        f"{server.origin}/item/{p.id}" for p in shop.products.values() if p.category == "cameras"
    }
    assert accepted.count() >= len(cameras) // 2
    assert set(accepted.values_list("page__url", flat=True)) <= cameras | {
        f"{server.origin}/blog/{g}" for g, category, _, _ in shop.guides if category == "cameras"
    }
    assert PageVerdict.objects.filter(page__site=site, hub__gt=0).exists()  # hubs were found


@pytest.mark.django_db
def test_admins_choose_xcrawl_per_site_and_it_runs_as_the_crawl_task_like_breadth_first(
    client, topic, django_capture_on_commit_callbacks
):
    client.force_login(make_user("admin@example.com", is_staff=True, is_superuser=True))
    with SiteServer() as server:
        small_shop().serve(server)
        site = make_site(server, page_budget=40)
        form = client.get(reverse("admin:crawler_site_change", args=[site.id]))
        assert b'value="xcrawl"' in form.content
        data = {
            field.name: field.value()
            for field in form.context["adminform"].form
            if field.value() is not None
        }
        data["strategy"] = "xcrawl"
        data = {k: ("on" if v is True else v) for k, v in data.items() if v is not False}
        data.update(inline_management(Site))
        response = client.post(reverse("admin:crawler_site_change", args=[site.id]), data)
        assert response.status_code == 302, response.content[:2000]
        site.refresh_from_db()
        assert site.strategy == "xcrawl"
        with Published() as published, django_capture_on_commit_callbacks(execute=True):
            enqueue_crawl(site)
        assert published == [("crawler.tasks.crawl_site", "crawl")]  # the breadth-first queue
        run = CrawlRun.objects.get(id=crawl_site(site.id))
    assert run.strategy == "xcrawl" and run.status == CrawlRun.Status.FINISHED
    assert PageVerdict.objects.filter(page__site=site, accepted=True).exists()


# --- Node weights of pages not fetched yet ----------------------------------------------------


def test_an_unfetched_page_weighs_the_mean_of_its_authority_estimate_and_its_pagerank():
    from crawler.strategies.xcrawl.graph import pagerank
    from crawler.strategies.xcrawl.weights import GraphWeights, Variant

    graph = WebGraph()  # home -> {list, other}; list -> {p1, p2, p3}; other -> {q}
    graph.add_page("home", ["list", "other"])
    graph.add_page("list", ["p1", "p2", "p3"])
    graph.add_page("other", ["q"])
    graph.add_page("p1", [], accepted=True)
    graph.add_page("p2", [], accepted=True)
    weights = GraphWeights(graph, variant=Variant.HITS_PAGERANK, tolerance=1e-12)
    weights.find_hubs()
    w = weights.weights()
    rank = pagerank(graph.adjacency(), tol=1e-12).scores
    rank = rank / rank.max()
    p3, q = graph.index["p3"], graph.index["q"]
    # p3: linked by the only hub (authority estimate 1); q: by no hub (estimate 0, counted).
    assert w[p3] == pytest.approx((1.0 + rank[p3]) / 2, rel=1e-6)
    assert w[q] == pytest.approx(rank[q] / 2, rel=1e-6)
    # Hand check of the plain PageRank: p3 and q each get a share of one parent's out-links.
    assert rank[q] > rank[p3]  # "other" has one link, "list" three: q alone would win
    assert w[p3] > w[q]  # but a hub's link decides


@pytest.mark.django_db
def test_xcrawl_has_each_new_page_read_in_the_process_that_analyses_it(topic, monkeypatch):
    """The list items around a new page's links and the stems of its words are read in the
    analysing process beside the analysis, not in the crawl's process; what reaches
    `observe` is what reading the stored page gives."""
    import os

    from crawler.strategies.xcrawl import reading
    from crawler.strategies.xcrawl import strategy as xcrawl_module
    from crawler.strategies.xcrawl.reading import Reading, dom_item_texts, page_words

    readers: list[object] = []
    read_ahead = xcrawl_module.XCrawl.read_ahead

    def recorded(self, fetched):
        reader = read_ahead(self, fetched)
        readers.append(reader)
        return reader

    observed: dict[str, object] = {}
    observe = xcrawl_module.XCrawl.observe

    def observing(self, observation):
        observed[observation.url] = observation.read_ahead
        return observe(self, observation)

    def read_here(*args):  # the crawl process must never read a page itself
        raise AssertionError(f"read in the crawl's process {os.getpid()}")

    monkeypatch.setattr(xcrawl_module.XCrawl, "read_ahead", recorded)
    monkeypatch.setattr(xcrawl_module.XCrawl, "observe", observing)
    monkeypatch.setattr(reading, "dom_item_texts", read_here)
    monkeypatch.setattr(reading, "page_words", read_here)
    with SiteServer() as server:
        small_shop().serve(server)
        site = make_site(server, page_budget=30, strategy=Site.Strategy.XCRAWL)
        crawl(site, seed=3, render_shells="off")
    monkeypatch.undo()
    given = [reader for reader in readers if reader is not None]  # None: an empty body
    assert len(given) >= 20
    assert all(function is reading.read_page for function, _ in given)
    canonical = Frontier(site).canonical
    read = {url: value for url, value in observed.items() if isinstance(value, Reading)}
    assert len(read) >= 20
    for url, value in read.items():
        body = Page.objects.get(site=site, url=url).latest_version().raw_body()
        assert value.items == dom_item_texts(body, url, canonical)
        assert value.words == page_words(analyze(body, url), topic.language)


def test_the_analysing_process_imports_the_reader_without_django():
    """The analysing process has no Django: finding xCrawl's reader there imports none."""
    code = (
        "import sys, crawler.strategies.xcrawl.reading\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == "[]", result.stdout + result.stderr


def test_a_page_read_again_has_its_links_on_the_origin_its_aliases_name_now():
    """The analysing process remembers the canonical form of the links it reads, never
    where the aliases of one run put them."""
    from crawler.strategies.xcrawl.reading import read_page

    body = (
        b"<html><body><ul><li><a href='https://www.example.org/posts/a/?utm_source=x'>A post"
        b"</a> about Python</li><li><a href='/posts/b/'>B</a> about walks</li></ul></body></html>"
    )
    url = "http://127.0.0.1:8000/"
    analysis = analyze(body, url)
    plain = read_page(body, url, analysis, {}, "en")
    served = {"https://www.example.org": "http://127.0.0.1:8000"}
    mapped = read_page(body, url, analysis, served, "en")
    again = read_page(body, url, analysis, {}, "en")
    assert set(plain.items) == {
        "https://www.example.org/posts/a/",
        "http://127.0.0.1:8000/posts/b/",
    }
    assert set(mapped.items) == {"http://127.0.0.1:8000/posts/a/", "http://127.0.0.1:8000/posts/b/"}
    assert again == plain
