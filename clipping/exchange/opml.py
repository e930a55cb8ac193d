"""Sites as OPML: out, the sites a person follows or their clips come from; in, a feed
reader's export, read with listparser, whose feeds the person then follows or adds through the
Sites page's flow (`crawler.usersites.follow.add_site`)."""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime

import listparser
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.xmlutils import SimplerXMLGenerator

from accounts.models import User
from clipping.exchange.lists import ExchangeError
from clipping.models import Clip
from crawler.fetch.policy import url_origin
from crawler.models import Page, Site
from crawler.usersites.follow import add_site
from crawler.usersites.quota import SiteRefused

MAX_FOLLOWS = 50  # feeds of an OPML file followed in one request
MAX_FEEDS = 500  # feeds one OPML file may name: each is looked up and listed


@dataclass(frozen=True)
class FeedEntry:
    """One feed an OPML file names."""

    url: str
    title: str
    categories: tuple[str, ...] = ()


def sites_of(user: User) -> QuerySet[Site]:
    """Return the sites the user follows or their clips come from, by name."""
    mine = Clip.objects.for_owner(user).filter(site=OuterRef("pk"))
    followed = Site.objects.followed_by(user).filter(pk=OuterRef("pk"))
    return Site.objects.filter(Exists(mine) | Exists(followed)).order_by("name", "id")


_FEED_TYPES = Q(content_type__icontains="rss") | Q(content_type__icontains="atom")


def feed_url_of(site: Site) -> str:
    """Return the site's feed: one its seeds name (a person's site is seeded with the feeds its
    preview found), else the first the crawler found (a feed link, or a page served as RSS or
    Atom); the root URL only when the site has no known feed."""
    seeds = [url for url in site.seeds() if url != site.root_url]
    feeds = list(
        Page.objects.filter(site=site)
        .filter(Q(role=Page.Role.FEED) | _FEED_TYPES)
        .order_by("id")
        .values_list("url", flat=True)[:50]
    )
    declared = [url for url in seeds if url in feeds]
    if declared or feeds:
        return (declared or feeds)[0]
    if site.added_by_id is not None and seeds:
        return seeds[0]
    return site.root_url


def sites_opml(user: User, title: str) -> str:
    """Return OPML 2.0 naming the sites the user's clips come from, each with a feed URL."""
    out = io.StringIO()
    xml = SimplerXMLGenerator(out, "utf-8")
    xml.startDocument()
    xml.startElement("opml", {"version": "2.0"})
    xml.startElement("head", {})
    xml.addQuickElement("title", title)
    xml.addQuickElement("dateCreated", _rfc822(timezone.now()))
    xml.endElement("head")
    xml.startElement("body", {})
    for site in sites_of(user):
        xml.addQuickElement(
            "outline",
            attrs={
                "type": "rss",
                "text": site.name,
                "title": site.name,
                "xmlUrl": feed_url_of(site),
                "htmlUrl": site.root_url,
            },
        )
    xml.endElement("body")
    xml.endElement("opml")
    xml.endDocument()
    return out.getvalue() + "\n"


def _rfc822(moment: datetime) -> str:
    return format_datetime(moment.astimezone(UTC))


def read_opml(data: bytes) -> list[FeedEntry]:
    """Return the http(s) feeds an OPML file names, once each, in the file's order."""
    # Bytes, never a string: listparser fetches a string that looks like a URL.
    parsed = listparser.parse(bytes(data))
    if not parsed.feeds and (parsed.bozo or not parsed.version):
        raise ExchangeError(_("Not an OPML subscription list."))
    found: dict[str, FeedEntry] = {}
    for feed in parsed.feeds:
        url = (feed.get("url") or "").strip()
        if not url.startswith(("http://", "https://")) or url in found:
            continue
        if len(found) >= MAX_FEEDS:
            raise ExchangeError(_("At most %(count)s feeds per file.") % {"count": MAX_FEEDS})
        categories = tuple("/".join(path) for path in feed.get("categories") or ())
        found[url] = FeedEntry(url, (feed.get("title") or "").strip(), categories)
    return list(found.values())


@dataclass(frozen=True)
class FeedRow:
    """A feed of an OPML file as the import page shows it."""

    feed: FeedEntry
    site: Site | None  # the site already watching the feed's origin, if the person may see it
    watched: bool  # some site watches the origin: adding it follows that site
    following: bool  # the person follows that site already


def feed_rows(user: User, feeds: list[FeedEntry]) -> list[FeedRow]:
    """Return, for each feed, the site already watching its origin and whether I follow it."""
    followed = set(Site.objects.followed_by(user).values_list("id", flat=True))
    watchers: dict[str | None, list[Site]] = {}
    rows = []
    for feed in feeds:
        origin = url_origin(feed.url)
        if origin not in watchers:
            watchers[origin] = Site.objects.at_origin(origin) if origin else []
        site = next(iter(watchers[origin]), None)
        shown = site is not None and (
            site.visibility == Site.Visibility.SHARED or site.pk in followed
        )
        rows.append(
            FeedRow(
                feed,
                site if shown else None,
                site is not None,
                site is not None and site.pk in followed,
            )
        )
    return rows


@dataclass(frozen=True)
class FollowResult:
    url: str
    message: str
    added: bool


def follow_feeds(user: User, urls: Iterable[str]) -> list[FollowResult]:
    """Hand each feed URL to the Sites page's flow: follow the site watching it, or add one.

    A new site is fetched and previewed first (`add_site`), so each takes seconds;
    the person's site quota ends the run early with its reason on every later URL.
    """
    results = []
    for url in list(dict.fromkeys(urls))[:MAX_FOLLOWS]:
        try:
            added = add_site(user, url)
        except SiteRefused as exc:
            results.append(FollowResult(url, str(exc), False))
        else:
            results.append(FollowResult(url, added.message, not added.already))
    return results
