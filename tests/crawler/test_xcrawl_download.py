"""xCrawl as the papers state it, on real local servers: DownloadAllAuthorities downloads a
topical hub's list and stops on a list that is not topical, the walk variant, the
noNewHubsFound stop, node weights in the choice, and the admin's DownloadAll figures."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.urls import reverse

from analyzer.text import stems
from crawler.models import CrawlRun, Site
from crawler.run.loop import crawl
from crawler.strategies.xcrawl.handout import HandingOutDownloads
from crawler.strategies.xcrawl.harvest import Download, HarvestingHubs
from crawler.strategies.xcrawl.priority import Candidate, Priorities
from crawler.strategies.xcrawl.weighing import LIST_PAGES_AHEAD
from crawler.topic import Topic, register_topic_provider
from tests.crawler.servers import Response, SiteServer
from tests.crawler.sites import make_site

TOPIC = Topic(terms={stem: 1.0 for stem in stems(["camera", "lens"])}, language="en")
CAMERA_TEXT = "The camera has a new lens, a camera sensor and a lens hood for the camera."
GARDEN_TEXT = "The garden needs water, roses need pruning and the lawn needs mowing."
LIST_PAGES = 12  # pages of the site's post list, none topical
CATEGORY_ITEMS = 20  # items of the topical category, only two titled with the topic


@pytest.fixture
def topic():
    register_topic_provider(lambda site: TOPIC)
    yield TOPIC
    register_topic_provider(None)


def page(title: str, main: str, nav: str = "") -> str:
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title></head><body>"
        f"<header><nav><ul><li><a href='/'>Home</a></li>{nav}</ul></nav></header>"
        f"<main>{main}</main><footer><p>A small blog</p></footer></body></html>"
    )


def items(links: list[tuple[str, str]], *, tags: bool = False, more: str = "") -> str:
    """Return a list of posts; tags: each item names its tag pages; more: the address of the
    list's next page, linked as the list's last item."""
    tagged = "".join(f"<a href='/tag/{t}/'>{t}</a> " for t in ("notes", "travel")) if tags else ""
    return (
        "<ul class='posts'>"
        + "".join(
            f"<li><article><h2><a href='{href}'>{label}</a></h2><p>An excerpt of the post: a few sentences that tell what it is about, written by the author, with a date and a byline.</p><p>{tagged}</p></article></li>"
            for href, label in links
        )
        + (f"<li><a href='{more}'>More posts</a></li>" if more else "")
        + "</ul>"
    )


def post(title: str, text: str) -> str:
    paragraphs = "".join(f"<p>{text} Sentence {i} makes it prose.</p>" for i in range(6))
    return page(title, f"<article><h1>{title}</h1>{paragraphs}</article>")


def serve_blog(
    server: SiteServer,
    *,
    popular: bool = False,
    archive: bool = False,
    titled: int = 2,
    apart: bool = False,
    tagged: bool = False,
) -> list[str]:
    """Serve a blog: a post list of LIST_PAGES gardening pages and a camera category whose
    items mostly have titles without the topic's words; return the category's item paths.

    popular: a page of popular posts, two camera posts and ten others, is linked from the menu.
    archive: an archive page listing every post, linked from the menu.
    titled: the category's items whose titles name the topic.
    apart: the category's second page lays its items out in another element than the first.
    tagged: the category's items name their tag pages (lists of garden posts), and its first
    page links its second as the list's last item.
    """
    nav = "<li><a href='/category/cameras/'>Cameras</a></li>"
    if archive:
        nav += "<li><a href='/archives/'>Archives</a></li>"
    if popular:
        nav += "<li><a href='/popular/'>Popular camera and garden posts</a></li>"
        links = [("/c/0/", "Camera test"), ("/c/1/", "Camera lens")]
        links += [(f"/r/{i}/", f"Weekend {i}") for i in range(10)]
        server.html("/popular/", page("Popular", items(links), nav))
    for number in range(1, LIST_PAGES + 1):
        path = "/" if number == 1 else f"/page/{number}/"
        garden = [(f"/g/{number}-{i}/", f"Garden day {number}.{i}") for i in range(6)]
        pager = f"<nav class='pager'><a href='/page/{number + 1}/'>Older</a></nav>"
        server.html(path, page("Blog", items(garden) + pager, nav))
        for href, label in garden:
            server.html(href, post(label, GARDEN_TEXT))
    for i in range(10):
        server.html(f"/r/{i}/", post(f"Weekend {i}", GARDEN_TEXT))
    category = [f"/c/{i}/" for i in range(CATEGORY_ITEMS)]
    titles = ["Camera test", "Camera lens"][:titled]
    titles += [f"Field notes {i}" for i in range(len(titles), 40)]
    for number, chunk in ((1, category[:10]), (2, category[10:])):
        path = "/category/cameras/" if number == 1 else "/category/cameras/page/2/"
        pager = "<nav class='pager'><a href='/category/cameras/page/2/'>2</a></nav>"
        links = [(href, titles[int(href.split("/")[2])]) for href in chunk]
        more = "/category/cameras/page/2/" if tagged and number == 1 else ""
        listed = items(links, tags=tagged, more=more)
        if apart and number == 2:
            listed = f"<div class='grid'><section>{listed}</section></div>"
        server.html(path, page("Cameras", listed + pager, nav))
    if archive:
        everything = [
            (f"/g/{n}-{i}/", f"Garden day {n}.{i}") for n in range(1, 9) for i in range(6)
        ]
        everything[::5] = [(href, titles[int(href.split("/")[2])]) for href in category][:10]
        server.html("/archives/", page("Archives", items(everything), nav))
    for href in category:
        server.html(href, post(titles[int(href.split("/")[2])], CAMERA_TEXT))
    if tagged:
        for tag in ("notes", "travel"):
            garden = [(f"/g/{n}-0/", f"Garden day {n}.0") for n in range(1, LIST_PAGES + 1)]
            server.html(f"/tag/{tag}/", page(tag, items(garden), nav))
    return category


def run_crawl(server: SiteServer, budget: int, strategy: str = "xcrawl", seed: int = 1):
    site = make_site(server, page_budget=budget, strategy=Site.Strategy.XCRAWL)
    fetched: list[str] = []

    def progress(run, observation) -> None:
        if observation.status is not None:
            fetched.append(observation.url.removeprefix(server.origin))

    run = crawl(site, strategy=strategy, seed=seed, render_shells="off", progress=progress)
    return run, fetched


def downloads_by_hub(run, server: SiteServer) -> dict[str, dict]:
    """Return the run's DownloadAll figures by hub path."""
    return {row["hub"].removeprefix(server.origin): row for row in run.learned["downloads"]}


