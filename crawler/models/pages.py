"""Pages a crawler has seen, their stored versions, and the links between them (the web graph)."""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass
from datetime import datetime

from django.db import models
from django.db.models import Case, Q, Value, When
from django.utils import timezone


class PageQuerySet(models.QuerySet["Page"]):
    def unfetched(self) -> PageQuerySet:
        """Pages discovered but never visited: the frontier of new URLs."""
        return self.filter(last_fetched_at__isnull=True)

    def fetched(self) -> PageQuerySet:
        return self.filter(last_fetched_at__isnull=False)

    def due(self, now: datetime) -> PageQuerySet:
        """Known pages whose adaptive revisit time has come."""
        return self.fetched().filter(next_visit_at__lte=now)

    def hubs(self) -> PageQuerySet:
        """Pages that lead to new URLs: seeds, feeds, sitemaps and analyzer-detected hubs."""
        return self.filter(Q(kind=Page.Kind.HUB) | ~Q(role=Page.Role.PAGE))

    def hubs_due(self, now: datetime) -> PageQuerySet:
        """Fetched hubs whose own schedule has come, where news is likeliest first.

        Feeds and sitemaps first (one conditional request says whether anything is new);
        then hubs that gained new links on their last visit, the most first; then by
        measured change rate (new links per day); then the shallowest, the most overdue.
        """
        polled = Case(
            When(role__in=[Page.Role.FEED, Page.Role.SITEMAP], then=Value(0)),
            When(role=Page.Role.SEED, content_type__iregex=XML_TYPES, then=Value(0)),
            default=Value(1),
            output_field=models.IntegerField(),
        )
        return (
            self.hubs()
            .due(now)
            .annotate(polled=polled)
            .order_by(
                "polled",
                models.F("gained_links").desc(),
                models.F("change_rate").desc(nulls_last=True),
                "depth",
                "next_visit_at",
                "id",
            )
        )


# The content types of feeds and sitemaps (RSS, Atom, XML): a seed served as one is polled.
XML_TYPES = r"(xml|rss|atom)"


def is_xml_type(content_type: str) -> bool:
    """Tell whether a stored content type is a feed's or sitemap's."""
    return re.search(XML_TYPES, content_type or "", re.IGNORECASE) is not None


class Page(models.Model):
    """One canonical URL of a site, fetched or only discovered."""

    class Kind(models.TextChoices):
        INFORMATION = "information", "Information page"
        HUB = "hub", "Hub page"

    class Role(models.TextChoices):
        PAGE = "page", "Page"
        SEED = "seed", "Seed"
        FEED = "feed", "RSS/Atom feed"
        SITEMAP = "sitemap", "Sitemap"

    # Indexed as the first column of (site, url) and (site, next_visit_at): an index of its
    # own would only cost every write.
    site = models.ForeignKey(
        "crawler.Site", on_delete=models.CASCADE, related_name="pages", db_index=False
    )
    url = models.CharField(max_length=2083)
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.PAGE)
    depth = models.PositiveSmallIntegerField(default=0, help_text="Links followed from a seed.")
    first_seen_at = models.DateTimeField(default=timezone.now)
    last_fetched_at = models.DateTimeField(
        null=True, blank=True, help_text="Last attempt, successful or not."
    )
    last_changed_at = models.DateTimeField(null=True, blank=True)
    next_visit_at = models.DateTimeField(null=True, blank=True)
    status = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="HTTP status of the last fetch."
    )
    error = models.CharField(
        max_length=300, blank=True, help_text="Why the last fetch failed or was skipped."
    )
    failures = models.PositiveSmallIntegerField(default=0, help_text="Failed fetches in a row.")
    etag = models.CharField(max_length=500, blank=True)
    last_modified = models.CharField(max_length=100, blank=True)
    content_type = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=12, choices=Kind.choices, blank=True)
    title = models.CharField(max_length=500, blank=True)
    listed_published_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When a feed or sitemap listing the page says it was published (a feed "
        "item's date or a news sitemap's; else a sitemap's last modification).",
    )
    fetch_count = models.PositiveIntegerField(default=0)
    change_count = models.PositiveIntegerField(default=0)
    # Recent revisits, oldest first: [seconds since the previous visit, whether it had changed].
    revisit_history = models.JSONField(default=list, blank=True)
    change_rate = models.FloatField(null=True, blank=True, help_text="Estimated changes per day.")
    gained_links = models.PositiveIntegerField(
        default=0, help_text="Links the last visit found that the page did not have before."
    )

    objects = PageQuerySet.as_manager()

    class Meta:
        ordering = ["site", "url"]
        constraints = [
            models.UniqueConstraint(fields=["site", "url"], name="crawler_page_unique_url")
        ]
        indexes = [
            models.Index(
                fields=["site", "depth", "id"],
                condition=Q(last_fetched_at__isnull=True),
                name="crawler_page_frontier",
            ),
            models.Index(fields=["site", "next_visit_at"], name="crawler_page_next_visit"),
        ]

    def __str__(self) -> str:
        return self.url

    def latest_version(self) -> PageVersion | None:
        return self.versions.order_by("-fetched_at", "-id").first()


