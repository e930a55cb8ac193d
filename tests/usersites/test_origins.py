"""One origin, one spelling, one claim: sites are found by origin through their origin rows,
every spelling of a host is the same origin, and a person's site claims its own origin only."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from crawler import usersites
from crawler.canonical import origin
from crawler.models import Site
from crawler.usersites import Preview, SiteRefused
from tests.factories import make_site
from tests.usersites.test_adding import previewed

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("spelling", "expected"),
    [
        ("HTTP://LocalHost.:8353/x", "http://localhost:8353"),
        ("https://news.example.org:443/", "https://news.example.org"),
        ("http://bücher.example/", "http://xn--bcher-kva.example"),
        ("http://BÜCHER.example.:80/", "http://xn--bcher-kva.example"),
        ("http://[::1]:80/", "http://[::1]"),
    ],
)
def test_every_spelling_of_an_origin_is_one_origin(spelling, expected):
    assert origin(spelling) == expected


@pytest.mark.parametrize(
    "spelling",
    ["http://localhost.:8353/", "http://LOCALHOST:8353/a", "http://localhost.:8353/feed.xml"],
)
def test_an_admins_deny_holds_for_every_spelling_of_the_origin(alice, settings, spelling):
    settings.CRAWLER_USER_SITES = "open"
    denied = make_site("Denied", "http://localhost:8353/")
    Site.objects.filter(id=denied.id).update(approval="denied")

    with pytest.raises(SiteRefused, match="declined"):
        usersites.add_site(alice, spelling, previewed(spelling))
    assert Site.objects.count() == 1


def test_an_international_name_finds_the_site_of_its_ascii_spelling(alice, settings):
    settings.CRAWLER_USER_SITES = "open"
    pooled = make_site("Books", "http://xn--bcher-kva.example/")

    assert usersites.add_site(alice, "http://bücher.example./").site == pooled


def test_sites_are_found_by_origin_without_reading_every_site():
    for number in range(30):
        make_site(f"Site {number}", f"https://s{number}.example.com/")
    with CaptureQueriesContext(connection) as queries:
        found = Site.objects.at_origin("https://s7.example.com")
    assert [site.name for site in found] == ["Site 7"]
    assert len(queries) == 1
    assert "site_id" in queries[0]["sql"].lower() or "siteorigin" in queries[0]["sql"].lower()


def test_origin_rows_follow_a_sites_urls():
    site = make_site("Moves", "https://old.example.com/")
    site.root_url = "https://new.example.com/"
    site.seed_urls = "https://feeds.example.net/rss"
    site.save()

    assert Site.objects.at_origin("https://old.example.com") == []
    assert Site.objects.at_origin("https://new.example.com") == [site]
    assert Site.objects.at_origin("https://feeds.example.net") == [site]  # an admin's seeds


def test_a_persons_site_claims_its_own_origin_not_its_feeds(alice, bob, settings):
    settings.CRAWLER_USER_SITES = "open"
    url = "https://squat.example.org/"
    found = Preview(
        url=url,
        final_url=url,
        kind="hub",
        feeds=["https://victim.example.com/feed.xml", "https://squat.example.org/rss"],
    )
    plan = usersites.plan_for(alice, found)
    squat = usersites.add_site(alice, url, previewed(url, seed_urls=plan.seed_urls)).site
    assert plan.seed_urls == ["https://squat.example.org/rss"]
    # Even seeds an older plan gave it are no claim.
    Site.objects.filter(id=squat.id).update(seed_urls="https://victim.example.com/feed.xml")
    squat.refresh_from_db()
    squat.save()

    assert Site.objects.at_origin("https://victim.example.com") == []
    victim = "https://victim.example.com/"
    assert usersites.add_site(bob, victim, previewed(victim)).created
