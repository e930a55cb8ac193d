"""xCrawl's opening on real local servers: a seed's own list is read first, newest first, so
a recent topic whose titles never name it is found as soon as breadth-first finds it, and a
topic far from the seeds pays only a probe for it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from crawler.models import Site
from crawler.strategies.xcrawl.opening import _item_shape
from crawler.topic import register_topic_provider
from tests.crawler.servers import SiteServer
from tests.crawler.test_xcrawl_download import (
    CAMERA_TEXT,
    GARDEN_TEXT,
    TOPIC,
    items,
    post,
    run_crawl,
)

PER_PAGE = 5
# Posts of the sidebar, shaped as the list's, whose titles name the topic and text does not.
SHY = [(f"/p/shy-{i}/", f"Camera shy {i}: a garden story") for i in range(12)]


@pytest.fixture
def topic():
    register_topic_provider(lambda site: TOPIC)
    yield TOPIC
    register_topic_provider(None)


def serve_recent_topic(server: SiteServer, *, recent: bool = True) -> list[str]:
    """Serve a blog whose post list's first two pages hold camera posts titled "Field notes"
    (recent: else garden posts), older pages garden posts, and whose sidebar lists posts
    titled with the topic's word about gardens; return the camera posts' paths."""
    sidebar = "<aside><h2>Popular</h2>" + items(SHY) + "</aside>"
    menu = "".join(f"<li><a href='/about/{i}/'>About {i}</a></li>" for i in range(3))
    nav = f"<header><nav><ul><li><a href='/'>Home</a></li>{menu}</ul></nav></header>"
    cameras = []
    for number in range(1, 7):
        path = "/" if number == 1 else f"/page/{number}/"
        listed = [(f"/p/{number}-{i}/", f"Field notes {number}.{i}") for i in range(PER_PAGE)]
        pager = f"<nav class='pager'><a href='/page/{number + 1}/'>Older posts</a></nav>"
        main = f"<main>{items(listed)}{pager}</main>"
        body = f"<body>{nav}<div class='columns'>{main}{sidebar}</div></body>"
        server.html(
            path, f"<!doctype html><html lang='en'><head><title>Blog</title></head>{body}</html>"
        )
        topical = recent and number <= 2
        for href, label in listed:
            server.html(href, post(label, CAMERA_TEXT if topical else GARDEN_TEXT))
            if topical:
                cameras.append(href)
    for href, label in SHY:
        server.html(href, post(label, GARDEN_TEXT))
    for i in range(3):
        server.html(f"/about/{i}/", post(f"About {i}", GARDEN_TEXT))
    return cameras


def found(fetched: list[str], targets: list[str], budget: int) -> int:
    return len(set(targets) & set(fetched[:budget]))


@pytest.mark.slow
@pytest.mark.django_db
def test_a_recent_topic_the_titles_never_name_is_found_as_soon_as_breadth_first_finds_it(
    topic,
):
    with SiteServer() as server:
        cameras = serve_recent_topic(server)
        _, first = run_crawl(server, budget=30, strategy="bfs")
        Site.objects.all().delete()
        _, mine = run_crawl(server, budget=30)
    # The newest items and the list's next page go out first, ahead of the sidebar's posts
    # whose titles name the topic; the next page's items once the first's validate.
    for budget in (6, 12, 18, 24, 30):
        assert found(mine, cameras, budget) >= found(first, cameras, budget), (budget, mine, first)
    newest = {"/page/2/", *cameras[:PER_PAGE]}
    assert set(mine[2 : 3 + PER_PAGE]) == newest, " ".join(mine)
    assert set(cameras) <= set(mine[:30]), " ".join(mine)


@pytest.mark.slow
@pytest.mark.django_db
def test_without_the_opening_the_titles_in_a_sidebar_come_first(topic, settings):
    settings.XCRAWL_OPENING_PAGES = 0
    with SiteServer() as server:
        cameras = serve_recent_topic(server)
        _, fetched = run_crawl(server, budget=30)
    # What the opening is for: the link evidence alone takes the sidebar's titled posts
    # before the untitled camera posts of the list's second page.
    assert not set(cameras) <= set(fetched[: 2 * PER_PAGE + 4]), fetched


@pytest.mark.slow
@pytest.mark.django_db
def test_a_topic_far_from_the_seeds_pays_only_a_probe_for_the_opening(topic):
    with SiteServer() as server:
        serve_recent_topic(server, recent=False)
        run, fetched = run_crawl(server, budget=30)
    # The home page's items are judged and the list stops: the second page is read (it went
    # out with them), its garden items are not read ahead of anything (they come once the
    # run knows nothing better, valued one by one).
    second = [f"/p/2-{i}/" for i in range(PER_PAGE)]
    assert "/page/2/" in fetched
    later = [p for p in fetched if p.startswith(("/page/", "/about/")) and p != "/page/2/"]
    assert later, " ".join(fetched)
    for path in set(second) & set(fetched):
        assert fetched.index(path) > max(map(fetched.index, later)), " ".join(fetched)
    opening = next(row for row in run.learned["downloads"] if row["hub"] == server.url("/"))
    assert opening["stopped"] is True
    assert opening["fetched"] <= PER_PAGE


def test_a_lists_items_are_the_links_titled_not_the_more_numerous_categories_they_name():
    def link(url: str, anchor: str) -> SimpleNamespace:
        return SimpleNamespace(url=f"http://blog.test{url}", anchor=anchor)

    links = [link("/page/2/", "2"), link("/page/9/", "9")]
    for i in range(4):
        links += [
            link(f"/posts/post-{i}/", ""),  # the item's picture
            link(f"/posts/post-{i}/", f"A long title of post number {i}"),
            link(f"/categories/c{i}/", "Tools"),
            link(f"/categories/d{i}/", "Development"),
            link(f"/tags/t{i}/", "Python"),
        ]
    assert _item_shape(links, "http://blog.test/") == "/posts/*/"
    # A page of one-word links (a tag cloud) has no items to read first.
    cloud = [link(f"/tags/t{i}/", "Python") for i in range(9)]
    assert _item_shape(cloud, "http://blog.test/") is None
