"""Turn an analysed page version into clips and matches. Safe to retry; only new text notifies.

The page was analysed once, by the crawler: a version keeps what clipping reads of it
(`crawler.models.pages.ArticleText`: whether it is an article, its text, the areas that can
make clips, its declared publication times), and nothing here parses its body again.

1. Lock the page's SeenText row, so ingests of one page run one at a time; a version older
   than the newest one ingested is ignored.
2. Per informational area (teasers excepted: the article they announce is clipped when it is
   fetched, so the user hears of the article and not of both), cut the text into sentences;
   a sentence the page showed anywhere before, in any version, is old.
3. Match the area against the keyword index. A list counts only if one of its spans lies in
   a new sentence: unchanged text never notifies again, whichever lists exist now.
4. One Clip per version and area (unique), its summary around the first new span, its
   publication time the one the page declares (analyzer.pubdate), else the one the feed or
   sitemap listing the page gives (`Page.listed_published_at`), else none: the clip is
   shown by when it was first seen, and says so (new text on a page ingested before is
   always dated when first seen). A near duplicate of a clip from another page joins that
   clip's story as a duplicate.
5. One Match per list and story (unique): a list that already has the story gets no second.
   A clip published before its owner's news window (`User.news_days`) is no news: its match
   is shown on My clips but never notified (a backfill's goes in the new list's summary).
6. Remember the version's sentence digests; the new matches are returned for the caller to mail.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from django.db import transaction
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q
from django.utils import timezone

from analyzer import summarize
from analyzer.pubdate import trusted_time
from analyzer.text import sentence_spans, tokenize
from clipping import neardup
from clipping.conf import clipping_settings
from clipping.matching.text import MatchedSpan
from clipping.models import Clip, KeywordList, Match, SeenText
from clipping.reasons import record_reasons
from clipping.safetext import one_line
from crawler.models import Page, PageVersion, Site
from crawler.models.lessons import link_for_people
from crawler.models.pages import ArticleArea, ArticleText

if TYPE_CHECKING:
    from clipping.matching import KeywordIndex

TITLE_LIMIT = 300
# How long an informational version may wait for its ingest before the sweep queues it again
# (a long queue delays ingests too: a version queued twice costs one query), and how far back
# the sweep looks.
INGEST_STALLED_AFTER = timedelta(minutes=10)
INGEST_LOOKBACK = timedelta(days=1)
STALLED_BATCH_LIMIT = 5000
NOTHING_KEPT = "Not analysable: the crawler kept no article text of this version."
OLD_NOTE = "Published before your news window: shown on My clips, not notified."

logger = logging.getLogger(__name__)


@dataclass
class IngestResult:
    """What one ingest did."""

    clips: int = 0
    matches: int = 0
    duplicates: int = 0  # clips linked to a story first seen on another page
    repeats: int = 0  # matches not made: the list already had the story
    old: int = 0  # matches of clips published before their owner's news window
    skipped: str = ""  # why nothing was looked at
    match_ids: list[int] = field(default_factory=list)  # the new matches, to be mailed


def ingest_version(version_id: int, *, index: KeywordIndex | None = None) -> IngestResult:
    """Ingest a stored page version from what the crawler kept of it."""
    version = (
        PageVersion.objects.select_related("page__site")
        .defer("body")
        .annotate(pruned=ExpressionWrapper(Q(body__isnull=True), output_field=BooleanField()))
        .filter(id=version_id)
        .first()
    )
    if version is None:
        return IngestResult(skipped="The page version no longer exists.")
    # A replayed hand-on (a crawl taken over after a crash) costs one query.
    if SeenText.objects.filter(page_id=version.page_id, checked_id__gte=version.id).exists():
        return IngestResult(skipped="This version or a newer one was looked at already.")
    if version.pruned:
        return checked(version, IngestResult(skipped="The body was pruned."))
    article = version.article_text()
    if article is None:
        return checked(version, IngestResult(skipped=NOTHING_KEPT))
    return ingest(version, article, index=index)


def checked(version: PageVersion, result: IngestResult) -> IngestResult:
    """Record that `version` was looked at and left, so no sweep hands it on again."""
    SeenText.objects.get_or_create(page_id=version.page_id)
    SeenText.objects.filter(page_id=version.page_id, checked_id__lt=version.id).update(
        checked_id=version.id
    )
    return result


def stalled_versions(now: datetime | None = None) -> list[int]:
    """Return the ids of recent informational versions that nobody looked at, to ingest again.

    A crawl's hand-on can be lost after its versions were committed: the worker died between
    taking the ingest task off the broker and recording it, or the task failed as a whole.
    A version is stalled once it waited INGEST_STALLED_AFTER; versions older than
    INGEST_LOOKBACK are left (their pages' next versions are ingested in any case).
    """
    now = now or timezone.now()
    looked_at = SeenText.objects.filter(page_id=OuterRef("page_id"), checked_id__gte=OuterRef("id"))
    stalled = PageVersion.objects.filter(
        has_information=True,
        fetched_at__gte=now - INGEST_LOOKBACK,
        fetched_at__lt=now - INGEST_STALLED_AFTER,
    ).exclude(Exists(looked_at))
    return list(stalled.order_by("id").values_list("id", flat=True)[:STALLED_BATCH_LIMIT])


def ingest_versions(version_ids: list[int]) -> IngestResult:
    """Ingest several versions, each in its own transaction; return the totals.

    A version that fails is logged and left (its page's next version is ingested anyway);
    the others still count, so their matches are mailed.
    """
    index = keyword_index()
    total = IngestResult()
    reasons: list[str] = []
    for version_id in version_ids:
        try:
            result = ingest_version(version_id, index=index)
        except Exception:
            logger.exception("Ingesting PageVersion %s failed.", version_id)
            reasons.append(f"PageVersion {version_id} failed.")
            continue
        total.clips += result.clips
        total.matches += result.matches
        total.duplicates += result.duplicates
        total.repeats += result.repeats
        total.old += result.old
        total.match_ids.extend(result.match_ids)
        if result.skipped:
            reasons.append(result.skipped)
    total.skipped = "; ".join(dict.fromkeys(reasons))
    return total


def ingest(
    page_version: PageVersion, article: ArticleText, *, index: KeywordIndex | None = None
) -> IngestResult:
    """Write the clips and matches of the new text of one analysed page version."""
    page = page_version.page
    if article.not_article:
        return checked(page_version, IngestResult(skipped=article.not_article))
    index = index if index is not None else keyword_index()
    result = IngestResult()
    with transaction.atomic():
        SeenText.objects.get_or_create(page=page)
        seen = SeenText.objects.select_for_update().get(page=page)
        if page_version.id < seen.version_id:
            return IngestResult(skipped="A newer version was ingested already.")
        known = seen.digest_set()
        revision = seen.version_id > 0  # the page was ingested before: its new text is new now
        # Every sentence visible on the page counts as seen, not only those inside areas:
        # area boundaries may shift between versions while the text stays the same.
        digests = [digest for _, _, digest in sentences(article.text, article.language)]
        for area in article.areas:
            headed, body_from = with_headline(area, article)
            fresh = []
            for start, end, digest in sentences(area.text, article.language):
                digests.append(digest)
                if digest not in known:
                    fresh.append((body_from + start, body_from + end))
            head = sentence_digest(headed.text[:body_from])
            if head is not None:
                digests.append(head)
                # A page ingested before shows its headline as new only beside new text.
                if head not in known and (fresh or not revision):
                    fresh.insert(0, (0, body_from))
            if fresh:
                # A term repeated all over the area still keeps its spans in the new text.
                found = index.match(headed.text, host=urlsplit(page.url).hostname, new_text=fresh)
                clip_area(
                    page_version,
                    article,
                    headed,
                    new_spans(found, fresh),
                    result,
                    revision=revision,
                    body_from=body_from,
                )
        seen.remember(digests)
        seen.version_id = max(seen.version_id, page_version.id)
        seen.checked_id = max(seen.checked_id, page_version.id)
        seen.save()
        record_reasons(result.match_ids)
    return result


def sentences(text: str, language: str) -> list[tuple[int, int, bytes]]:
    """Return (start, end, digest) of each sentence with words; sentences never cross a line."""
    found = []
    offset = 0
    for line in text.splitlines(keepends=True):
        for start, end in sentence_spans(line, language) or [(0, len(line))]:
            digest = sentence_digest(line[start:end])
            if digest is not None:
                found.append((offset + start, offset + end, digest))
        offset += len(line)
    return found


def sentence_digest(sentence: str) -> bytes | None:
    """Return an 8-byte digest of a sentence's words (case and spacing ignored), None if none."""
    words = tokenize(sentence)
    if not words:
        return None
    return hashlib.blake2b(" ".join(words).encode(), digest_size=8).digest()


def new_spans(
    found: dict[int, list[MatchedSpan]], fresh: list[tuple[int, int]]
) -> dict[int, tuple[list[MatchedSpan], list[MatchedSpan]]]:
    """Keep the lists with a span in a new sentence: {list: (new spans, all spans)}."""
    kept = {}
    for list_id, spans in found.items():
        new = [s for s in spans if any(s.start < end and start < s.end for start, end in fresh)]
        if new:
            kept[list_id] = (new, spans)
    return kept


def with_headline(area: ArticleArea, article: ArticleText) -> tuple[ArticleArea, int]:
    """Return the area with its headline as its first line, and where its own text starts.

    The headline is matched with the text (its words are often said only there: "Rail strike
    halts trains" over a body that says "the strike"); an area whose text already starts
    with it is returned as it is, with 0.
    """
    head = one_line(area.title or article.title, TITLE_LIMIT)
    if not head or area.text.lstrip().startswith(head):
        return area, 0
    return ArticleArea(area.path, area.title, f"{head}\n\n{area.text}"), len(head) + 2


def keyword_index() -> KeywordIndex:
    """Return the shared index of every active list (kept current by clipping.matching)."""
    from clipping.matching.live import current_index  # the matching module imports models

    return current_index()


def clip_area(
    version: PageVersion,
    article: ArticleText,
    area: ArticleArea,
    found: dict[int, tuple[list[MatchedSpan], list[MatchedSpan]]],
    result: IngestResult,
    *,
    revision: bool = False,
    backfill: bool = False,
    body_from: int = 0,
) -> None:
    """Write the clip of one area and one match per list that does not have its story yet.

    found: list id -> (its spans in new sentences, all its spans).
    revision: the version changes a page ingested before, so its new text dates from now,
    not from the publication time the page declares.
    backfill: a new list's look at pages already crawled: its matches of old clips are kept
    pending for the list's summary instead of being settled unsent.
    body_from: where the area's own text starts after its headline (with_headline).
    """
    rows = KeywordList.objects.active().filter(id__in=found)
    lists_of = list(rows.values_list("id", "owner_id", "owner__news_days"))
    owners = audience_only({row[0]: row[1] for row in lists_of}, version.page.site_id)
    news_days = {owner_id: days for _, owner_id, days in lists_of}
    if not owners:
        return
    lists = sorted(owners)
    clip = _write_clip(
        version,
        article,
        (area, body_from),
        [found[list_id] for list_id in lists],
        result,
        revision=revision,
    )
    now = timezone.now()
    for list_id in lists:
        owner_id = owners[list_id]
        since = now - timedelta(days=news_days[owner_id])
        old = clip.published_at is not None and clip.published_at < since
        _write_match(
            clip,
            (list_id, owner_id),
            found[list_id],
            (area.text, article.language, body_from),
            result,
            old="backfill" if old and backfill else old,
        )


def audience_only(owners: dict[int, int], site_id: int | None) -> dict[int, int]:
    """Keep the lists whose owners may see the site: a person's private site is theirs alone."""
    audience = Site.objects.audience(site_id)
    if audience is None:
        return owners
    return {list_id: owner for list_id, owner in owners.items() if owner in audience}


def _write_clip(
    version: PageVersion,
    article: ArticleText,
    headed: tuple[ArticleArea, int],
    found: list[tuple[list[MatchedSpan], list[MatchedSpan]]],
    result: IngestResult,
    *,
    revision: bool,
) -> Clip:
    """Return the area's clip, written once; a near duplicate joins its original's story.

    headed: the area with its headline first, and where its own text starts.
    """
    area, body_from = headed
    language = article.language
    first = min((_center(new, body_from) for new, _ in found), key=lambda s: (s.start, s.end))
    every = [span for _, spans in found for span in spans]
    summary, marks = _window(area.text, first, every, (language, body_from))
    print_ = neardup.fingerprint(area.text[body_from:])
    original = None
    if print_ is not None:
        original = neardup.find_original(
            print_,
            threshold=clipping_settings().duplicate_threshold,
            exclude_page_id=version.page_id,
        )
    page = version.page
    clip, created = Clip.objects.get_or_create(
        page_version=version,
        area_path=area.path[:500],
        defaults={
            "site_id": page.site_id,
            "page_id": page.id,
            "url": link_for_people(page.url, page.site_id),
            "host": urlsplit(page.url).hostname or "",
            "title": one_line(area.title or article.title or summary, TITLE_LIMIT),
            "summary": summary,
            "spans": marks,
            "language": language[:8],
            "seen_at": version.fetched_at,
            "published_at": None if revision else _published(article, page, version),
            "fingerprint": print_.to_bytes() if print_ is not None else None,
            "duplicate_of": original,
        },
    )
    if created:
        result.clips += 1
        result.duplicates += original is not None
        if print_ is not None:
            neardup.store_bands(clip, print_)
    return clip


def _published(article: ArticleText, page: Page, version: PageVersion) -> datetime | None:
    """Return when the article says it was published, else when the feed or sitemap that
    listed its page says so, else None (the clip is then dated by when it was first seen)."""
    listed = (page.listed_published_at,) if page.listed_published_at else ()
    return trusted_time((*article.published, *listed), seen_at=version.fetched_at)


def _write_match(
    clip: Clip,
    owned: tuple[int, int],
    found: tuple[list[MatchedSpan], list[MatchedSpan]],
    area: tuple[str, str],
    result: IngestResult,
    *,
    old: bool | str = False,
) -> None:
    """Write one list's match of the clip's story, unless the list has that story already.

    owned: the list's id and its owner's. area: the area's text, language and where its own
    text starts after its headline, for the list's own summary. old: the clip was published before the owner's news window: the
    match is settled unsent, or with "backfill" left pending for the new list's summary.
    """
    list_id, owner_id = owned
    new, spans = found
    text, language, body_from = area
    summary, marks = _window(text, _center(new, body_from), spans, (language, body_from))
    defaults: dict[str, object] = {
        "owner_id": owner_id,
        "clip": clip,
        "summary": summary,
        "spans": marks,
        "old": bool(old),
    }
    if old is True:
        defaults["mail_status"] = Match.MailStatus.SKIPPED
        defaults["mail_note"] = OLD_NOTE
    match, made = Match.objects.get_or_create(
        keyword_list_id=list_id, story_id=clip.duplicate_of_id or clip.id, defaults=defaults
    )
    if not made:
        result.repeats += 1
        return
    result.matches += 1
    result.old += bool(old)
    if old is not True:
        result.match_ids.append(match.id)


def _center(new: list[MatchedSpan], body_from: int) -> MatchedSpan:
    """Return the span a summary is centred on: the first in the text, else in the headline."""
    return next((span for span in new if span.start >= body_from), new[0])


def _window(
    text: str, center: MatchedSpan, spans: list[MatchedSpan], where: tuple[str, int]
) -> tuple[str, list[list[object]]]:
    """Return the summary around center and the [start, end, term] of spans shown in it.

    where: the text's language, and where its own text starts after its headline. A term
    found only in the headline is shown in it: the headline is the summary.
    """
    language, body_from = where
    if center.start < body_from:
        head = text[:body_from].rstrip()
        marks = [[s.start, s.end, s.term] for s in spans if s.end <= len(head)]
        return head, sorted(marks, key=lambda mark: (mark[0], mark[1]))  # type: ignore[arg-type]
    if body_from:
        text = text[body_from:]
        center = MatchedSpan(center.start - body_from, center.end - body_from, center.term)
        spans = [
            MatchedSpan(s.start - body_from, s.end - body_from, s.term)
            for s in spans
            if s.start >= body_from
        ]
    summary, (start, end) = summarize(text, center.start, center.end, language)
    marks: list[list[object]] = [[start, end, center.term]]
    for span in spans:
        if (span.start, span.end) == (center.start, center.end):
            continue
        other, (other_start, other_end) = summarize(text, span.start, span.end, language)
        if other == summary:  # the same three sentences: the span is visible in this summary
            marks.append([other_start, other_end, span.term])
    marks.sort(key=lambda mark: (mark[0], mark[1]))  # type: ignore[return-value]
    return summary, marks