def fetched_before(fetched: list[str], paths: list[str], prefix: str) -> list[str]:
    """Return the fetched paths starting with `prefix` that came before the last of `paths`."""
    last = max(fetched.index(path) for path in paths)
    return [p for p in fetched[:last] if p.startswith(prefix)]


@pytest.mark.slow
@pytest.mark.django_db
def test_download_all_fetches_a_topical_hubs_whole_list_ahead_of_unread_list_pages(topic):
    with SiteServer() as server:
        category = serve_blog(server)
        run, fetched = run_crawl(server, budget=40)
    # The category's items whose titles lack the topic's words come before the post list's
    # unread pages, and so does the category's second page.
    assert set(category) <= set(fetched)
    read_before = fetched_before(fetched, category, "/page/")
    assert len(read_before) <= 2, fetched
    run.refresh_from_db()
    assert run.download_fetches >= CATEGORY_ITEMS - 4
    assert run.download_relevant >= run.download_fetches - 1
    hubs = downloads_by_hub(run, server)
    assert hubs["/category/cameras/"]["stopped"] is False


@pytest.mark.slow
@pytest.mark.django_db
def test_download_all_stops_after_its_probe_on_a_list_that_is_not_topical(topic, settings):
    settings.XCRAWL_DOWNLOAD_PROBE = 3
    with SiteServer() as server:
        serve_blog(server, popular=True)
        run, fetched = run_crawl(server, budget=40)
    hubs = downloads_by_hub(run, server)
    popular = hubs["/popular/"]  # a hub of everything
    assert popular["stopped"] is True
    assert popular["fetched"] <= 3
    # The topical category was downloaded meanwhile.
    assert hubs["/category/cameras/"]["stopped"] is False


