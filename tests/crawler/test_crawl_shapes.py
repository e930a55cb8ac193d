"""Pagers, traps, copies, link evidence and repeatable runs, on small real pages and servers."""

from __future__ import annotations

import lxml.html
import pytest
from django.urls import reverse

from analyzer import analyze
from analyzer.text import stems
from crawler.canonical import (
    canonicalize,
    is_pager_link,
    non_html,
    pager_key,
    pager_links,
    url_shape,
)
from crawler.extract.feeds import feed_links
from crawler.models import CrawlRun, Page
from crawler.run.loop import crawl
from crawler.run.shapes import COPY_PROBE, TRAP_PROBE, ShapeWatch
from crawler.strategies.base import LinkRecord
from crawler.strategies.xcrawl.evidence import Evidence, item_texts
from crawler.topic import Topic, register_topic_provider
from tests.crawler.servers import Response, SiteServer
from tests.crawler.sites import DynamicRoutes, article, make_site

PYTHON = Topic(terms={stem: 1.0 for stem in stems(["python"])}, queries={"python": 1.0})


@pytest.fixture(autouse=True)
def _no_hidden_web(settings):
    settings.DEEPWEB_ENABLED = False


@pytest.fixture
def python_topic():
    register_topic_provider(lambda site: PYTHON)
    yield PYTHON
    register_topic_provider(None)


# --- Pagers, shapes and files --------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "link", "anchor"),
    [
        ("http://h/", "http://h/page/2/", "2"),
        ("http://h/page/2/", "http://h/page/3/", ""),
        ("http://h/page/3/", "http://h/", "1"),
        ("http://h/blog/?page=4", "http://h/blog/?page=5", ""),
        ("http://h/c/python/", "http://h/c/python/page/2/", "Older posts"),
        ("http://h/list?sort=new&start=20", "http://h/list?sort=new&start=40", ""),
        ("http://h/news/", "http://h/news/?cursor=abc", "Weiter »"),
        ("http://h/news/", "http://h/news/?cursor=abc", "Articoli precedenti"),
    ],
)
def test_the_pages_of_one_list_are_recognised_as_a_pager(page, link, anchor):
    assert is_pager_link(page, link, anchor)


@pytest.mark.parametrize(
    ("page", "link", "anchor"),
    [
        ("http://h/page/2/", "http://h/posts/older-story/", "Older story about pagers"),
        ("http://h/c/python/", "http://h/c/rust/page/2/", "2"),
        ("http://h/news/", "http://h/sport/", "Next"),
        ("http://h/page/2/", "http://h/page/2/", "2"),
    ],
)
def test_an_article_or_another_list_is_no_pager(page, link, anchor):
    assert not is_pager_link(page, link, anchor)


def test_a_link_marked_rel_next_is_a_pager_only_with_its_rel():
    links = [
        LinkRecord("http://h/news/?after=x7", "See what came before"),
        LinkRecord("http://h/news/story/", "A story"),
    ]
    rels = {"http://h/news/?after=x7": ("next",)}
    assert pager_links("http://h/news/", links, rels) == {"http://h/news/?after=x7"}
    assert pager_links("http://h/news/", links) == frozenset()


@pytest.mark.django_db
@pytest.mark.parametrize("strategy", ["bfs", "xcrawl"])
def test_each_observation_names_the_pages_of_its_list_by_their_rel_too(strategy, python_topic):
    def build(path: str) -> Response | None:
        if path != "/news/":
            return Response(article("A story", "Python news."))
        return Response(
            "<!doctype html><html lang='en'><head><title>News</title></head><body><main>"
            "<article><h2><a href='/news/story/'>A story about Python</a></h2></article>"
            "</main><a rel='next' href='/news/?after=x7'>See what came before</a></body></html>"
        )

    observed = {}
    with SiteServer() as server:
        server.routes = DynamicRoutes(build)
        site = make_site(server, root_url=server.url("/news/"), page_budget=6)
        crawl(
            site,
            strategy=strategy,
            render_shells="off",
            progress=lambda run, o: observed.setdefault(o.url, o.pager_links()),
        )
        first, story, cursor = (
            server.url(p) for p in ("/news/", "/news/story/", "/news/?after=x7")
        )
    assert observed[first] == {cursor}
    assert observed[story] == frozenset()
    assert Page.objects.get(site=site, url=cursor).depth == 0  # one hub with its first page


