"""A site's crawl status in words a reader understands: its last run and the watches since.

A crawl run walks the whole site; between runs, watches fetch its feeds, sitemaps and hubs
and the new articles they link to (`crawler.run.watch`). Both count: a status that says
"0 pages fetched" right after a watch fetched a new article would be untrue. Pages that are
not there (404, 410: a missing sitemap.xml) are misses, told apart from errors.
"""

from __future__ import annotations

from datetime import datetime

from django.utils.timesince import timesince, timeuntil
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from crawler.fetch.words import stored_error_words
from crawler.models import CrawlRun, Page, Site


def describe(site: Site, run: CrawlRun | None, now: datetime) -> str:
    """Say a site's crawl status, its last run and what was watched since, in words."""
    if site.approval == Site.Approval.PENDING:
        return _("Waiting for an admin to approve it; it is not crawled until then.")
    if site.approval == Site.Approval.DENIED:
        if site.review_note:
            return _("An admin declined it: %(note)s") % {"note": site.review_note}
        return _("An admin declined it.")
    if not site.enabled:
        return _("Paused: it is not crawled.")
    if run is None:
        return _("Not crawled yet; the first crawl starts within a few minutes.")
    ago = timesince(run.started_at, now).split(",")[0]
    if run.finished_at is None:
        return ngettext(
            "Being crawled now (started %(ago)s ago, %(count)s page so far).",
            "Being crawled now (started %(ago)s ago, %(count)s pages so far).",
            run.fetched,
        ) % {"ago": ago, "count": run.fetched}
    following = ""
    if site.next_crawl_at and site.next_crawl_at > now:
        when = timeuntil(site.next_crawl_at, now).split(",")[0]
        following = " " + _("Next crawl in %(when)s.") % {"when": when}
    if run.status == CrawlRun.Status.FAILED:
        failed = _("The last crawl, %(ago)s ago, failed: %(reason)s")
        reason = _failure_words(run.error)
        return failed % {"ago": ago, "reason": reason} + _watched(site, run) + following
    stopped = ""
    if run.status == run.Status.INTERRUPTED:
        stopped = " " + _("It was stopped before the end.")
    return _last_run(run, ago) + stopped + _watched(site, run) + following


def _last_run(run: CrawlRun, ago: str) -> str:
    """Say what the last run fetched: pages, new and changed ones, misses and errors."""
    fetched = ngettext(
        "Last crawled %(ago)s ago: %(count)s page fetched",
        "Last crawled %(ago)s ago: %(count)s pages fetched",
        run.fetched,
    ) % {"ago": ago, "count": run.fetched}
    parts = [
        fetched,
        _("%(new)s new, %(changed)s changed") % {"new": run.new, "changed": run.changed},
    ]
    if run.misses:
        parts.append(
            ngettext(
                "%(count)s page not found (no harm)",
                "%(count)s pages not found (no harm)",
                run.misses,
            )
            % {"count": run.misses}
        )
    parts.append(
        ngettext("%(count)s error", "%(count)s errors", run.errors) % {"count": run.errors}
    )
    return ", ".join(parts) + "."


def _watched(site: Site, run: CrawlRun) -> str:
    """Say what watches fetched since the run ended: its feeds', sitemaps' and hubs' news."""
    since = Page.objects.filter(site=site, last_fetched_at__gt=run.finished_at)
    fetched = since.count()
    if not fetched:
        return ""
    new = since.filter(first_seen_at__gt=run.finished_at).count()
    words = ngettext(
        "Since then, watching its news: %(count)s page fetched, %(new)s new.",
        "Since then, watching its news: %(count)s pages fetched, %(new)s new.",
        fetched,
    )
    return " " + words % {"count": fetched, "new": new}


def _failure_words(error: str) -> str:
    """Say why a run failed: a fetch error in words, anything else as our own failure."""
    first = error.strip().splitlines()[0] if error.strip() else ""
    words = stored_error_words(first) if first else ""
    if words and words != _("The page could not be fetched."):
        return words
    return _("an error on Webclip's side; the admins can see what it was.")