@pytest.mark.slow
@pytest.mark.django_db
def test_a_list_of_everything_holding_the_same_items_takes_none_from_the_topical_list(topic):
    with SiteServer() as server:
        category = serve_blog(server, archive=True)
        run, fetched = run_crawl(server, budget=50)
    # The archive lists every post, the category's first page among them: few of its titles
    # name the topic, so its download waits behind better pages or stops on its probe, and
    # leaves the category's whole list to the category's download.
    assert set(category) <= set(fetched)
    hubs = downloads_by_hub(run, server)
    assert any(hub.startswith("/category/cameras/") for hub in hubs)
    archive = hubs["/archives/"]
    assert archive["stopped"] or archive["fetched"] == 0, hubs
    assert hubs["/category/cameras/"]["fetched"] >= CATEGORY_ITEMS - 4, hubs


@pytest.mark.slow
@pytest.mark.django_db
def test_a_later_page_laid_out_apart_still_gives_its_items_to_the_download(topic):
    with SiteServer() as server:
        category = serve_blog(server, apart=True)
        run, fetched = run_crawl(server, budget=40)
    assert set(category[10:]) <= set(fetched)


@pytest.mark.slow
@pytest.mark.django_db
def test_a_lists_items_are_its_posts_not_its_own_pages_nor_the_lists_they_name(topic):
    with SiteServer() as server:
        category = serve_blog(server, tagged=True)
        run, fetched = run_crawl(server, budget=40)
    # The tag pages each item names are no items of the category, and its second page, linked
    # among the items, is read as a page of the list: every item comes, none of the tags first.
    assert set(category) <= set(fetched)
    assert not fetched_before(fetched, category, "/tag/"), " ".join(fetched)
    hubs = downloads_by_hub(run, server)
    assert hubs["/category/cameras/"]["fetched"] >= CATEGORY_ITEMS - 4
    assert hubs["/category/cameras/"]["accepted"] == hubs["/category/cameras/"]["fetched"]


@pytest.mark.slow
@pytest.mark.django_db
def test_a_list_the_topic_names_is_downloaded_ahead_of_a_list_that_holds_some_authorities(
    topic, settings
):
    settings.XCRAWL_DOWNLOAD_PROBE = 3
    with SiteServer() as server:
        category = serve_blog(server, popular=True)
        _, fetched = run_crawl(server, budget=60)
    # "Popular camera and garden posts" holds two camera posts among ten others; the cameras
    # category is named by the topic: its items all come before the popular list's others.
    assert set(category) <= set(fetched)
    assert not fetched_before(fetched, category, "/r/"), " ".join(fetched)


