"""Sites over the API: the shared pool and my own; someone's private site answers 404."""

from __future__ import annotations

import pytest

from crawler.models import Site
from tests.factories import make_site

pytestmark = pytest.mark.django_db


@pytest.fixture
def sites(alice, bob):
    """A shared site, Alice's private one, Bob's private one."""
    shared = make_site("Daily", "https://daily.example/")
    alices = Site.objects.create(
        name="Alice's",
        root_url="https://alice.example/",
        added_by=alice,
        visibility=Site.Visibility.PRIVATE,
    )
    alices.subscribers.add(alice)
    bobs = Site.objects.create(
        name="Bob's",
        root_url="https://bob.example/",
        added_by=bob,
        visibility=Site.Visibility.PRIVATE,
    )
    bobs.subscribers.add(bob)
    return {"shared": shared, "alices": alices, "bobs": bobs}


def names(response) -> list[str]:
    assert response.status_code == 200
    return [site["name"] for site in response.json()["items"]]


def test_i_see_the_shared_sites_and_mine_but_not_someone_elses_private_one(alice_api, sites):
    assert names(alice_api.get("/api/sites")) == ["Alice's", "Daily"]
    assert names(alice_api.get("/api/sites", {"scope": "shared"})) == ["Daily"]
    assert names(alice_api.get("/api/sites", {"scope": "mine"})) == ["Alice's"]
    mine = alice_api.get(f"/api/sites/{sites['alices'].pk}").json()
    assert mine["following"] and mine["added_by_me"] and not mine["shared"]


@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/api/sites/{id}"), ("DELETE", "/api/sites/{id}")]
)
def test_someone_elses_private_site_gets_404(alice_api, sites, method, path):
    response = alice_api.send(method, path.format(id=sites["bobs"].pk))

    assert response.status_code == 404
    assert list(sites["bobs"].subscribers.values_list("email", flat=True)) == ["bob@example.com"]


def test_adding_a_watched_site_follows_it_and_deleting_unfollows(alice_api, alice, sites):
    added = alice_api.send("POST", "/api/sites", {"url": "https://daily.example/news/"})

    assert added.status_code == 200 and added.json()["following"] is True
    assert Site.objects.followed_by(alice).filter(pk=sites["shared"].pk).exists()

    assert alice_api.send("DELETE", f"/api/sites/{sites['shared'].pk}").status_code == 204
    assert not Site.objects.followed_by(alice).filter(pk=sites["shared"].pk).exists()
    assert Site.objects.get(pk=sites["shared"].pk).enabled  # a shared site keeps its crawl


def test_unfollowing_my_private_site_stops_its_crawl(alice_api, sites):
    assert alice_api.send("DELETE", f"/api/sites/{sites['alices'].pk}").status_code == 204

    assert not Site.objects.get(pk=sites["alices"].pk).enabled


def test_a_site_the_rules_refuse_gets_422_with_the_reason(alice_api, settings, sites):
    settings.CRAWLER_USER_SITES = "admins-only"

    response = alice_api.send("POST", "/api/sites", {"url": "https://new.example/"})

    assert response.status_code == 422 and "Only admins" in response.json()["detail"]
    assert not Site.objects.filter(root_url__contains="new.example").exists()


def test_a_shared_site_i_do_not_follow_cannot_be_unfollowed(alice_api, sites):
    assert alice_api.send("DELETE", f"/api/sites/{sites['shared'].pk}").status_code == 404
