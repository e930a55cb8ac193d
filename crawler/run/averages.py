"""A site's page averages, learnt from the pages its runs classified (Page Analyzer).

The page-level heuristic weighs a page's article prose and LTR against the averages of
information pages and hub pages (`analyzer.kind`). As in the paper, those averages are
running means of the pages classified so far, per site: each run starts from what the
site's last run left (`CrawlRun.learned["page_averages"]`; the dev-set values for a site's
first run), hands them to every page it analyses (as plain values, into the analysing
processes), and adds each page it classifies.
"""

from __future__ import annotations

from analyzer.kind import Averages
from crawler.models import CrawlRun, Site
from crawler.strategies.base import PageObservation

KEY = "page_averages"


def site_averages(site: Site) -> Averages:
    """Return the page averages the site's latest run left, the dev-set values before any."""
    left = (
        CrawlRun.objects.filter(site=site, learned__has_key=KEY)
        .order_by("-id")
        .values_list("learned", flat=True)
        .first()
    )
    return Averages.from_data((left or {}).get(KEY))


def learnt(averages: Averages, observation: PageObservation) -> Averages:
    """Return the averages with the page the observation classified, if it analysed one."""
    analysis = observation.analysis
    measures = getattr(analysis, "measures", None)
    analysed = observation.new or observation.changed  # else unchanged: not analysed again
    if not analysed or measures is None or observation.kind is None:
        return averages
    prose, ltr = measures
    return averages.learnt(prose, ltr, "information" if analysis.kind == "information" else "hub")