class PageVersion(models.Model):
    """The content of a page as fetched once; a new row only when the content hash changes."""

    # Indexed as the first column of crawler_version_latest.
    page = models.ForeignKey(
        Page, on_delete=models.CASCADE, related_name="versions", db_index=False
    )
    run = models.ForeignKey(
        "crawler.CrawlRun",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="versions",
    )
    fetched_at = models.DateTimeField(default=timezone.now)
    status = models.PositiveSmallIntegerField(default=200)
    content_hash = models.CharField(max_length=64, help_text="SHA-256 of the stored body.")
    source_hash = models.CharField(
        max_length=64,
        blank=True,
        help_text="SHA-256 of the HTML as served, when the body was rendered from it.",
    )
    content_type = models.CharField(max_length=200, blank=True)
    encoding = models.CharField(max_length=40, blank=True)
    # zlib-compressed body; emptied (None) for versions beyond the retention setting.
    body = models.BinaryField(null=True, blank=True, editable=False)
    body_size = models.PositiveIntegerField(default=0, help_text="Uncompressed bytes.")
    rendered = models.BooleanField(default=False, help_text="Body is the DOM rendered by Chromium.")
    title = models.CharField(max_length=500, blank=True)
    kind = models.CharField(max_length=12, choices=Page.Kind.choices, blank=True)
    has_information = models.BooleanField(
        default=False, help_text="The analyzer found informational areas."
    )
    analysis = models.JSONField(
        default=dict, blank=True, help_text="Summary of the analyzer's result."
    )
    # What clipping reads of an informational version (`ArticleText`, zlib-packed JSON), so
    # the page is analysed once, by the crawler.
    article = models.BinaryField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-fetched_at", "-id"]
        indexes = [
            models.Index(fields=["page", "-fetched_at"], name="crawler_version_latest"),
            # Clipping's sweep for informational versions whose hand-on was lost.
            models.Index(
                fields=["fetched_at"],
                name="crawler_version_informative",
                condition=models.Q(has_information=True),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.page.url} @ {self.fetched_at:%Y-%m-%d %H:%M}"

    def set_body(self, data: bytes, packed: bytes | None = None) -> None:
        """Keep `data` compressed; `packed` is `pack_body(data)` when made already."""
        self.body = packed if packed is not None else pack_body(data)
        self.body_size = len(data)

    def raw_body(self) -> bytes | None:
        """Return the uncompressed body, or None if retention pruned it."""
        if self.body is None:
            return None
        return zlib.decompress(bytes(self.body))

    def article_text(self) -> ArticleText | None:
        """Return what the crawler kept of the page for clipping, None if it kept nothing.

        A hub (a search result page included) makes no clips whatever text it shows.
        """
        if self.kind == Page.Kind.HUB:
            return ArticleText(not_article=HUB_PAGE)
        if self.article is None:
            return None
        return ArticleText.unpack(bytes(self.article))


HUB_PAGE = "A hub page (a list of links to articles), not an article."
SEARCH_PAGE = "A site-search result page, not an article."


@dataclass(frozen=True)
class ArticleArea:
    """One informational area that can make clips (no teaser, not empty)."""

    path: str
    title: str
    text: str


@dataclass(frozen=True)
class ArticleText:
    """What clipping needs of an analysed page: its verdict, text, areas and declared dates."""

    not_article: str = ""  # why the page may not make clips ("" for an article)
    language: str = ""
    title: str = ""
    text: str = ""  # every visible sentence: the ones shown before are not news again
    areas: tuple[ArticleArea, ...] = ()
    published: tuple[datetime, ...] = ()  # declared publication times, most trusted first

    def pack(self) -> bytes:
        """Return an article's text as a version keeps it (zlib-compressed JSON); the verdict
        is the version's kind."""
        data = {
            "language": self.language,
            "title": self.title,
            "text": self.text,
            "areas": [[area.path, area.title, area.text] for area in self.areas],
            "published": [moment.isoformat() for moment in self.published],
        }
        return zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 6)

    @classmethod
    def unpack(cls, packed: bytes) -> ArticleText:
        """Return the text `pack` made."""
        data = json.loads(zlib.decompress(packed))
        return cls(
            language=data["language"],
            title=data["title"],
            text=data["text"],
            areas=tuple(ArticleArea(*area) for area in data["areas"]),
            published=tuple(datetime.fromisoformat(moment) for moment in data["published"]),
        )


def pack_body(data: bytes) -> bytes:
    """Return a body as PageVersion keeps it (zlib)."""
    return zlib.compress(data, 6)


class Link(models.Model):
    """A link from a fetched page, with the analyzer area that holds it."""

    from_page = models.ForeignKey(Page, on_delete=models.CASCADE, related_name="out_links")
    target_url = models.CharField(max_length=2083)
    target_page = models.ForeignKey(
        Page, on_delete=models.SET_NULL, null=True, blank=True, related_name="in_links"
    )
    anchor = models.CharField(max_length=500, blank=True)
    area_path = models.CharField(
        max_length=500, blank=True, help_text="DOM path of the area holding the link."
    )
    area_kind = models.CharField(max_length=12, blank=True)

    def __str__(self) -> str:
        return f"{self.from_page_id} -> {self.target_url}"
