"""A site's preview runs the crawler's own fetch and analysis against a real local site."""

from __future__ import annotations

import pytest

from crawler import usersites
from tests.crawler.servers import SiteServer
from tests.crawler.sites import article
from tests.factories import make_site
from tests.usersites.sites import TITLES, serve_news

pytestmark = pytest.mark.django_db


@pytest.mark.slow  # the fetches of one host wait its crawl delay (1 s)
def test_a_home_page_preview_shows_kind_articles_feeds_search_robots_and_a_plan(alice, news):
    preview = usersites.preview_site(alice, news.url("/"))

    assert preview.error == ""
    assert preview.kind == "hub" and preview.title == "Harbour Gazette"
    assert preview.titles == TITLES[:2]  # two articles fetched (the preview's sample)
    assert preview.feeds == [news.url("/feed.xml")]
    assert preview.sitemaps == [news.url("/sitemap.xml")]
    assert preview.search_url == news.url("/search?q={query}")
    assert not preview.needs_browser
    assert preview.robots == "robots.txt allows this page."
    plan = preview.plan
    assert plan.root_url == news.url("/") and plan.seed_urls == [news.url("/feed.xml")]
    assert plan.revisit_hours == 2 and plan.crawl_delay >= 1.0
    # The robots.txt, the page and two articles, each asked once.
    assert sorted(news.paths()) == ["/", "/news/0", "/news/1", "/robots.txt"]


@pytest.mark.slow  # the fetches of one host wait its crawl delay (1 s)
def test_a_feed_preview_shows_the_articles_of_its_items(alice, news):
    preview = usersites.preview_site(alice, news.url("/feed.xml"))

    assert preview.kind == "feed" and preview.titles == TITLES[:2]
    assert preview.plan.revisit_hours == 1 and preview.plan.max_depth == 1


def test_a_person_never_reaches_a_private_network(alice, settings):
    settings.CRAWLER_USER_SITE_NETWORKS = ""  # what production has
    with SiteServer() as server:
        serve_news(server)
        preview = usersites.preview_site(alice, server.url("/"))
        assert "private or local network" in preview.error
        assert server.connections == 0
    for url in ("http://169.254.169.254/latest/", "http://0x7f.1/", "http://[::1]/"):
        assert "private or local network" in usersites.preview_site(alice, url).error


def test_robots_txt_that_forbids_the_page_stops_the_preview(alice, news):
    news.robots("User-agent: *\nDisallow: /\n")

    preview = usersites.preview_site(alice, news.url("/"))

    assert "robots.txt asks crawlers to stay away" in preview.error
    assert news.paths() == ["/robots.txt"]


def test_a_script_shell_needs_a_browser(alice, news):
    news.html(
        "/app",
        "<!doctype html><html><head><title>App</title><script src='/app.js'></script></head>"
        "<body><div id='root'></div><script>render()</script></body></html>",
    )

    preview = usersites.preview_site(alice, news.url("/app"))

    assert preview.needs_browser and preview.plan.needs_browser


def test_an_origin_already_watched_is_not_fetched_again(alice, news):
    make_site("Gazette (admins)", news.url("/"))

    preview = usersites.preview_site(alice, news.url("/section/science"))

    assert preview.existing_name == "Gazette (admins)" and preview.error == ""
    assert news.paths() == []


def test_an_address_without_a_scheme_is_taken_as_https(alice):
    assert usersites.normalized(" example.com/news ") == "https://example.com/news"
    assert "not a web address" in usersites.preview_site(alice, "ftp://example.com/").error


@pytest.mark.slow  # the fetches of one host wait its crawl delay (1 s)
def test_a_bare_list_of_posts_on_a_home_page_is_followed_to_its_articles(alice, settings):
    settings.CRAWLER_USER_SITE_NETWORKS = "127.0.0.1/32"
    settings.CRAWLER_USER_SITE_PREVIEW_PAGES = 3
    posts = {"/2026/harbour": TITLES[0], "/2026/solar": TITLES[1], "/2026/tram": TITLES[2]}
    with SiteServer() as blog:
        links = "".join(f"<li><a href='{path}'>{title}</a></li>" for path, title in posts.items())
        blog.html(
            "/",
            "<!doctype html><html lang='en'><head><title>Ann's notes</title></head><body>"
            f"<h1>Ann's notes</h1><ul>{links}</ul><nav><a href='/about'>About</a></nav></body></html>",
        )
        for path, title in posts.items():
            blog.html(path, article(title, f"{title}: the town talks of nothing else. " * 20, []))
        blog.robots("User-agent: *\nAllow: /\n")

        preview = usersites.preview_site(alice, blog.url("/"))

        assert preview.error == ""
        assert preview.titles == TITLES  # the three posts the home page links, fetched
        assert sorted(blog.paths()) == sorted(["/", "/robots.txt", *posts])