def serve_tag_and_category(server: SiteServer) -> tuple[list[str], list[str]]:
    """Serve a blog whose menu links a "camera" tag of 30 camera posts, each filed under a
    "camera" category that only the posts link; the category lists ten other camera posts,
    titled without the topic, and a "web-camera" tag linked from the home page lists ten
    more. Return the tag's and the category's item paths."""
    nav = "<li><a href='/tag/camera/'>Camera</a></li>"
    filed = "<p>Filed under <a href='/category/camera/'>Camera</a></p></article>"
    tagged = [f"/t/{i}/" for i in range(30)]
    filed_only = [f"/t/{i}/" for i in range(30, 40)]
    webcams = [f"/w/{i}/" for i in range(10)]
    home = items([(f"/g/{i}/", f"Garden day {i}") for i in range(8)])
    home += "<p><a href='/tag/web-camera/'>web-camera</a></p>"
    server.html("/", page("Blog", home, nav))
    for i in range(8):
        server.html(f"/g/{i}/", post(f"Garden day {i}", GARDEN_TEXT))
    server.html("/tag/camera/", page("camera", items([(p, "Camera report") for p in tagged]), nav))
    server.html("/category/camera/", page("Camera", items([(p, "Notes") for p in filed_only])))
    server.html("/tag/web-camera/", page("web-camera", items([(p, "Webcam") for p in webcams])))
    for path in tagged + filed_only + webcams:
        server.html(path, post("Report", CAMERA_TEXT).replace("</article>", filed))
    return tagged, filed_only


@pytest.mark.slow
@pytest.mark.django_db
def test_a_list_the_topic_names_is_fetched_and_downloaded_while_another_is_downloading(topic):
    with SiteServer() as server:
        tagged, filed_only = serve_tag_and_category(server)
        _, fetched = run_crawl(server, budget=60, strategy="xcrawl-walk")
    # The category is called by the topic's word alone but linked only from the tag's posts
    # and its items are all unknown: it is fetched as soon as a post names it, while the
    # tag is downloading, and downloaded whole; the "web-camera" tag, whose name says more,
    # waits for both (one of its items may come in breadth-first order).
    assert set(filed_only) <= set(fetched), " ".join(fetched)
    assert fetched.index("/category/camera/") < max(map(fetched.index, tagged)), " ".join(fetched)
    assert len(fetched_before(fetched, filed_only, "/w/")) <= 1, " ".join(fetched)


def serve_long_category(server: SiteServer, pages: int = 6) -> list[list[str]]:
    """Serve a blog whose menu links a "camera" category of `pages` pages of four items
    titled without the topic, each page's pager linking only the next page and the last.
    Return the category's list page paths, then each page's item paths."""
    nav = "<li><a href='/category/camera/'>Camera</a></li>"
    home = items([(f"/g/{i}/", f"Garden day {i}") for i in range(8)])
    server.html("/", page("Blog", home, nav))
    for i in range(8):
        server.html(f"/g/{i}/", post(f"Garden day {i}", GARDEN_TEXT))
    paths, chunks = [], []
    for number in range(1, pages + 1):
        path = "/category/camera/" if number == 1 else f"/category/camera/page/{number}/"
        chunk = [f"/c/{number}-{i}/" for i in range(4)]
        pager = "".join(
            f"<a href='/category/camera/page/{n}/'>{label}</a> "
            for n, label in ((number + 1, "Next"), (pages, "Last"))
            if number < n <= pages
        )
        listed = items([(href, f"Field notes {href}") for href in chunk])
        server.html(path, page("Camera", listed + f"<nav class='pager'>{pager}</nav>", nav))
        for href in chunk:
            server.html(href, post("Field notes", CAMERA_TEXT))
        paths.append(path)
        chunks.append(chunk)
    return [paths, *chunks]


@pytest.mark.slow
@pytest.mark.django_db
def test_a_list_the_topic_names_has_every_numbered_page_queued_after_its_first_items(topic):
    with SiteServer() as server:
        paths, *chunks = serve_long_category(server)
        _, fetched = run_crawl(server, budget=40)
    # The first page's pager links the second page and the sixth: the pages between are
    # queued with them, ahead of the second page's items, not one page per round of fetches.
    assert set(paths) | {p for chunk in chunks for p in chunk} <= set(fetched)
    first_of_second = min(map(fetched.index, chunks[1]))
    assert max(map(fetched.index, paths)) < first_of_second, " ".join(fetched)


