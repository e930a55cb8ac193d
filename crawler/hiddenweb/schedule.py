"""When a site's search form is searched again: by its measured change rate.

A search form is a hub like any other: what it lists changes only when the site publishes.
After its first search, a form is due again once its interval has passed: the site's
minimum revisit interval, doubled for each of its latest runs in a row whose searches found
no article the crawl had not fetched (`RunSearch.new_articles`), up to the site's maximum
revisit interval. A due form is asked one keyword first (`sentinel_of`: the one that last
had results); only when that brings an article the crawl has not fetched are all the
keywords searched again.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db.models import Sum

from crawler.hiddenweb.assignments import Assignment
from crawler.models import Page, Site
from crawler.models.hiddenweb import FormQuery, RunSearch
from crawler.models.sitesearch import SiteSearch

NOT_DUE = "not due"  # the outcome's reason for a form left alone in a run
ROUNDS_READ = 8  # latest runs whose searches a form's interval is measured on


def quiet_rounds(record: SiteSearch) -> int:
    """Return how many of the form's latest runs in a row found nothing new."""
    rounds = (
        RunSearch.objects.filter(form_id=record.id, run__isnull=False)
        .values("run_id")
        .annotate(new=Sum("new_articles"))
        .order_by("-run_id")[:ROUNDS_READ]
    )
    quiet = 0
    for row in rounds:
        if row["new"]:
            break
        quiet += 1
    return quiet


def search_interval(record: SiteSearch, site: Site) -> timedelta:
    """Return how long the form is left alone after its last submission."""
    interval = site.min_page_revisit * (2 ** quiet_rounds(record))
    return min(interval, max(site.max_page_revisit, site.min_page_revisit))


def search_due(record: SiteSearch, site: Site, now: datetime) -> bool:
    """Tell whether a form searched before is due to be searched again."""
    last = record.last_submitted_at
    return last is None or now - last >= search_interval(record, site)


def sentinel_of(record: SiteSearch, chosen: list[Assignment]) -> Assignment:
    """Return the assignment to ask first on a revisit: the most recently fruitful one."""
    fruitful = dict(
        FormQuery.objects.filter(form=record, last_had_results=True).values_list(
            "key_hash", "last_submitted_at"
        )
    )
    ranked = [a for a in chosen if FormQuery.hash_key(a.key()) in fruitful]
    if not ranked:
        return chosen[0]
    return max(ranked, key=lambda a: fruitful[FormQuery.hash_key(a.key())])


def unknown_results(site: Site, results: Iterable[str]) -> set[str]:
    """Return the (canonical) result URLs the site's crawl has not fetched."""
    urls = set(results)
    fetched = Page.objects.filter(site=site, url__in=list(urls)).exclude(last_fetched_at=None)
    return urls - set(fetched.values_list("url", flat=True))
