"""A populated Webclip for the interface tests: people, lists, clips, sites with runs, mail."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from clipping import emails
from clipping.models import Clip, Match
from crawler.models import PageVersion, Site
from tests.factories import (
    make_clip,
    make_list,
    make_match,
    make_run,
    make_site,
    make_user,
    store_version,
)

STAFF = "admin@example.com"
READER = "alice@example.com"


@dataclass(frozen=True)
class Populated:
    """What the pages show: the ids the page paths need."""

    list_id: int
    clip_count: int
    site_id: int
    clip_id: int = 0  # a clip whose page has two stored versions (reader view, history)
    page_id: int = 0


def populate(clips: int = 25) -> Populated:
    """Create alice's lists and clips, a staff member, two watched sites with runs, and mail."""
    alice = make_user(READER)
    make_user(STAFF, is_staff=True, is_superuser=True)
    daily = make_site("The Daily Demo", "https://news.example.com/")
    # A site alice added herself: hers to see in detail, private to her.
    courier = make_site("Regional Courier", "https://courier.example.org/")
    Site.objects.filter(id=courier.id).update(
        added_by=alice,
        visibility=Site.Visibility.PRIVATE,
        page_budget=20,
        revisit_interval=timedelta(days=1),
    )
    courier.subscribers.add(alice)
    make_run(courier, hours_ago=3, fetched=12, new=4, changed=0, errors=0, misses=1)
    for hours, fetched in ((30, 40), (20, 55), (15, 0), (10, 35), (2, 60)):  # 0: a gap
        make_run(daily, hours_ago=hours, fetched=fetched, new=fetched // 3, changed=4, errors=1)
    # A site someone added that waits for the admins: the badge on /ops/.
    Site.objects.filter(id=make_site("Harbour Gazette", "https://gazette.example.net/").id).update(
        added_by=make_user("dora@example.com"),
        visibility=Site.Visibility.PRIVATE,
        approval=Site.Approval.PENDING,
    )
    energy = make_list(alice, "Energy", 'solar\nsubsidy\n"feed-in tariff"\nsite:news.example.com')
    make_list(alice, "Transport", "rail strike\n-sports", active=False)
    now = timezone.now()
    first = None
    for n in range(clips):
        clip = make_clip(
            daily,
            title=f"Council backs solar subsidies, part {n + 1}",
            url=f"https://news.example.com/news/solar-{n}",
            seen_at=now - timedelta(hours=n),
        )
        match = make_match(energy, clip)
        if n == 1:  # read: it offers "Mark unread"
            Match.objects.filter(id=match.id).update(read_at=now)
        first = first or match
    emails.instant_clip(first)
    stored = _stored_page(courier, first.clip)
    return Populated(
        list_id=energy.id,
        clip_count=clips,
        site_id=courier.id,
        clip_id=first.clip_id,
        page_id=stored.page_id,
    )


ARTICLE = (
    "<html lang='en'><head><title>Council backs solar subsidies</title></head><body>"
    "<nav><a href='/'>Home</a></nav><article><h1>Council backs solar subsidies</h1>"
    "<p>The council gives households solar subsidies for panels on their roofs.</p>"
    "<p>Officials agreed the plan {change} after a long debate in the town hall.</p>"
    "<ul><li>Panels up to 10 kW</li><li>Batteries with the panels</li></ul>"
    "</article></body></html>"
)


def _stored_page(site: Site, clip: Clip) -> PageVersion:
    """Two stored versions of the clip's page; the clip made from the newer one."""
    earlier = timezone.now() - timedelta(days=1)
    store_version(site, clip.url, ARTICLE.format(change="on Monday"), fetched_at=earlier)
    newer = store_version(site, clip.url, ARTICLE.format(change="on Tuesday, 12 to 3,"))
    Clip.objects.filter(pk=clip.pk).update(
        page=newer.page, page_version=newer, area_path="html/body/article[1]"
    )
    return newer
