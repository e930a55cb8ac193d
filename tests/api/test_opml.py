"""Sites as OPML: the sites my clips come from go out; feed readers' exports are read."""

from __future__ import annotations

from pathlib import Path

import listparser
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from clipping import exchange
from crawler.models import Page, Site
from tests.factories import make_list, make_match, make_site

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).parent / "fixtures"


def read_fixture(name: str) -> list[exchange.FeedEntry]:
    return exchange.read_opml((FIXTURES / name).read_bytes())


def test_a_miniflux_export_gives_each_feed_once_with_its_folders():
    feeds = read_fixture("miniflux.opml")

    assert [(feed.url, feed.title) for feed in feeds] == [
        ("https://daily.example/feed.xml", "Daily Example"),
        ("https://nea.example.gr/rss", "Ελληνικά Νέα"),
        ("https://lab.example.org/atom.xml", "Lab Notes"),
    ]
    assert feeds[0].categories == ("All", "Science & Tech")


def test_a_thunderbird_export_gives_its_web_feeds_with_nested_folders():
    feeds = read_fixture("thunderbird.opml")

    assert [feed.url for feed in feeds] == [
        "https://lab.example.org/atom.xml",
        "http://weekly.example/rss.xml",
    ]  # the file:// feed is left out
    assert feeds[1].categories == ("Blogs & News Feeds/Politics",)


@pytest.mark.parametrize("content", [b"", b"<html><body>no</body></html>", b"\x00\x01"])
def test_a_file_that_is_no_opml_is_refused(content):
    with pytest.raises(exchange.ExchangeError):
        exchange.read_opml(content)


def test_uploading_an_export_shows_its_feeds_and_which_are_watched_and_adds_nothing_yet(
    client, alice
):
    make_site("Daily", "https://daily.example/")
    bobs = make_site("Bob's lab", "https://lab.example.org/")
    bobs.visibility = Site.Visibility.PRIVATE
    bobs.save()
    client.force_login(alice)

    upload = SimpleUploadedFile("miniflux.opml", (FIXTURES / "miniflux.opml").read_bytes())
    response = client.post(reverse("sites_import"), {"file": upload})

    body = response.content.decode()
    assert response.status_code == 200
    assert body.count('name="url"') == 3
    assert "watched: Daily" in body and "Ελληνικά Νέα" in body
    # Someone's private site is watched, but its name is not shown.
    assert "Bob&#x27;s lab" not in body and "Bob's lab" not in body
    assert Site.objects.count() == 2 and not Site.objects.followed_by(alice).exists()


def test_my_sites_export_names_the_sites_of_my_clips_with_their_feeds(client, alice, bob):
    daily = make_site("Daily", "https://daily.example/")
    Page.objects.create(site=daily, url="https://daily.example/feed.xml", role=Page.Role.FEED)
    weekly = make_site("Weekly", "https://weekly.example/")
    make_site("Nobody's", "https://nobody.example/")
    make_match(make_list(alice, "Energy", "subsidies"), site=daily, url="https://daily.example/a")
    make_match(make_list(alice, "Cars", "car"), site=weekly, url="https://weekly.example/b")
    make_match(
        make_list(bob, "Bob's", "subsidies"), site=make_site("Bob's", "https://bob.example/")
    )
    client.force_login(alice)

    response = client.get(reverse("sites_export"))

    assert (
        response.status_code == 200 and 'filename="sites.opml"' in response["Content-Disposition"]
    )
    parsed = listparser.parse(response.content)
    assert parsed.version == "opml2" and not parsed.bozo
    assert [(feed.url, feed.title) for feed in parsed.feeds] == [
        ("https://daily.example/feed.xml", "Daily"),
        ("https://weekly.example/", "Weekly"),  # no feed known: the root URL
    ]
    # And the export reads back as an import.
    assert [feed.url for feed in exchange.read_opml(response.content)] == [
        "https://daily.example/feed.xml",
        "https://weekly.example/",
    ]


def opml_of(*urls: str) -> SimpleUploadedFile:
    outlines = "".join(f'<outline type="rss" text="{u}" xmlUrl="{u}"/>' for u in urls)
    body = f'<?xml version="1.0"?><opml version="2.0"><head/><body>{outlines}</body></opml>'
    return SimpleUploadedFile("feeds.opml", body.encode())


def test_following_a_watched_feed_subscribes_me_to_that_site_without_a_fetch(client, alice):
    daily = make_site("Daily", "https://daily.example/")
    client.force_login(alice)
    page = client.post(reverse("sites_import"), {"file": opml_of("https://daily.example/feed.xml")})
    assert "watched: Daily" in page.content.decode()

    response = client.post(
        reverse("sites_import_follow"), {"url": ["https://daily.example/feed.xml"]}
    )

    assert "Daily is already watched; you now follow it." in response.content.decode()
    assert list(Site.objects.followed_by(alice)) == [daily]
    again = client.post(
        reverse("sites_import"), {"file": opml_of("https://daily.example/feed.xml")}
    )
    assert "you follow Daily" in again.content.decode()


def test_a_new_feed_refused_by_the_sites_rules_says_why_and_adds_nothing(client, alice, settings):
    settings.CRAWLER_USER_SITES = "admins-only"
    client.force_login(alice)

    response = client.post(reverse("sites_import_follow"), {"url": ["https://new.example/rss"]})

    assert "Only admins add new sites here" in response.content.decode()
    assert not Site.objects.exists()


@pytest.mark.slow
def test_a_new_feed_on_a_real_server_becomes_my_site(client, alice, settings):
    from tests.crawler.servers import SiteServer
    from tests.crawler.sites import news_site

    settings.CRAWLER_USER_SITES = "open"
    settings.CRAWLER_USER_SITE_NETWORKS = "127.0.0.1/32"
    client.force_login(alice)
    with SiteServer() as server:
        news_site(server)
        page = client.post(reverse("sites_import"), {"file": opml_of(server.url("/"))})
        assert "new" in page.content.decode()

        response = client.post(reverse("sites_import_follow"), {"url": [server.url("/")]})

    assert "is added" in response.content.decode()
    site = Site.objects.get()
    assert site.added_by == alice and list(site.subscribers.all()) == [alice]
    assert site.visibility == Site.Visibility.PRIVATE


def test_a_feed_known_as_a_seed_or_by_its_content_type_is_exported_not_the_root(alice):
    """A person's site is seeded with the feeds its preview found (stored as seed pages); an
    admin's site may have its feed linked as a plain page served as Atom."""
    mine = make_site("Mine", "https://mine.example/")
    mine.added_by = alice
    mine.seed_urls = "https://mine.example/index.xml"
    mine.save()
    Page.objects.create(site=mine, url="https://mine.example/", role=Page.Role.SEED)
    Page.objects.create(site=mine, url="https://mine.example/index.xml", role=Page.Role.SEED)
    shared = make_site("Shared", "https://shared.example/")
    Page.objects.create(site=shared, url="https://shared.example/", role=Page.Role.SEED)
    Page.objects.create(
        site=shared, url="https://shared.example/atom", content_type="application/atom+xml"
    )

    assert exchange.feed_url_of(mine) == "https://mine.example/index.xml"
    assert exchange.feed_url_of(shared) == "https://shared.example/atom"
