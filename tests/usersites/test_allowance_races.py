"""Allowances hold under concurrent requests: what another request of the same person added
while this one was previewing counts before this one saves."""

from __future__ import annotations

import pytest

from crawler import usersites
from crawler.models import Site
from crawler.usersites import SiteRefused
from tests.usersites.test_adding import previewed

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _open(settings):
    settings.CRAWLER_USER_SITES = "open"


def racing(monkeypatch, person, other_url, **plan):
    """While a preview runs, the same person adds `other_url` in another request."""

    def preview_site(user, url):
        usersites.add_site(person, other_url, previewed(other_url, **plan))
        return previewed(url, **plan)

    monkeypatch.setattr("crawler.usersites.follow.preview_site", preview_site)


def test_the_site_count_holds_when_another_add_lands_during_the_preview(
    alice, settings, monkeypatch
):
    settings.CRAWLER_USER_SITES_MAX = 1
    racing(monkeypatch, alice, "https://b.example.org/")

    with pytest.raises(SiteRefused, match="the most allowed"):
        usersites.add_site(alice, "https://a.example.org/")

    assert Site.objects.followed_by(alice).count() == 1


def test_the_daily_pages_hold_when_another_add_lands_during_the_preview(
    alice, settings, monkeypatch
):
    settings.CRAWLER_USER_PAGES_PER_DAY = 500
    racing(monkeypatch, alice, "https://b.example.org/", revisit_hours=3.0, page_budget=62)

    with pytest.raises(SiteRefused, match="500 pages a day"):
        usersites.add_site(alice, "https://a.example.org/")

    assert usersites.pages_allowance(alice) == 4
