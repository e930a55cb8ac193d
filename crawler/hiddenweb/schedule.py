"""When a site's search form is searched again: by its measured change rate.

A search form is a hub like any other: what it lists changes only when the site publishes.
A form with a keyword never asked on it (a new list's) is searched at once. Otherwise a form is
due again once its interval has passed: the site's
minimum revisit interval, doubled for each of its latest runs in a row whose searches found
no article the crawl had not fetched (`RunSearch.new_articles`), up to the site's maximum
revisit interval. A due form is asked one keyword first (`sentinel_of`: the fruitful one
asked longest ago, so revisits take them in turn); only when that brings an article the
crawl has not fetched are all the keywords searched again. When a run's pass met forms
searched before and searched none in full, the run asks no search result page
(`Frontier.searches_quiet`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from django.db.models import Sum

from crawler.hiddenweb.assignments import Assignment
from crawler.hiddenweb.outcome import FormOutcome
from crawler.models import Page, Site
from crawler.models.hiddenweb import FormQuery, RunSearch
from crawler.models.sitesearch import SiteSearch
from crawler.sitesearch.analysis import Form

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


def is_revisit(record: SiteSearch, chosen: list[Assignment], keywords: Iterable[str]) -> bool:
    """Tell whether searching the form with `chosen` repeats earlier searches of a run's users'
    `keywords`: it was searched before and every one of them chosen was asked before (a new
    list's keyword is searched at once; other values wait for the next full search). Without
    `keywords` (a search asked for now, outside a run) nothing is a revisit."""
    wanted = {_plain(k) for k in keywords}
    if record.last_submitted_at is None or not chosen or not wanted:
        return False
    typed = FormQuery.objects.filter(form=record).values_list("keyword", flat=True)
    asked = {_plain(text) for text in typed}  # a keyword may have been typed in quotes
    return all(_plain(a.keyword) in asked for a in chosen if _plain(a.keyword) in wanted)


def _plain(text: str) -> str:
    return " ".join(text.replace('"', " ").lower().split())[:500]


def search_due(record: SiteSearch, site: Site, now: datetime) -> bool:
    """Tell whether a form searched before is due to be searched again."""
    last = record.last_submitted_at
    return last is None or now - last >= search_interval(record, site)


def sentinel_of(record: SiteSearch, chosen: list[Assignment]) -> Assignment:
    """Return the assignment to ask first on a revisit: of those that had results when last
    asked, the one asked longest ago (revisits take the users' fruitful keywords in turn)."""
    fruitful = dict(
        FormQuery.objects.filter(form=record, last_had_results=True).values_list(
            "key_hash", "last_submitted_at"
        )
    )
    ranked = [a for a in chosen if FormQuery.hash_key(a.key()) in fruitful]
    if not ranked:
        return chosen[0]
    return min(ranked, key=lambda a: fruitful[FormQuery.hash_key(a.key())])


def brought_news(site: Site, outcome: FormOutcome, canonical: Callable[[str], str]) -> bool:
    """Tell whether a search's results hold an article the site's crawl has not fetched."""
    urls = {canonical(url) for url in outcome.results}
    fetched = Page.objects.filter(site=site, url__in=list(urls)).exclude(last_fetched_at=None)
    return bool(urls - set(fetched.values_list("url", flat=True)))


def left_alone(form: Form, record: SiteSearch) -> FormOutcome:
    """Return the outcome of a form not due in this run (nothing sent)."""
    return FormOutcome(form.action, form.method, record.status, NOT_DUE, record.id)