def test_a_pager_key_drops_only_the_page_number():
    assert pager_key("http://h/c/python/page/7/") == ("http://h/c/python/", 7)
    assert pager_key("http://h/list?q=x&page=3") == ("http://h/list?q=x", 3)
    assert pager_key("http://h/posts/2019-review/") == ("http://h/posts/2019-review/", 1)


def test_shapes_group_the_pages_one_template_generates():
    assert url_shape("http://h/posts/a-b/") == url_shape("http://h/posts/c-d/") == "/posts/*/"
    assert url_shape("http://h/events/?date=2026-01-01") == "/events/?date=*"
    assert url_shape("http://h/article/x-1/print/") == "/article/*/print/"
    assert url_shape("http://h/about/") != url_shape("http://h/contact/")


def test_images_and_files_are_recognised_before_they_are_fetched():
    assert non_html("http://h/media/photo.JPG")
    assert non_html("http://h/files/report.pdf")
    assert not non_html("http://h/posts/version-2.0/")
    assert not non_html("http://h/sitemap.xml")


def test_tracking_parameters_never_make_a_second_url():
    assert canonicalize("http://h/a/?utm_source=x&fbclid=1&gclid=2&id=3") == "http://h/a/?id=3"


def test_a_feed_type_written_with_an_escaped_plus_is_still_a_feed():
    html = '<link rel="alternate" type="application/rss&#43;xml" href="/index.xml">'
    assert feed_links(html, "http://h/") == ["http://h/index.xml"]


# --- Traps and copies, judged from the pages ------------------------------------------------


def test_a_calendar_that_only_mints_more_of_itself_is_a_trap_after_a_small_probe():
    watch = ShapeWatch()
    traps = 0
    for day in range(1, 12):
        url = f"http://h/events/?date=2026-01-{day:02d}"
        found, _ = watch.observe(
            url,
            text=f"No events on {day} January 2026",
            links=["http://h/", f"http://h/events/?date=2026-01-{day + 1:02d}"],
            canonical=None,
        )
        traps += found
    assert watch.refusal("http://h/events/?date=2026-02-01") == "trap"
    assert traps == watch.trap_fetches == 11 and TRAP_PROBE <= 11
    assert watch.refusal("http://h/posts/a/") is None


def test_a_long_list_of_new_articles_is_never_a_trap():
    watch = ShapeWatch()
    for number in range(2, 30):
        watch.observe(
            f"http://h/page/{number}/",
            text=None,
            links=[f"http://h/page/{number + 1}/"]
            + [f"http://h/posts/p{number}-{i}/" for i in range(5)],
            canonical=None,
        )
    assert watch.refusal("http://h/page/31/") is None and watch.trap_fetches == 0


def test_copies_pointing_elsewhere_stop_their_shape_but_not_the_originals():
    watch = ShapeWatch()
    for slug in ("a-1", "b-2"):
        _, copy = watch.observe(
            f"http://h/article/{slug}/print/",
            text="The same text",
            links=[],
            canonical=f"http://h/article/{slug}/",
        )
        assert copy == 1
        watch.observe(
            f"http://h/article/{slug}/",
            text="The same text",
            links=[],
            canonical=f"http://h/article/{slug}/",
        )
    assert watch.refusal("http://h/article/c-3/print/") == "duplicate"
    assert watch.refusal("http://h/article/c-3/") is None
    assert watch.duplicate_fetches == 2


# --- Link evidence ---------------------------------------------------------------------------

LIST_PAGE = """<!doctype html><html lang="en"><head><title>Blog</title></head><body>
<header><nav><a href="/">Home</a> <a href="/about/">About</a></nav></header>
<main><section class="list">
<article><div class="cats"><a href="/categories/python/">Python</a></div>
<h2><a href="/posts/speed-tips/">Speed tips</a></h2><p>Notes from a week of profiling.</p></article>
<article><div class="cats"><a href="/categories/travel/">Travel</a></div>
<h2><a href="/posts/holiday/">A holiday</a></h2><p>Notes from a week by the sea.</p></article>
</section><nav class="pagination"><a href="/page/2/">2</a></nav></main></body></html>"""


def test_a_label_printed_in_a_list_item_is_evidence_for_that_item_only():
    analysis = analyze(LIST_PAGE.encode(), "http://h/")
    texts = item_texts(analysis.links, canonicalize)
    evidence = Evidence(PYTHON, needed=1.0)
    assert evidence.score(evidence.stems(texts["http://h/posts/speed-tips/"])) == 1.0
    assert evidence.score(evidence.stems(texts["http://h/posts/holiday/"])) == 0.0


