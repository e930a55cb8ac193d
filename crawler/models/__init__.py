"""Crawler models: monitored sites, their pages, versions and links (the web graph), and runs.

Other parts of the crawler keep their models in their own modules (e.g. crawler/models_xcrawl.py,
crawler/models_deepweb.py) and add one import line at the end of this file.
"""

from crawler.models.pages import Link, Page, PageVersion
from crawler.models.runs import RUN_COUNTERS, CrawlRun
from crawler.models.site import Site, SiteQuerySet, _validate_http_url

__all__ = [
    "RUN_COUNTERS",
    "CrawlRun",
    "Link",
    "Page",
    "PageVersion",
    "Site",
    "SiteQuerySet",
    "_validate_http_url",
]
from crawler import (
    models_deepweb,  # noqa: E402, F401 (hidden web: LVS table, search forms, queries)
    models_xcrawl,  # noqa: E402, F401 (xCrawl: samples, site search, proposals)
)
