"""Adding a site: policy, approval, quotas, one crawl per origin, private by default."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from crawler import usersites
from crawler.models import Site
from crawler.usersites import CrawlPlan, Preview, SiteRefused
from tests.factories import make_run, make_site, make_user

pytestmark = pytest.mark.django_db


def previewed(url: str, **plan: object) -> Preview:
    """A preview as the Sites page keeps it in the session (its own tests fetch for real)."""
    values = {"name": "Gazette", "root_url": url, "page_budget": 100, "revisit_hours": 3.0}
    values.update(plan)
    return Preview(url=url, final_url=url, kind="hub", plan=CrawlPlan(**values))


@pytest.mark.slow  # the fetches of one host wait its crawl delay (1 s)
def test_an_open_policy_crawls_a_persons_site_at_once_privately(alice, news, settings):
    settings.CRAWLER_USER_SITES = "open"

    added = usersites.add_site(alice, news.url("/"))

    site = added.site
    assert added.created and site.approval == "approved" and site.visibility == "private"
    assert site.added_by == alice and list(site.subscribers.all()) == [alice]
    assert not site.allow_private_network  # the admins' flag, never set from here
    assert site.seeds() == [news.url("/"), news.url("/feed.xml")]
    assert list(Site.objects.due(timezone.now())) == [site]


def test_under_approval_a_new_site_waits_for_an_admin(alice, settings):
    settings.CRAWLER_USER_SITES = "approval"

    site = usersites.add_site(
        alice, "https://news.example.org/", previewed("https://news.example.org/")
    ).site

    assert site.approval == "pending"
    assert list(Site.objects.due(timezone.now())) == []
    Site.objects.filter(id=site.id).update(approval="approved")
    assert list(Site.objects.due(timezone.now())) == [site]


def test_admins_only_lets_people_follow_but_not_add(alice, settings):
    settings.CRAWLER_USER_SITES = "admins-only"
    pooled = make_site("Pool", "https://pool.example.com/")

    with pytest.raises(SiteRefused, match="Only admins add new sites"):
        usersites.add_site(alice, "https://new.example.org/", previewed("https://new.example.org/"))
    assert usersites.add_site(alice, "https://pool.example.com/world/").site == pooled
    admin = make_user("admin@example.com", is_staff=True)
    url = "https://new.example.org/"
    assert usersites.add_site(admin, url, previewed(url)).site.approval == "approved"


def test_a_site_already_watched_is_shared_never_crawled_twice(alice, bob, settings):
    settings.CRAWLER_USER_SITES = "open"
    url = "https://news.example.org/"
    alices = usersites.add_site(alice, url, previewed(url)).site

    again = usersites.add_site(bob, "news.example.org/science/")

    assert again.site == alices and not again.created
    assert "you now follow it" in again.message
    assert Site.objects.count() == 1
    assert set(alices.subscribers.all()) == {alice, bob}
    assert usersites.add_site(bob, url).already


def test_a_denied_site_cannot_be_followed(alice, bob, settings):
    settings.CRAWLER_USER_SITES = "open"
    url = "https://spam.example.org/"
    site = usersites.add_site(alice, url, previewed(url)).site
    Site.objects.filter(id=site.id).update(approval="denied")

    with pytest.raises(SiteRefused, match="declined"):
        usersites.add_site(bob, url)


def test_the_number_of_sites_a_person_follows_is_capped(alice, settings):
    settings.CRAWLER_USER_SITES = "open"
    settings.CRAWLER_USER_SITES_MAX = 1
    make_site("Pool", "https://pool.example.com/")
    usersites.add_site(alice, "https://pool.example.com/")

    with pytest.raises(SiteRefused, match="You follow 1 site, the most allowed"):
        usersites.add_site(alice, "https://b.example.org/", previewed("https://b.example.org/"))


def test_the_daily_page_allowance_shapes_the_plan_and_refuses_past_it(alice, settings):
    settings.CRAWLER_USER_SITES = "open"
    settings.CRAWLER_USER_PAGES_PER_DAY = 500
    preview = Preview(url="https://a.example.org/", kind="hub", final_url="https://a.example.org/")

    plan = usersites.plan_for(alice, preview)
    # 500 pages a day: every 3 hours (8 runs) leaves 62 pages a run.
    assert (plan.revisit_hours, plan.page_budget) == (3.0, 62)
    url = "https://a.example.org/"
    usersites.add_site(alice, url, previewed(url, revisit_hours=3.0, page_budget=62))

    assert usersites.pages_allowance(alice) == 4
    with pytest.raises(SiteRefused, match="already use your 500 pages a day"):
        usersites.plan_for(alice, preview)


def test_crawls_stop_for_the_day_once_the_allowance_is_fetched(alice, bob, settings):
    settings.CRAWLER_USER_SITES = "open"
    settings.CRAWLER_USER_PAGES_PER_DAY = 300
    url = "https://a.example.org/"
    mine = usersites.add_site(alice, url, previewed(url, page_budget=30)).site
    shared = make_site("Pool", "https://pool.example.com/")
    now = timezone.now()
    make_run(mine, hours_ago=2, fetched=299)
    assert set(Site.objects.due(now)) == {mine, shared}

    make_run(mine, hours_ago=1, fetched=1)
    assert list(Site.objects.due(now)) == [shared]
    # A day later the runs have aged out of the window.
    assert set(Site.objects.due(now + timedelta(days=1, hours=2))) == {mine, shared}


def test_the_last_follower_leaving_stops_a_private_site(alice, bob, settings):
    settings.CRAWLER_USER_SITES = "open"
    url = "https://a.example.org/"
    site = usersites.add_site(alice, url, previewed(url)).site
    usersites.add_site(bob, url)

    usersites.unfollow_site(alice, site)
    assert Site.objects.get(id=site.id).enabled
    usersites.unfollow_site(bob, site)
    assert not Site.objects.get(id=site.id).enabled


def test_a_small_site_costs_what_it_uses_so_that_ten_fit_in_the_default_allowance(alice, settings):
    settings.CRAWLER_USER_SITES = "open"
    urls = [f"https://s{n}.example.org/" for n in range(10)]
    plans = []
    for url in urls:  # ten 4-page sites, each with a feed, added before any has run
        found = Preview(url=url, final_url=url, kind="hub", feeds=[url + "feed"], size=4)
        plan = usersites.plan_for(alice, found)
        usersites.add_site(alice, url, Preview(url=url, final_url=url, kind="hub", plan=plan))
        plans.append(plan)

    # Sized from the 4 pages found: a run of a dozen pages every 2 hours, not 166.
    assert {(p.revisit_hours, p.page_budget) for p in plans} == {(2.0, 12)}
    assert Site.objects.followed_by(alice).count() == 10
    assert usersites.pages_allowance(alice) == 2000 - 10 * 12 * 12


def test_once_a_site_has_run_it_counts_the_pages_it_fetched_not_its_reservation(alice, settings):
    settings.CRAWLER_USER_SITES = "open"
    url = "https://a.example.org/"
    site = usersites.add_site(alice, url, previewed(url, page_budget=166, revisit_hours=2.0)).site
    assert usersites.pages_allowance(alice) == 2000 - 166 * 12
    make_run(site, hours_ago=3, fetched=4)
    make_run(site, hours_ago=1, fetched=5)

    assert usersites.pages_allowance(alice) == 2000 - 5 * 12