def test_learnt_terms_raise_evidence_but_never_as_much_as_a_keyword():
    evidence = Evidence(PYTHON, needed=1.0)
    evidence.learned = {"django": 0.2, "pip": 0.2}
    assert 0 < evidence.score({"django", "pip"}) < 0.5
    assert evidence.score({"python"}) == 1.0


# --- Whole runs on real local servers --------------------------------------------------------


def blog(server: SiteServer, posts: int = 40, per_page: int = 2) -> set[str]:
    """Serve a date-ordered blog whose oldest posts are about Python; return their paths."""
    topical = {f"/posts/p{i}/" for i in range(posts - 6, posts)}

    def build(path: str) -> Response | None:
        if path == "/" or path.startswith("/page/"):
            number = 1 if path == "/" else int(path.split("/")[2])
            items = ""
            for i in range((number - 1) * per_page, min(posts, number * per_page)):
                label = "Python" if f"/posts/p{i}/" in topical else "Travel"
                items += (
                    f"<article><span class='cat'>{label}</span><h2><a href='/posts/p{i}/'>"
                    f"Post number {i}</a></h2><p>A few words of teaser.</p></article>"
                )
            older = (
                f"<a href='/page/{number + 1}/'>Older posts</a>"
                if number * per_page < posts
                else ""
            )
            return Response(
                "<!doctype html><html lang='en'><head><title>Blog</title></head><body>"
                "<nav><a href='/events/'>Events</a> <a href='/about/'>About</a></nav>"
                f"<main>{items}</main><nav class='pager'>{older}</nav></body></html>"
            )
        if path.startswith("/posts/p"):
            i = int(path.split("/")[2][1:])
            subject = "python code and packaging" if path in topical else "a walk in the hills"
            canonical = f"<link rel='canonical' href='/posts/p{i}/'>"
            return Response(
                article(
                    f"Post {i}",
                    f"This is about {subject}.",
                    [("/", "Home"), (f"/posts/p{i}/print/?utm_source=post", "Print")],
                    canonical,
                )
            )
        if path.endswith("/print/"):
            slug = path.split("/")[2]
            return Response(
                article("Print", "A copy.", [], f"<link rel='canonical' href='/posts/{slug}/'>")
            )
        if path.startswith("/events/"):
            day = int(path.split("day=")[1]) if "day=" in path else 1
            return Response(
                "<!doctype html><html><body><h1>Events</h1><p>Nothing on this day.</p>"
                f"<a href='/events/?day={day + 1}'>Next day</a></body></html>"
            )
        if path == "/about/":
            return Response(article("About", "Who writes here."))
        return None

    server.routes = DynamicRoutes(build)
    return topical


@pytest.mark.django_db
def test_old_posts_of_a_long_pager_stay_within_max_depth_and_traps_and_copies_stop_early(
    settings,
):
    settings.CRAWLER_RUN_CONCURRENCY = 2  # fetches already in flight when a shape is judged
    with SiteServer() as server:
        blog(server, posts=40, per_page=2)
        site = make_site(server, page_budget=400, max_depth=3)
        run = crawl(site, strategy="bfs", render_shells="off")
        requested = server.paths()
    assert "/posts/p39/" in requested, (run.learned, run.stop_reason, requested)  # 20 pages deep
    assert Page.objects.get(site=site, url=server.url("/page/20/")).depth == 0
    calendar = [p for p in requested if p.startswith("/events/")]
    assert len(calendar) <= TRAP_PROBE + 2 and run.trap_fetches >= TRAP_PROBE
    copies = [p for p in requested if p.endswith("/print/")]
    assert run.duplicate_fetches == len(copies) <= COPY_PROBE + 2
    assert not any("utm_source" in p for p in requested)
    assert run.learned["trap_shapes"] == ["/events/?day=*"]
    assert run.learned["copy_shapes"] == ["/posts/*/print/"]
    assert run.stop_reason == "exhausted"
    assert run.hub_fetches + run.post_fetches <= run.fetched


@pytest.mark.django_db
def test_xcrawl_with_many_fetches_in_flight_fetches_one_copy_of_a_new_shape_first(
    python_topic, settings
):
    settings.CRAWLER_RUN_CONCURRENCY = 16  # the default: one ask hands out many pages
    with SiteServer() as server:
        blog(server, posts=12, per_page=6)
        site = make_site(server, page_budget=200, max_depth=3)
        run = crawl(site, strategy="xcrawl", seed=1, render_shells="off")
        requested = server.paths()
    # Every post links its print copy: the copies' shape is judged on the first ones fetched,
    # whoever handed them out (a download, the best-first choice or the walk), not after a
    # whole ask's worth of them.
    copies = [p for p in requested if p.endswith("/print/")]
    assert run.duplicate_fetches == len(copies) <= COPY_PROBE, requested


