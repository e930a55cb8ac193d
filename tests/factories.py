"""Model builders for tests: users, sites, crawl runs, page versions, keyword lists, clips, matches.

Each builder takes explicit values with plain defaults and writes to the test database.
"""

from __future__ import annotations

import contextlib
import hashlib
from datetime import datetime, timedelta

from django.utils import timezone

from analyzer import AnalyzerError, PageAnalysis, analyze
from clipping.ingest import IngestResult, ingest
from clipping.matching import KeywordIndex, current_index
from clipping.matching.live import refresh_index
from clipping.models import Clip, KeywordList, Match
from crawler.extract.extracted import judged
from crawler.extract.page import from_analysis
from crawler.models import CrawlRun, Page, PageVersion, Site
from crawler.models.pages import ArticleText

PASSWORD = "correct-horse-battery-9"


def make_user(email: str, *, verified: bool = True, password: str = PASSWORD, **extra: object):
    """Create a user who logs in with `email` (verified unless told) and `password`."""
    from allauth.account.models import EmailAddress

    from accounts.models import User

    user = User.objects.create_user(email=email, password=password, **extra)
    EmailAddress.objects.create(user=user, email=email, primary=True, verified=verified)
    return user


def make_site(name: str = "Daily Example", root: str = "https://news.example.com/") -> Site:
    """Create a monitored site that no test server answers for."""
    return Site.objects.create(name=name, root_url=root)


def make_run(site: Site, *, hours_ago: float, finished: bool = True, **counters: int) -> CrawlRun:
    """Create a crawl run of a site that started some hours ago, with the counters given."""
    started = timezone.now() - timedelta(hours=hours_ago)
    return CrawlRun.objects.create(
        site=site,
        strategy=site.strategy,
        status=CrawlRun.Status.FINISHED if finished else CrawlRun.Status.RUNNING,
        started_at=started,
        heartbeat_at=started + timedelta(minutes=5) if finished else timezone.now(),
        finished_at=started + timedelta(minutes=10) if finished else None,
        page_budget=site.page_budget,
        **counters,
    )


def make_list(owner, name: str, terms: str, **extra: object) -> KeywordList:
    """Create a keyword list of `owner`'s."""
    return KeywordList.objects.create(owner=owner, name=name, terms=terms, **extra)


def active_index() -> KeywordIndex:
    """Return the process's shared index of the active lists, brought up to date now."""
    refresh_index()
    return current_index()


def store_version(
    site: Site,
    url: str,
    html: str,
    *,
    fetched_at: datetime | None = None,
    content_type: str = "text/html; charset=utf-8",
    has_information: bool = True,
) -> PageVersion:
    """Store a fetched page version the way the crawler does (compressed body, hash)."""
    page, _ = Page.objects.get_or_create(site=site, url=url)
    body = html.encode()
    version = PageVersion(
        page=page,
        content_hash=hashlib.sha256(body).hexdigest(),
        content_type=content_type,
        fetched_at=fetched_at or timezone.now(),
        has_information=has_information,
    )
    version.set_body(body)
    if has_information:
        with contextlib.suppress(AnalyzerError):  # nothing is kept of a page not analysable
            version.article = kept(analyze(body, url), version).pack()
    version.save()
    return version


def kept(analysis: PageAnalysis, version: PageVersion) -> ArticleText:
    """Return what the crawler keeps for clipping of a page analysed as `analysis`."""
    extracted = from_analysis(analysis, lambda url: url)
    extracted.has_information = True  # kept for every page handed on to clipping
    article = judged(extracted, version.page.site_id, version.page.url).article
    assert article is not None
    return article


def ingest_html(site: Site, url: str, html: str, **kwargs: object) -> IngestResult:
    """Store a version of a page, analyse it with the real analyzer and ingest it."""
    version = store_version(site, url, html)
    return ingest(version, kept(analyze(html, url), version), index=active_index(), **kwargs)


def make_clip(
    site: Site | None = None,
    *,
    title: str = "Council backs solar subsidies",
    url: str = "https://news.example.com/news/solar",
    summary: str = "The council gives households solar subsidies for panels. Officials agreed.",
    seen_at: datetime | None = None,
) -> Clip:
    """Create a clip directly (ingest has its own tests)."""
    return Clip.objects.create(
        site=site,
        url=url,
        host="news.example.com",
        area_path="html/body/article[1]",
        title=title,
        summary=summary,
        spans=[],
        language="en",
        seen_at=seen_at or timezone.now(),
    )


def make_match(
    keyword_list: KeywordList,
    clip: Clip | None = None,
    *,
    term: str = "subsidies",
    **clip_fields: object,
) -> Match:
    """Create a match of a clip for a list, with the term highlighted in its summary."""
    clip = clip or make_clip(**clip_fields)
    start = clip.summary.find(term)
    spans = [[start, start + len(term), term]] if start >= 0 else []
    return Match.objects.create(
        owner=keyword_list.owner,
        keyword_list=keyword_list,
        clip=clip,
        story=clip,
        summary=clip.summary,
        spans=spans,
        found_at=clip.seen_at,  # found when the clip was seen, as ingest does
    )
