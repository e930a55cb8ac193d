"""The persisted frontier: admission (trap protection) and the order URLs are handed out."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from crawler.models import Page, Site
from crawler.run.frontier import Frontier

pytestmark = pytest.mark.django_db

ROOT = "http://127.0.0.1:9/"


@pytest.fixture
def site():
    return Site.objects.create(
        name="Frontier",
        root_url=ROOT,
        max_depth=3,
        exclude_patterns=r"/logout\b" + "\n" + r"\.pdf$",
        min_page_revisit=timedelta(minutes=10),
    )


def test_urls_off_site_too_deep_excluded_or_trap_shaped_are_refused(site):
    frontier = Frontier(site)
    assert frontier.refusal(ROOT + "a", 1) is None
    assert frontier.refusal("http://elsewhere.example/a", 1) == "off-site"
    assert frontier.refusal("mailto:x@example.com", 1) == "scheme"
    assert frontier.refusal(ROOT + "deep", 4) is not None
    assert frontier.refusal(ROOT + "logout", 1) == "excluded"
    assert frontier.refusal(ROOT + "paper.pdf", 1) == "excluded"
    assert frontier.refusal(ROOT + "x" * 2100, 1) is not None
    assert frontier.refusal(ROOT + "a/a/a/a/a/", 1) is not None


def test_adding_urls_stores_unfetched_pages_once_with_their_shortest_depth(site):
    frontier = Frontier(site)
    ids = frontier.add([ROOT + "a", ROOT + "b", "http://elsewhere.example/"], depth=2)
    assert set(ids) == {ROOT + "a", ROOT + "b"}
    again = frontier.add([ROOT + "a"], depth=1)
    assert again[ROOT + "a"] == ids[ROOT + "a"]
    assert Page.objects.get(url=ROOT + "a").depth == 1
    assert Page.objects.filter(site=site).count() == 2
    frontier.add([ROOT + "a"], depth=1, role=Page.Role.FEED)
    assert Page.objects.get(url=ROOT + "a").role == Page.Role.FEED


def test_batches_give_hubs_then_new_urls_breadth_first_then_due_pages(site):
    now = timezone.now()
    long_ago = now - timedelta(hours=2)
    Page.objects.create(
        site=site,
        url=ROOT + "due",
        depth=1,
        last_fetched_at=long_ago,
        next_visit_at=now - timedelta(minutes=1),
    )
    Page.objects.create(
        site=site,
        url=ROOT + "later",
        depth=1,
        last_fetched_at=long_ago,
        next_visit_at=now + timedelta(hours=1),
    )
    Page.objects.create(site=site, url=ROOT + "new-deep", depth=2)
    Page.objects.create(site=site, url=ROOT + "new-shallow", depth=1)
    Page.objects.create(
        site=site,
        url=ROOT + "section",
        depth=1,
        kind=Page.Kind.HUB,
        last_fetched_at=long_ago,
        next_visit_at=now + timedelta(hours=5),
    )
    Page.objects.create(
        site=site,
        url=ROOT,
        depth=0,
        role=Page.Role.SEED,
        last_fetched_at=long_ago,
        next_visit_at=now + timedelta(hours=5),
    )
    Page.objects.create(
        site=site,
        url=ROOT + "fresh-hub",
        depth=1,
        kind=Page.Kind.HUB,
        last_fetched_at=now - timedelta(minutes=1),
    )
    frontier = Frontier(site)
    bands = [[ROOT, ROOT + "section"], [ROOT + "new-shallow", ROOT + "new-deep"], [ROOT + "due"]]
    for band in bands:
        assert frontier.next_batch(10, now) == band
        # While a band is being fetched the next one waits: a hub may still reveal new URLs.
        assert frontier.next_batch(10, now) == []
        for url in band:
            frontier.done(url)
    assert frontier.next_batch(10, now) == []  # everything handed out once per run
    assert not frontier.in_flight


def test_a_batch_respects_its_limit_and_continues_where_it_stopped(site):
    frontier = Frontier(site)
    frontier.add([f"{ROOT}p{i}" for i in range(5)], depth=1)
    assert frontier.next_batch(2) == [ROOT + "p0", ROOT + "p1"]
    assert frontier.next_batch(2) == [ROOT + "p2", ROOT + "p3"]
    assert frontier.pending() == 5  # handed out, not yet fetched


def test_never_fetched_urls_the_admin_has_since_excluded_are_dropped(site):
    frontier = Frontier(site)
    frontier.add([ROOT + "keep", ROOT + "drafts/1"], depth=1)
    site.exclude_patterns += "\n/drafts/"
    site.save()
    assert Frontier(site).next_batch(10) == [ROOT + "keep"]
    assert not Page.objects.filter(url=ROOT + "drafts/1").exists()


def test_seeding_stores_the_root_the_extra_seeds_and_the_sitemap(site):
    site.seed_urls = ROOT + "news/"
    site.save()
    Frontier(site).seed()
    roles = dict(Page.objects.filter(site=site).values_list("url", "role"))
    assert roles == {ROOT: "seed", ROOT + "news/": "seed", ROOT + "sitemap.xml": "sitemap"}