@pytest.mark.slow
@pytest.mark.django_db
def test_a_long_list_the_topic_names_is_read_a_window_of_pages_ahead_of_its_items(topic):
    with SiteServer() as server:
        paths, *chunks = serve_long_category(server, pages=30)
        _, fetched = run_crawl(server, budget=60)
    # Thirty pages: the first one's pager numbers them all, but only the next
    # LIST_PAGES_AHEAD (and the last, which it links) go ahead of the second page's items.
    first_of_second = min(map(fetched.index, chunks[1]))
    read_before = [p for p in fetched[:first_of_second] if p in paths]
    assert len(read_before) <= 1 + LIST_PAGES_AHEAD + 1 < len(paths), " ".join(fetched)
    assert set(chunks[1]) <= set(fetched)


@pytest.mark.slow
@pytest.mark.django_db
def test_the_walk_variant_downloads_hubs_and_repeats_itself_with_the_same_seed(topic):
    with SiteServer() as server:
        category = serve_blog(server)
        first, fetched = run_crawl(server, budget=40, strategy="xcrawl-walk", seed=4)
        CrawlRun.objects.all().delete()
        Site.objects.all().delete()
        _, again = run_crawl(server, budget=40, strategy="xcrawl-walk", seed=4)
    assert first.strategy == "xcrawl-walk"
    assert first.learned["restarts"] > 0
    assert len(set(category) & set(fetched)) >= CATEGORY_ITEMS - 2
    assert fetched == again


def serve_chain(server: SiteServer) -> list[str]:
    """Serve a home page linking one camera post, which links a chain of garden posts, each to
    the next; the sitemap lists seven more camera posts. Return the camera posts' paths."""
    cameras = [f"/camera-lens-{i}/" for i in range(8)]
    server.html("/", page("Blog", items([(cameras[0], "Camera lens 0")])))
    for number, path in enumerate(cameras):
        body = post(f"Camera lens {number}", CAMERA_TEXT)
        if number == 0:
            body = body.replace("</article>", "<a href='/chain/1/'>Garden day 1</a></article>")
        server.html(path, body)
    for number in range(1, 25):
        more = f"<a href='/chain/{number + 1}/'>Garden day {number + 1}</a></article>"
        server.html(
            f"/chain/{number}/", post(f"Garden {number}", GARDEN_TEXT).replace("</article>", more)
        )
    listed = "".join(f"<url><loc>{server.url(path)}</loc></url>" for path in cameras[1:])
    sitemap = f"<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>{listed}</urlset>"
    server.route("/sitemap.xml", Response(sitemap, headers={"Content-Type": "application/xml"}))
    return cameras


@pytest.mark.slow
@pytest.mark.django_db
def test_the_walk_restarts_where_its_page_links_only_to_pages_worth_less_than_the_best_known(
    topic, settings
):
    settings.XCRAWL_RESTART_PROBABILITY = 0.05
    settings.CRAWLER_RUN_CONCURRENCY = 1  # one step at a time: the walk stands on each page
    with SiteServer() as server:
        cameras = serve_chain(server)
        _, fetched = run_crawl(server, budget=30, strategy="xcrawl-walk", seed=2)
        CrawlRun.objects.all().delete()
        Site.objects.all().delete()
        _, paper = run_crawl(server, budget=30, strategy="xcrawl-walk-paper", seed=2)

    def wandered(sequence: list[str]) -> list[str]:
        return [p for p in fetched_before(sequence, cameras, "/chain/") if p != "/chain/1/"]

    assert set(cameras) <= set(fetched) and set(cameras) <= set(paper)
    # The walk leaves the garden chain for the camera posts the home page announced; the
    # paper's walk follows the chain, its page's only link, before it comes back.
    assert wandered(fetched) == [], " ".join(fetched)
    assert len(wandered(paper)) >= 2, " ".join(paper)


