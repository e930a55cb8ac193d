"""A populated Webclip for the interface tests: people, lists, clips, sites with runs, mail."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from clipping import emails
from crawler.models import Site
from tests.factories import make_clip, make_list, make_match, make_run, make_site, make_user

STAFF = "admin@example.com"
READER = "alice@example.com"


@dataclass(frozen=True)
class Populated:
    """What the pages show: the ids the page paths need."""

    list_id: int
    clip_count: int
    site_id: int


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
    make_run(courier, hours_ago=3, fetched=12, new=4, changed=0, errors=0)
    for hours, fetched in ((30, 40), (20, 55), (10, 35), (2, 60)):
        make_run(daily, hours_ago=hours, fetched=fetched, new=fetched // 3, changed=4, errors=1)
    energy = make_list(alice, "Energy", 'solar\nsubsidy\n"feed-in tariff"')
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
        first = first or match
    emails.instant_clip(first)
    return Populated(list_id=energy.id, clip_count=clips, site_id=courier.id)
