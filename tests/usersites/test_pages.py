"""The Sites page: preview then add, crawl status in words, nobody else's sites; admin review."""

from __future__ import annotations

import pytest
from django.urls import reverse

from crawler.models import Site
from tests.factories import make_run
from tests.usersites.sites import TITLES

pytestmark = pytest.mark.django_db


@pytest.mark.slow  # the fetches of one host wait its crawl delay (1 s)
def test_a_person_previews_then_adds_a_site(client, alice, news, settings):
    settings.CRAWLER_USER_SITES = "open"
    client.force_login(alice)

    page = client.post(reverse("site_preview"), {"url": news.url("/")}).content.decode()
    assert "a page of links to articles" in page
    assert TITLES[0] in page and news.url("/feed.xml") in page
    assert "robots.txt allows this page." in page
    assert "Crawl every 2 hours" in page
    fetched = len(news.requests)

    # The private-network flag is not a field of this page: posting it changes nothing.
    response = client.post(
        reverse("site_add"), {"url": news.url("/"), "allow_private_network": "on"}, follow=True
    )

    assert len(news.requests) == fetched  # the preview the person saw is the one added
    site = Site.objects.get()
    assert site.added_by == alice and not site.allow_private_network
    text = response.content.decode()
    assert "Harbour Gazette is added" in text
    assert "Not crawled yet; the first crawl starts within a few minutes." in text


def test_the_status_says_the_last_run_in_plain_words(client, alice, settings):
    site = Site.objects.create(
        name="Gazette", root_url="https://gazette.example.org/", added_by=alice
    )
    site.subscribers.add(alice)
    make_run(site, hours_ago=2, fetched=12, new=3, changed=1, errors=0)
    client.force_login(alice)

    page = client.get(reverse("site_index")).content.decode()

    assert "Last crawled 2\xa0hours ago: 12 pages fetched, 3 new, 1 changed, 0 errors." in page
    Site.objects.filter(id=site.id).update(approval="pending")
    page = client.get(reverse("site_detail", args=[site.pk])).content.decode()
    assert "Waiting for an admin to approve it" in page


def test_a_persons_sites_are_theirs_alone(client, alice, bob):
    site = Site.objects.create(
        name="Alice's", root_url="https://alice.example.org/", added_by=alice, visibility="private"
    )
    site.subscribers.add(alice)
    client.force_login(bob)

    assert client.get(reverse("site_detail", args=[site.pk])).status_code == 404
    assert client.post(reverse("site_remove", args=[site.pk])).status_code == 404
    assert "Alice&#x27;s" not in client.get(reverse("site_index")).content.decode()
    assert site.subscribers.filter(id=alice.id).exists()


def test_a_refused_address_is_explained(client, alice, settings):
    settings.CRAWLER_USER_SITE_NETWORKS = ""
    client.force_login(alice)

    page = client.post(reverse("site_preview"), {"url": "http://127.0.0.1:9/"}).content.decode()

    assert "Webclip does not visit private or local network addresses." in page
    assert 'data-testid="site-add"' not in page


def test_an_admin_approves_shares_and_denies_peoples_sites(staff_client, alice):
    site = Site.objects.create(
        name="Alice's",
        root_url="https://alice.example.org/",
        added_by=alice,
        visibility="private",
        approval="pending",
    )
    changelist = reverse("admin:crawler_site_changelist")

    for action, field, value in [
        ("approve", "approval", "approved"),
        ("share", "visibility", "shared"),
        ("make_private", "visibility", "private"),
        ("deny", "approval", "denied"),
    ]:
        staff_client.post(changelist, {"action": action, "_selected_action": [site.pk]})
        assert getattr(Site.objects.get(id=site.id), field) == value
    assert staff_client.get(reverse("admin:crawler_site_change", args=[site.pk])).status_code == 200


def test_the_sites_page_orders_sites_by_name_whatever_the_case_or_accents(alice):
    from crawler.usersites import followed_sites
    from tests.factories import make_site

    for n, name in enumerate(["zinc Weekly", "Ärzteblatt", "Bay News", "atlas"]):
        make_site(name, f"https://s{n}.example.com/").subscribers.add(alice)

    names = [row.site.name for row in followed_sites(alice)]

    assert names == ["Ärzteblatt", "atlas", "Bay News", "zinc Weekly"]
