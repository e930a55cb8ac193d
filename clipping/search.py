"""Search over a person's clips: the words of title and text, the site's name, the list's name.

Used by the My clips page and the API's `q` parameter alike.
"""

from __future__ import annotations

import re

from django.db import connection
from django.db.models import BooleanField, Exists, OuterRef, Q, QuerySet
from django.db.models.expressions import RawSQL

from clipping.models import Clip, Match

# The words of title and summary, a column PostgreSQL generates (migration 0006), GIN-indexed.
CLIP_TEXT = '"clipping_clip"."search_words"'
SEARCH_WORD = re.compile(r"[^\W_]+")
SEARCH_WORDS = 8
MAX_QUERY = 200


def clean_query(raw: str | None) -> str:
    """Return the query as searched: spaces collapsed, at most MAX_QUERY characters."""
    return " ".join((raw or "").split())[:MAX_QUERY]


def search(clips: QuerySet[Clip], query: str, user: object) -> QuerySet[Clip]:
    """Keep the clips whose words, site or list (one of the user's) answer the query.

    Words: every word of the query is a word (or word prefix) of the title or text; on
    PostgreSQL through the GIN index of migration 0006 (full-text, "simple" configuration),
    elsewhere as a case-insensitive substring of title, summary or the user's match summary.
    Site and list: the whole query is part of the site's name or host, or of the name of one of
    the user's lists that found the clip.
    """
    query = clean_query(query)
    if not query:
        return clips
    by_list = Match.objects.filter(
        clip=OuterRef("pk"), owner=user, keyword_list__name__icontains=query
    )
    named = Q(site__name__icontains=query) | Q(host__icontains=query) | Exists(by_list)
    return clips.filter(_words(query, user) | named)


def _words(query: str, user: object) -> Q:
    if connection.vendor != "postgresql":
        in_my_summaries = Match.objects.filter(
            clip=OuterRef("pk"), owner=user, summary__icontains=query
        )
        return Q(title__icontains=query) | Q(summary__icontains=query) | Exists(in_my_summaries)
    words = [word.lower() for word in SEARCH_WORD.findall(query)][:SEARCH_WORDS]
    if not words:
        return Q(pk__in=[])
    # Only letters and digits reach the tsquery, so no operator of the user's can.
    tsquery = " & ".join(f"{word}:*" for word in words)
    # The SQL is a constant naming the indexed column; the user's words are a parameter.
    matches = RawSQL(  # noqa: S611
        f"{CLIP_TEXT} @@ to_tsquery('simple'::regconfig, %s)", [tsquery], BooleanField()
    )
    return Q(matches)
