"""Fetch and analyse one page a person names (“clip this page”), as a crawl would fetch it.

The page goes through the same backend as a person's site preview (`preview.candidate`: their
rules, robots.txt, the SSRF guard, the size and time limits) and through the analysing
processes' caps. Only HTML is read; the whole fetch is held to SINGLE_PAGE_SECONDS.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from analyzer.errors import AnalyzerError
from analyzer.model import PageAnalysis
from crawler.extract.page import analyze_page
from crawler.fetch import ErrorKind, FetchError, SiteRules, check_url
from crawler.fetch.policy import url_origin
from crawler.fetch.result import FetchResult
from crawler.fetch.sync import run_sync
from crawler.run.fetching import FetchBackend, is_html
from crawler.usersites.preview import candidate, normalized, refusal_words

SINGLE_PAGE_SECONDS = 30.0


@dataclass(frozen=True)
class SinglePage:
    """One page fetched and analysed, or why not (`error`)."""

    url: str
    final_url: str = ""
    body: bytes = b""
    encoding: str | None = None
    analysis: PageAnalysis | None = None
    error: str = ""


def fetch_page(user: Any, url: str) -> SinglePage:
    """Fetch `url` for `user` and analyse it; never raises for what the page does."""
    url = normalized(url)
    if url_origin(url) is None:
        return SinglePage(url, error=_("This is not a web address (http:// or https://)."))
    site = candidate(user, url)
    refused = check_url(url, SiteRules.of(site))
    if refused is not None:
        return SinglePage(url, error=refusal_words(refused))
    try:
        fetched = run_sync(asyncio.wait_for(_fetch(site, url), SINGLE_PAGE_SECONDS))
    except TimeoutError:
        return SinglePage(url, error=_("The page took too long to arrive."))
    if fetched.error is not None or not fetched.succeeded:
        error = fetched.error or FetchError(
            ErrorKind.HTTP, _("the server answered %(status)s") % {"status": fetched.status}
        )
        return SinglePage(url, error=refusal_words(error))
    if not is_html(fetched):
        return SinglePage(url, error=_("This is not a web page Webclip can read (HTML)."))
    try:
        analysis = analyze_page(fetched.body, fetched.final_url, fetched.charset)
    except AnalyzerError as exc:
        return SinglePage(url, error=_("Webclip cannot read this page (%(why)s).") % {"why": exc})
    return SinglePage(
        url,
        final_url=fetched.final_url,
        body=fetched.body,
        encoding=fetched.charset,
        analysis=analysis,
    )


async def _fetch(site: Any, url: str) -> FetchResult:
    """Fetch the page (robots.txt and the address checks included)."""
    backend = FetchBackend(site)
    try:
        return await backend.fetch(url)
    finally:
        await backend.aclose()