@pytest.mark.django_db
def test_xcrawl_fetches_a_labelled_post_as_soon_as_the_list_shows_it(python_topic, settings):
    settings.CRAWLER_RUN_CONCURRENCY = 4
    with SiteServer() as server:
        topical = blog(server, posts=40, per_page=2)
        site = make_site(server, page_budget=60, max_depth=3)
        order: list[str] = []
        run = crawl(
            site,
            strategy="xcrawl",
            seed=5,
            render_shells="off",
            progress=lambda run, o: order.append(o.url) if o.status else None,
        )
    paths = [u.removeprefix(server.origin) for u in order]
    assert topical <= set(paths), " ".join(paths)
    for post in topical:
        listed_on = f"/page/{int(post.split('/')[2][1:]) // 2 + 1}/"
        # Fetched within the few fetches already handed out when its list page came back.
        assert 0 < paths.index(post) - paths.index(listed_on) <= 4
    assert run.relevant >= 6 and run.harvest_rate > 0  # the harvest rate counts authorities
    assert run.learned["host_aliases"] == {}


@pytest.mark.django_db
def test_the_same_seed_gives_the_same_run(python_topic, settings):
    settings.CRAWLER_RUN_CONCURRENCY = 4
    orders = []
    with SiteServer() as server:
        blog(server, posts=30, per_page=3)
        for _ in range(2):
            CrawlRun.objects.all().delete()
            Page.objects.all().delete()
            site = make_site(server, page_budget=30, max_depth=3)
            order: list[str] = []
            crawl(
                site,
                strategy="xcrawl",
                seed=11,
                render_shells="off",
                progress=lambda run, o, order=order: order.append(o.url) if o.status else None,
            )
            orders.append([u.removeprefix(server.origin) for u in order])
            site.delete()
    assert orders[0] == orders[1] and len(orders[0]) >= 25


@pytest.mark.django_db
def test_a_sitemap_on_the_production_host_is_crawled_on_the_served_origin():
    with SiteServer() as server:
        production = "https://www.example.org"
        server.html(
            "/",
            article("Home", "Welcome.", [], f"<link rel='canonical' href='{production}/'>"),
        )
        server.route(
            "/sitemap.xml",
            Response(
                '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                f"<url><loc>{production}/posts/only-in-the-sitemap/</loc></url></urlset>",
                headers={"Content-Type": "application/xml"},
            ),
        )
        server.html("/posts/only-in-the-sitemap/", article("Hidden", "Found by the sitemap."))
        site = make_site(server, page_budget=10)
        run = crawl(site, strategy="bfs", render_shells="off")
        requested = server.paths()
    assert "/posts/only-in-the-sitemap/" in requested
    assert run.learned["host_aliases"] == {production: server.origin}


@pytest.mark.django_db
def test_a_run_page_shows_what_the_fetches_were_spent_on_and_the_learnt_terms(
    staff_client, python_topic
):
    with SiteServer() as server:
        blog(server, posts=40, per_page=2)
        site = make_site(server, page_budget=80, max_depth=3)
        run = crawl(site, strategy="xcrawl", seed=1, render_shells="off")
    CrawlRun.objects.filter(id=run.id).update(
        learned={**run.learned, "terms": {"packag": 0.2, "<b>x</b>": 0.1}}
    )
    html = staff_client.get(reverse("admin:crawler_crawlrun_change", args=[run.pk])).content
    document = lxml.html.document_fromstring(html.decode())
    spent = document.xpath("string(//div[contains(@class, 'field-fetches_spent')])")
    assert f"hubs {run.hub_fetches} · posts {run.post_fetches}" in " ".join(spent.split())
    assert f"traps {run.trap_fetches}" in spent and run.trap_fetches > 0
    terms = document.xpath("string(//div[contains(@class, 'field-learned_terms')])")
    assert "packag (0.2)" in terms and "<b>x</b> (0.1)" in terms  # scraped words, escaped
    shapes = document.xpath("string(//div[contains(@class, 'field-judged_shapes')])")
    assert "/events/?day=*" in shapes