@pytest.mark.slow
@pytest.mark.django_db
def test_restarts_without_a_new_hub_stop_the_run_with_their_own_reason(topic, settings):
    settings.XCRAWL_MAX_ITERATIONS = 3
    settings.XCRAWL_RESTART_PROBABILITY = 0.9
    with SiteServer() as server:
        for number in range(1, 30):
            server.html(
                f"/g/{number}/",
                post(f"Garden {number}", GARDEN_TEXT).replace(
                    "</article>", f"<a href='/g/{number + 1}/'>Next</a></article>"
                ),
            )
        server.html("/", page("Blog", items([("/g/1/", "Garden 1")])))
        run, fetched = run_crawl(server, budget=60)
    assert run.stop_reason == "no-new-hubs"
    assert len(fetched) < 30


def test_node_weights_carry_real_weight_in_the_choice_unless_evidence_only():
    def best(share: float) -> int:
        priorities = Priorities(share)
        priorities.candidates[0] = Candidate(depth=1, evidence=0.6, text_evidence=0.6)
        priorities.candidates[1] = Candidate(depth=1, evidence=0.45, text_evidence=0.45)
        weights = [0.0, 1.0]  # node 1: far heavier in the link analysis
        return priorities.best(1, weights, lambda node: True)[0]

    assert best(0.3) == 1
    assert best(0.0) == 0


def test_a_node_weight_never_lifts_a_page_its_links_say_nothing_for():
    priorities = Priorities(0.3)
    priorities.candidates[0] = Candidate(depth=1, evidence=0.1, text_evidence=0.1)
    priorities.candidates[1] = Candidate(depth=1)  # no evidence: a list every page links to
    weights = [0.0, 1.0]  # node 1: the heaviest of the graph
    assert priorities.best(1, weights, lambda node: True)[0] == 0


@pytest.mark.django_db
def test_the_admin_shows_what_download_all_spent_per_run_and_its_harvest(staff_client):
    site = Site.objects.create(name="Blog", root_url="https://blog.example.com/")
    run = CrawlRun.objects.create(
        site=site,
        strategy="xcrawl",
        fetched=40,
        download_fetches=12,
        download_relevant=9,
        learned={
            "downloads": [
                {"hub": "https://blog.example.com/c/<b>/", "fetched": 12, "accepted": 9},
                {
                    "hub": "https://blog.example.com/",
                    "fetched": 5,
                    "accepted": 0,
                    "stopped": True,
                    "opening": True,
                },
            ]
        },
    )
    page = staff_client.get(reverse("admin:crawler_crawlrun_change", args=[run.pk]))
    listing = staff_client.get(reverse("admin:crawler_crawlrun_changelist"))
    assert "12 (75%)" in page.content.decode()
    assert "https://blog.example.com/c/&lt;b&gt;/" in page.content.decode()  # escaped
    # The opening of the seed's list is shown apart from DownloadAll's hubs.
    assert "opening, stopped after the probe" in page.content.decode()
    assert "12 (75%)" in listing.content.decode()


def test_a_page_handed_out_keeps_the_evidence_it_was_chosen_on_though_dropped_in_flight():
    priorities = Priorities(0.15)
    priorities.candidates[7] = Candidate(depth=1, evidence=1.0, text_evidence=1.0)
    priorities.handed(7)
    priorities.candidates.pop(7)  # no longer fetchable while in flight: forgotten as a candidate
    priorities.fetched(7, "/posts/*/", ("http://x/posts/a/", 1), hub=False, found=0.0)
    # It was fetched on its words, so it says nothing of the lists that hold it.
    assert priorities.evidence_at_fetch[7] == 1.0


def test_a_download_judged_by_a_probe_waits_for_its_verdicts_once_a_probe_is_in_flight():
    graph = SimpleNamespace(is_visited=lambda node: node == 3)
    owner = SimpleNamespace(handed=100, graph=graph, config=SimpleNamespace(download_probe=4))
    listed = Download(hub=0, subtrees=[], in_flight={1: 98, 2: 99, 4: 99, 5: 99})
    named = Download(hub=0, subtrees=[], named=True, in_flight=dict(listed.in_flight))
    assert HandingOutDownloads._ahead(owner, listed) is True
    assert HandingOutDownloads._ahead(owner, named) is False  # downloaded whole, never waits
    # Observed (3), or handed out so long ago the loop must have dropped it (1): not in flight.
    stale = Download(hub=0, subtrees=[], in_flight={1: 20, 2: 99, 3: 99, 4: 99})
    assert HandingOutDownloads._ahead(owner, stale) is False
    assert set(stale.in_flight) == {2, 4}


