"""Crawler models: sites, pages, versions, links, runs, and the models of xCrawl and hidden-web.

One module per concern; this package imports each so that Django sees every model of the app.
"""

from crawler.models import hiddenweb, lessons, sitesearch, xcrawl  # noqa: F401  (their models belong to this app)
from crawler.models.lessons import SiteLesson
from crawler.models.origins import SiteOrigin
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
    "SiteLesson",
    "SiteOrigin",
    "SiteQuerySet",
    "_validate_http_url",
]
