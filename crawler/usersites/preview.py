"""A preview of what the crawler finds at a URL a person gives, before it becomes their site.

A person gives a URL: a home page, a section or a feed. `preview_site` fetches it as a crawl
would (the run's backend, `crawler.run.fetching`: robots.txt, the SSRF guard, size and time
limits, politeness), analyses it (`crawler.extract`), and fetches a few of the articles it
leads to, to show the titles a crawl would clip. It then picks crawl settings that fit the
person's daily page allowance (`quota.plan_for`).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

from django.core.cache import cache
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from crawler.canonical import canonicalize, same_site
from crawler.conf import user_site_settings
from crawler.extract.page import extract
from crawler.fetch import ErrorKind, FetchError, RobotsRules, SiteRules, check_url
from crawler.fetch.policy import url_origin
from crawler.fetch.sync import run_sync
from crawler.fetch.words import error_words
from crawler.models import Site
from crawler.run.fetching import FetchBackend, is_html, looks_like_script_shell
from crawler.sitesearch.detect import find_search_template
from crawler.strategies.base import HUB, INFORMATION
from crawler.usersites.quota import CrawlPlan, SiteRefused, plan_for

TITLES_SHOWN = 5
LINKS_SHOWN = 5
KIND_WORDS = {
    "feed": gettext_lazy("a news feed (RSS or Atom): each item is an article to clip"),
    "sitemap": gettext_lazy("a sitemap: a list of the site's pages"),
    HUB: gettext_lazy("a page of links to articles (a home page or a section)"),
    INFORMATION: gettext_lazy("an article page"),
}


@dataclass
class Preview:
    """What the crawler found at a URL, and how it would crawl the site."""

    url: str
    final_url: str = ""
    error: str = ""  # why the site cannot be added ("" when it can)
    kind: str = ""  # "feed", "sitemap", HUB or INFORMATION
    title: str = ""
    titles: list[str] = field(default_factory=list)  # what a crawl would clip
    feeds: list[str] = field(default_factory=list)
    sitemaps: list[str] = field(default_factory=list)
    search_url: str = ""  # the site's keyword search, with its {query} slot
    needs_browser: bool = False
    robots: str = ""  # the robots.txt verdict in words
    robots_delay: float | None = None  # its Crawl-delay for us, in seconds
    size: int = 0  # the site's pages the preview found: the page and its on-site article links
    existing_id: int | None = None  # the site already watching this origin
    existing_name: str = ""
    plan: CrawlPlan | None = None

    @property
    def kind_words(self) -> str:
        words = KIND_WORDS.get(self.kind)
        return str(words) if words is not None else self.kind or _("unknown")

    def to_dict(self) -> dict[str, Any]:
        """Return the preview as JSON-safe data (kept in the session until it is added)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Preview:
        values = dict(data)
        plan = values.pop("plan", None)
        return cls(**values, plan=CrawlPlan(**plan) if plan else None)


def normalized(url: str) -> str:
    """Return the URL as typed, with https:// when no scheme was given."""
    url = url.strip()
    if url and "://" not in url:
        url = f"https://{url}"
    return url


def candidate(user: Any, url: str) -> Site:
    """Return the unsaved site a person's URL would become (their rules, no private network)."""
    host = (urlsplit(url).hostname or "").lower()
    return Site(
        name=host[:200] or url[:200],
        root_url=url,
        added_by=user,
        allow_private_network=False,
        visibility=Site.Visibility.PRIVATE,
    )


def preview_site(user: Any, url: str) -> Preview:
    """Fetch and analyse `url` as the crawler would; say what a site of it would give."""
    url = normalized(url)
    preview = Preview(url=url, final_url=url)
    origin = url_origin(url)
    if origin is None:
        preview.error = _("This is not a web address (http:// or https://).")
        return preview
    if _mark_existing(preview, origin):
        return preview
    site = candidate(user, url)
    refused = check_url(url, SiteRules.of(site))
    if refused is not None:
        preview.error = refusal_words(refused)
        return preview
    conf = user_site_settings()
    if not spend_preview(user):
        preview.error = _(
            "You asked for %(count)s previews within the hour, the most allowed; try again later."
        ) % {"count": conf.previews_per_hour}
        return preview
    try:
        run_sync(
            asyncio.wait_for(_explore(site, preview, conf.preview_pages), conf.preview_seconds)
        )
    except TimeoutError:
        preview.error = _("The site answered too slowly: a preview may take %(seconds)s s.") % {
            "seconds": f"{conf.preview_seconds:g}"
        }
    if preview.error:
        return preview
    final_origin = url_origin(preview.final_url)
    if final_origin and final_origin != origin and _mark_existing(preview, final_origin):
        return preview
    try:
        preview.plan = plan_for(user, preview)
    except SiteRefused as exc:
        preview.error = str(exc)
    return preview


