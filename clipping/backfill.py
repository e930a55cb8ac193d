"""Match a new or edited keyword list against the pages crawled recently.

A list saved today would otherwise wait for the next new article. Instead, when a list is
created, reactivated or its terms change, the newest version of every page fetched in the
last CLIPPING_BACKFILL_DAYS days is matched against that one list, newest first:

- pages the list already matched are left alone (their story reached the owner once; a
  newer version of the same text must not notify again);
- at most CLIPPING_BACKFILL_MAX_PAGES pages are read (from what the crawler kept of each) and at most
  CLIPPING_BACKFILL_MAX_MATCHES matches made, so a broad list does not flood a mailbox;
- clips and matches are the ones ingest makes (same unique keys, same duplicate rules), so
  a backfill that runs twice, or alongside the crawler's ingest, makes nothing twice;
- it runs once every worker's keyword index has picked the list up (the refresh interval
  plus a margin: `clipping.tasks.request_backfill`), so pages ingested in between with an
  index that lacked the list are covered too.

Whoever saves a list asks `needs_backfill` whether to request one. The new matches are
returned and published like any other (instant mail or the next digest).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from urllib.parse import urlsplit

from django.db import transaction
from django.db.models import F, Max, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce, Least
from django.utils import timezone

from clipping.conf import clipping_settings
from clipping.ingest import IngestResult, clip_area, with_headline
from clipping.matching import KeywordIndex, compile_text
from clipping.models import Clip, KeywordList, Match
from clipping.reasons import record_reasons
from clipping.terms import TermSyntaxError
from crawler.models import PageVersion, Site

log = logging.getLogger(__name__)

# The list fields that change what a list matches: an edit touching only others (name, mail
# switch) does not backfill.
MATCHING_FIELDS = ("active", "terms", "language", "use_synonyms", "match_all", "synonym_choices")


def backfill_list(list_id: int) -> IngestResult:
    """Match the recent pages against one list; return what was made."""
    conf = clipping_settings()
    days = conf.backfill_days
    max_pages = conf.backfill_max_pages
    max_matches = conf.backfill_max_matches
    result = IngestResult()
    if days <= 0 or max_pages <= 0 or max_matches <= 0:
        result.skipped = "Backfill is off."
        return result
    keyword_list = KeywordList.objects.active().filter(id=list_id).first()
    if keyword_list is None:
        result.skipped = "The list is inactive or gone."
        return result
    try:
        compiled = compile_text(
            keyword_list.id,
            keyword_list.terms,
            keyword_list.language,
            keyword_list.use_synonyms,
            keyword_list.match_all,
            keyword_list.synonym_choices,
        )
    except TermSyntaxError as exc:
        result.skipped = f"The list does not parse: {exc}"
        return result
    index = KeywordIndex.build([compiled])
    for version in _recent_versions(list_id, timezone.now() - timedelta(days=days), max_pages):
        article = version.article_text()
        if article is None or article.not_article:
            continue
        host = urlsplit(version.page.url).hostname
        with transaction.atomic():
            made = len(result.match_ids)
            for area in article.areas:
                headed, body_from = with_headline(area, article)
                spans = index.match(headed.text, host=host).get(list_id)
                if spans:
                    found = {list_id: (spans, spans)}
                    clip_area(
                        version, article, headed, found, result, backfill=True, body_from=body_from
                    )
            found_when_published(result.match_ids[made:])
            record_reasons(result.match_ids[made:])
        if len(result.match_ids) >= max_matches:
            break
    log.info("Backfill of list %s: %s clips, %s matches", list_id, result.clips, result.matches)
    return result


def split_news(match_ids: list[int], list_id: int) -> tuple[list[int], list[int]]:
    """Split a backfill's matches into (found in pages crawled before the list was saved,
    news): pages fetched after the save were only missed because a worker's index did not
    have the list yet, and come one by one as any news does, not in the summary, unless they
    were published before the owner's news window (`Match.old`)."""
    saved = KeywordList.objects.filter(id=list_id).values_list("updated_at", flat=True).first()
    if saved is None or not match_ids:
        return list(match_ids), []
    news = set(
        Match.objects.filter(
            id__in=match_ids, clip__page_version__fetched_at__gte=saved, old=False
        ).values_list("id", flat=True)
    )
    return [i for i in match_ids if i not in news], [i for i in match_ids if i in news]


def found_when_published(match_ids: list[int]) -> None:
    """Date a backfill's matches by their page's publication: they sit among the clips of
    that time on the personal page, in the feed and in digests, not on top of newer ones."""
    published = Clip.objects.filter(id=OuterRef("clip_id")).values("published_at")[:1]
    Match.objects.filter(id__in=match_ids).update(
        found_at=Least(Coalesce(Subquery(published), F("found_at")), F("found_at"))
    )


def _recent_versions(list_id: int, since, limit: int) -> list[PageVersion]:
    """Return the newest version of each page fetched since `since`, not matched yet, if it
    was handed on to clipping (it has informational areas)."""
    matched_pages = Match.objects.filter(keyword_list_id=list_id).values("clip__page_id")
    latest = (
        PageVersion.objects.filter(fetched_at__gte=since, page__site__in=_visible_sites(list_id))
        .exclude(page_id__in=matched_pages)
        .values("page_id")
        .annotate(latest=Max("id"))
        .values("latest")
    )
    return list(
        # Only what the crawler handed on: feeds, sitemaps and pages without informational
        # areas are never clipped.
        PageVersion.objects.filter(id__in=latest, has_information=True)
        .defer("body")
        .select_related("page__site")
        .order_by("-fetched_at", "-id")[:limit]
    )


def _visible_sites(list_id: int) -> QuerySet[Site]:
    """Return the sites whose pages the list's owner may be shown: the pool and their own."""
    owner = KeywordList.objects.filter(id=list_id).values("owner_id")
    return Site.objects.filter(Q(visibility=Site.Visibility.SHARED) | Q(subscribers__in=owner))


def matching_state(keyword_list: KeywordList) -> tuple:
    """Return the values that decide what a list matches, to compare before and after an edit."""
    return tuple(getattr(keyword_list, name) for name in MATCHING_FIELDS)


def needs_backfill(before: tuple | None, keyword_list: KeywordList) -> bool:
    """Tell whether a saved list may match pages it did not: new or changed, and active.

    before: the list's `matching_state` as it was read, None for a list just created.
    """
    return keyword_list.active and before != matching_state(keyword_list)