def test_a_downloads_expected_share_starts_from_the_share_of_its_items_titled_with_the_topic():
    priorities = Priorities(0.15)
    priorities.candidates[1] = Candidate(depth=1, text_evidence=1.0)  # titled, unfetched
    priorities.candidates[2] = Candidate(depth=1, text_evidence=0.1)
    priorities.evidence_at_fetch[3] = 0.9  # titled, fetched on its title
    owner = SimpleNamespace(priorities=priorities)
    items = [1, 2, 3, *range(4, 20)]  # the rest unknown to the run's valuation
    titled = HarvestingHubs._titled_share(owner, items)
    assert titled == pytest.approx(2 / 19)
    # A list of everything, which names the topic in few titles, is expected to hold few
    # topical items among the others before any is judged; a list of titled items, many.
    archive = Download(hub=0, subtrees=[], titled=titled)
    assert archive.expected() == pytest.approx(2 / 19)
    category = Download(hub=0, subtrees=[], titled=0.8)
    assert category.expected() == pytest.approx(0.8)
    # Verdicts move it as they come: two of two accepted.
    archive.fetched = archive.accepted = 2
    assert archive.expected() == pytest.approx((2 + 2 * 2 / 19) / 4)


def test_a_later_page_apart_gives_its_items_though_the_first_pages_were_fetched_before():
    urls = ["http://x/posts/a/", "http://x/posts/b/", "http://x/tags/c/", "http://x/posts/d/"]
    owner = SimpleNamespace(graph=SimpleNamespace(urls=urls))
    # The list's first page held only posts the run had fetched: nothing was queued from it,
    # and its items' shape is what tells a later page's items.
    download = Download(hub=9, subtrees=[], shapes=frozenset({"/posts/*/"}))
    links = [(0, "main", "hub"), (1, "main", "hub"), (2, "main", "hub"), (3, "aside", "navigation")]
    assert HarvestingHubs._shaped_as_items(owner, download, links) == [0, 1]


def serve_archive_of_everything(server: SiteServer) -> list[str]:
    """Serve a home page and an archive listing 120 garden posts and, every fifth item, 30
    posts titled with the topic. Return the camera posts' paths."""
    cameras = [f"/c/{i}/" for i in range(30)]
    listed = [(f"/g/{i}/", f"Garden day {i}") for i in range(120)]
    for number, path in enumerate(cameras):
        listed.insert(number * 5, (path, f"Camera lens review {number}"))
    nav = "<li><a href='/archives/'>Archives</a></li>"
    server.html("/", page("Blog", "<p>Welcome to a small blog about many things.</p>", nav))
    server.html("/archives/", page("Archives", items(listed), nav))
    for path, title in listed:
        server.html(path, post(title, CAMERA_TEXT if path in cameras else GARDEN_TEXT))
    return cameras


@pytest.mark.slow
@pytest.mark.django_db
def test_a_list_of_everything_is_downloaded_only_once_its_titled_items_are_fetched(topic):
    with SiteServer() as server:
        cameras = serve_archive_of_everything(server)
        _, fetched = run_crawl(server, budget=50)
    # The archive holds the camera posts, so it is a hub; but each is worth more than a
    # random item of a list holding a fifth of them: they come first, and only the share of
    # the fetches taken in breadth-first order (the archive's first items) is garden posts.
    assert set(cameras) <= set(fetched)
    garden = fetched_before(fetched, cameras, "/g/")
    assert garden == [f"/g/{i}/" for i in range(len(garden))], " ".join(fetched)
    assert len(garden) <= 5, " ".join(fetched)
