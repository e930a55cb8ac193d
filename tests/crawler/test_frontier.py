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


def _naive_new_order(frontier: Frontier) -> list[str]:
    """The breadth-first order of never-fetched pages as one query gives it."""
    from crawler.run.newpages import ROLE_ORDER

    rows = (
        Page.objects.filter(site=frontier.site, last_fetched_at__isnull=True)
        .annotate(band=ROLE_ORDER)
        .order_by("depth", "band", "id")
        .values_list("url", flat=True)
    )
    return [url for url in rows if url not in frontier.taken]


def test_new_urls_read_a_window_at_a_time_keep_the_order_of_one_query(site, monkeypatch):
    """Pages added between batches (deeper, shallower, announced as feeds or moved up) come
    out where a fresh query would put them, though the queue is read once per window."""
    import random

    from crawler.run import newpages

    monkeypatch.setattr(newpages.NewQueue, "WINDOW", 5)
    site.max_depth = 20
    site.save()
    frontier = Frontier(site)
    rng = random.Random(7)
    made = 0
    for round_ in range(40):
        fresh = [f"{ROOT}p{made + k}" for k in range(rng.randint(0, 4))]
        made += len(fresh)
        role = Page.Role.FEED if round_ % 9 == 4 else Page.Role.PAGE
        frontier.add(fresh, depth=rng.randint(1, 4), role=role)
        if round_ % 7 == 3 and made:  # an old URL found again by a shorter path
            frontier.add([f"{ROOT}p{rng.randrange(made)}"], depth=1)
        expected = _naive_new_order(frontier)[:3]
        offered = frontier.new_urls(3)
        assert offered == expected, round_
        frontier.take(offered[: rng.randint(0, len(offered))])
    assert frontier.new_urls(1000) == _naive_new_order(frontier)


def test_new_urls_cost_one_query_per_window_not_per_batch(site, django_assert_max_num_queries):
    frontier = Frontier(site)
    frontier.add([f"{ROOT}n{k}" for k in range(100)], depth=1)
    with django_assert_max_num_queries(1):
        for _ in range(25):
            frontier.take(frontier.new_urls(4))
    assert not frontier.new_urls(4)


def test_pages_found_ahead_of_the_queue_take_their_place_without_reading_it_again(
    site, django_assert_num_queries
):
    frontier = Frontier(site)
    frontier.add([f"{ROOT}deep{k}" for k in range(10)], depth=3)
    assert frontier.new_urls(2) == [f"{ROOT}deep0", f"{ROOT}deep1"]  # one window read
    frontier.add([ROOT + "pager2"], depth=1)  # a new page ahead of every row read
    frontier.add([ROOT + "deep5"], depth=2)  # a shorter path to a page read already
    with django_assert_num_queries(0):
        offered = frontier.new_urls(4)
    assert offered == [ROOT + "pager2", ROOT + "deep5", ROOT + "deep0", ROOT + "deep1"]
    assert offered == _naive_new_order(frontier)[:4]


def test_an_empty_hub_band_is_asked_again_only_after_a_second(site, django_assert_num_queries):
    frontier = Frontier(site)
    now = timezone.now()
    assert frontier.hubs_to_revisit(4, now) == []
    with django_assert_num_queries(0):
        assert frontier.hubs_to_revisit(4, now + timedelta(milliseconds=500)) == []
    Page.objects.create(
        site=site,
        url=ROOT + "hub",
        depth=1,
        kind=Page.Kind.HUB,
        last_fetched_at=now - timedelta(hours=1),
        next_visit_at=now,
    )
    assert frontier.hubs_to_revisit(4, now + timedelta(seconds=2)) == [ROOT + "hub"]


def test_canonical_forms_are_remembered_until_an_alias_is_learnt(site):
    frontier = Frontier(site)
    assert frontier.canonical("HTTP://www.Example.com/a?utm_source=x") == (
        "http://www.example.com/a"
    )
    assert frontier.learn_alias("http://www.example.com", ROOT.rstrip("/"))
    assert frontier.canonical("HTTP://www.Example.com/a?utm_source=x") == ROOT + "a"


def test_a_site_read_whole_admits_unseen_urls_without_looking_them_up(
    site, django_assert_num_queries
):
    Page.objects.create(site=site, url=ROOT + "stored", depth=2)
    frontier = Frontier(site)
    frontier.add([ROOT], depth=0)  # the first add reads the site's pages whole
    with django_assert_num_queries(1):  # the insert of the new page; no lookup
        ids = frontier.add([ROOT + "stored", ROOT + "fresh"], depth=3)
    assert ids[ROOT + "stored"] == Page.objects.get(url=ROOT + "stored").id
    assert Page.objects.get(url=ROOT + "fresh").depth == 3


def test_a_site_too_big_to_read_whole_looks_up_the_urls_it_has_not_seen(site, monkeypatch):
    from crawler.run import frontier as frontier_module

    monkeypatch.setattr(frontier_module, "_WHOLE_SITE", 1)
    Page.objects.create(site=site, url=ROOT + "a", depth=2)
    Page.objects.create(site=site, url=ROOT + "b", depth=2)
    frontier = Frontier(site)
    ids = frontier.add([ROOT + "a", ROOT + "c"], depth=1)
    assert ids[ROOT + "a"] == Page.objects.get(url=ROOT + "a").id
    assert Page.objects.get(url=ROOT + "a").depth == 1  # known, by a shorter path now
    assert Page.objects.filter(site=site).count() == 3
    assert ROOT + "b" not in frontier._known  # never read: the site was not read whole


def test_a_page_stored_by_another_process_meanwhile_keeps_its_id(site):
    frontier = Frontier(site)
    frontier.add([ROOT], depth=0)
    other = Page.objects.create(site=site, url=ROOT + "late", depth=1)
    assert frontier.add([ROOT + "late"], depth=1) == {ROOT + "late": other.id}
    assert Page.objects.filter(site=site, url=ROOT + "late").count() == 1


def test_pages_this_run_stored_are_handed_out_without_a_query(site, django_assert_num_queries):
    frontier = Frontier(site)
    frontier.add([ROOT], depth=0)
    frontier.add([ROOT + "x", ROOT + "y"], depth=2)
    frontier.add([ROOT + "y"], depth=1)  # by a shorter path
    frontier.add([ROOT + "x"], depth=2, role=Page.Role.FEED)  # and found to be a feed
    with django_assert_num_queries(0):
        x = frontier.pages([ROOT + "x"])[ROOT + "x"]
        y = frontier.pages([ROOT + "y"])[ROOT + "y"]
    assert (x.id, x.depth, x.role, x.last_fetched_at, x.site) == (
        Page.objects.get(url=ROOT + "x").id,
        2,
        Page.Role.FEED,
        None,
        site,
    )
    assert (y.depth, y.role) == (1, Page.Role.PAGE)
    stored = Page.objects.get(url=ROOT + "y")
    assert (stored.depth, stored.role) == (y.depth, y.role)