def spend_preview(user: Any) -> bool:
    """Count one preview against the person's hourly allowance; False when it is spent."""
    key = f"usersites:previews:{user.pk}:{int(time.time() // 3600)}"
    cache.add(key, 0, timeout=3600)
    try:
        spent = cache.incr(key)
    except ValueError:  # the key expired between add and incr
        cache.add(key, 1, timeout=3600)
        spent = 1
    return spent <= user_site_settings().previews_per_hour


def _mark_existing(preview: Preview, origin: str) -> bool:
    found = Site.objects.at_origin(origin)
    if not found:
        return False
    preview.existing_id, preview.existing_name = found[0].id, found[0].name
    return True


async def _explore(site: Site, preview: Preview, samples: int) -> None:
    """Fill the preview from the page, its robots.txt and a few of its articles."""
    backend = FetchBackend(site)
    try:
        robots = await backend.fetcher.robots(preview.url, backend.rules)
        preview.robots = _robots_words(robots, preview.url)
        preview.robots_delay = robots.crawl_delay
        preview.sitemaps = list(robots.sitemaps)[:LINKS_SHOWN]
        fetched = await backend.fetch(preview.url)
        if fetched.error is not None or not fetched.succeeded:
            preview.error = refusal_words(
                fetched.error
                or FetchError(
                    ErrorKind.HTTP,
                    _("the server answered %(status)s") % {"status": fetched.status},
                )
            )
            return
        preview.final_url = fetched.final_url
        extracted = extract(fetched, canonicalize)
        summary_kind = str(extracted.summary.get("kind", ""))
        preview.kind = summary_kind if summary_kind in ("feed", "sitemap") else extracted.kind or ""
        if not preview.kind:
            preview.error = _("Webclip cannot read this page (%(kind)s).") % {
                "kind": summary_kind or _("no content")
            }
            return
        preview.title = extracted.title or ""
        preview.feeds = list(dict.fromkeys(extracted.feeds))[:LINKS_SHOWN]
        preview.sitemaps = list(dict.fromkeys([*preview.sitemaps, *extracted.sitemaps]))[
            :LINKS_SHOWN
        ]
        if is_html(fetched):
            preview.needs_browser = looks_like_script_shell(fetched.body)
            preview.search_url = find_search_template(fetched.body, fetched.final_url) or ""
        titles = _clip_titles(extracted) if preview.kind == INFORMATION else []
        articles = [u for u in _article_links(extracted, fetched.final_url) if u != preview.url]
        preview.size = 1 + len(articles)
        results = await asyncio.gather(*(backend.fetch(u) for u in articles[:samples]))
        for result in results:
            if result.succeeded and is_html(result):
                titles.extend(_clip_titles(extract(result, canonicalize)))
        preview.titles = list(dict.fromkeys(t for t in titles if t))[:TITLES_SHOWN]
    finally:
        await backend.aclose()


def _clip_titles(extracted: Any) -> list[str]:
    """Return the titles of an article page's clippable areas (teasers are not clipped)."""
    analysis = extracted.analysis
    if analysis is None or extracted.kind != INFORMATION:
        return []
    titles = [a.title for a in analysis.informational_areas if not a.teaser and a.text.strip()]
    return [t.strip() for t in titles if t.strip()][:2] or [extracted.title or ""]


def _article_links(extracted: Any, base: str) -> list[str]:
    """Return the on-site links a crawl would take for articles: items, content, teasers,
    then links in no area at all (a small blog's bare list of its posts).

    Links of navigational areas (menus, footers) lead to sections, not articles.
    """
    kinds = ("feed", "sitemap", HUB, INFORMATION)
    urls = [link.url for link in extracted.links if link.area_kind in kinds]
    analysis = extracted.analysis
    if analysis is not None:
        urls += [a.follow_url for a in analysis.informational_areas if a.teaser and a.follow_url]
    urls += [link.url for link in extracted.links if link.area_kind == "other"]
    host = [(urlsplit(base).hostname or "").lower()]
    return [url for url in dict.fromkeys(urls) if url and same_site(url, host)]


def _robots_words(robots: RobotsRules, url: str) -> str:
    if robots.unreachable:
        return _("robots.txt could not be read; crawls wait until it can.")
    if robots.parser is None:
        return _("No robots.txt: crawlers may visit every page.")
    if not robots.allows(url):
        return _("robots.txt asks crawlers to stay away from this page; Webclip obeys it.")
    delay = robots.crawl_delay
    if delay:
        return _("robots.txt allows this page, and asks for %(delay)s s between requests.") % {
            "delay": f"{delay:g}"
        }
    return _("robots.txt allows this page.")


def refusal_words(error: FetchError) -> str:
    """Say why the address gave nothing, in the words every page uses."""
    return error_words(error)
