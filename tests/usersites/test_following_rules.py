"""A site's followers decide whether it is crawled: the last one leaving pauses a private
site, however they leave (unfollowing, deleting their account), and a new follower resumes it."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from crawler import usersites
from crawler.models import Site
from tests.factories import PASSWORD
from tests.usersites.test_adding import previewed

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _open(settings):
    settings.CRAWLER_USER_SITES = "open"


def test_following_a_site_paused_for_want_of_followers_resumes_it(alice, bob):
    url = "https://a.example.org/"
    site = usersites.add_site(alice, url, previewed(url)).site
    usersites.unfollow_site(alice, site)
    assert list(Site.objects.due(timezone.now())) == []

    usersites.add_site(bob, url)

    assert Site.objects.get(id=site.id).enabled
    assert list(Site.objects.due(timezone.now())) == [site]


def test_an_admins_pause_of_a_followed_site_stays(alice, bob):
    url = "https://a.example.org/"
    site = usersites.add_site(alice, url, previewed(url)).site
    Site.objects.filter(id=site.id).update(enabled=False)

    usersites.add_site(bob, url)

    assert not Site.objects.get(id=site.id).enabled


def test_deleting_an_account_pauses_the_private_sites_nobody_else_follows(client, alice, bob):
    mine, shared_with_bob = "https://a.example.org/", "https://b.example.org/"
    alone = usersites.add_site(alice, mine, previewed(mine)).site
    both = usersites.add_site(alice, shared_with_bob, previewed(shared_with_bob)).site
    usersites.add_site(bob, shared_with_bob)
    client.force_login(alice)

    client.post(reverse("account_delete"), {"password": PASSWORD})

    assert not Site.objects.filter(added_by__email="alice@example.com").exists()
    assert not Site.objects.get(id=alone.id).enabled
    assert Site.objects.get(id=both.id).enabled
    assert list(Site.objects.due(timezone.now())) == [both]


def test_deleting_an_account_in_the_admin_pauses_its_sites_too(alice):
    url = "https://a.example.org/"
    site = usersites.add_site(alice, url, previewed(url)).site
    site.subscribers.remove(alice)  # added, no longer followed: still the adder's

    alice.delete()

    assert not Site.objects.get(id=site.id).enabled
