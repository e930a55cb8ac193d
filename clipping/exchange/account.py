"""A whole account as one JSON document: preferences, lists, sites, and every clip with the
matches of each list; written piece by piece, so a heavy reader's clips never sit in memory."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone

from accounts.models import User
from clipping.exchange.lists import FORMAT_VERSION, ListRecord
from clipping.exchange.opml import feed_url_of, sites_of
from clipping.models import KeywordList, Match

ACCOUNT_FORMAT = "webclip-account"


def account_document(user: User) -> Iterator[str]:
    """Yield, piece by piece, one JSON document of the user's lists, sites and clips."""
    encoder = DjangoJSONEncoder(ensure_ascii=False)
    head = {
        "format": ACCOUNT_FORMAT,
        "version": FORMAT_VERSION,
        "exported_at": timezone.now(),
        "account": {
            "email": user.email,
            "delivery_mode": user.delivery_mode,
            "digest_hour": user.digest_hour,
            "digest_weekday": user.digest_weekday,
            "time_zone": user.time_zone,
            "mail_paused": user.mail_paused,
        },
        "lists": [ListRecord.of(item).as_dict() for item in KeywordList.objects.owned_by(user)],
        "sites": [
            {"name": site.name, "url": site.root_url, "feed": feed_url_of(site)}
            for site in sites_of(user)
        ],
    }
    yield encoder.encode(head)[:-1] + ', "clips": ['
    for number, clip in enumerate(_clips_with_matches(user)):
        yield ("," if number else "") + "\n" + encoder.encode(clip)
    yield "\n]}\n"


def _clips_with_matches(user: User) -> Iterator[dict[str, Any]]:
    """Yield each of the user's clips once, with every match of the user's."""
    matches = (
        Match.objects.owned_by(user)
        .select_related("clip__site", "keyword_list")
        .order_by("clip_id", "id")
    )
    clip: dict[str, Any] | None = None
    for match in matches.iterator(chunk_size=500):
        if clip is None or clip["id"] != match.clip_id:
            if clip is not None:
                yield clip
            clip = {
                "id": match.clip_id,
                "title": match.clip.title,
                "url": match.clip.url,
                "site": match.clip.site.name if match.clip.site else None,
                "published_at": match.clip.published_at,
                "seen_at": match.clip.seen_at,
                "matches": [],
            }
        clip["matches"].append(
            {
                "list": match.keyword_list.name,
                "summary": match.summary,
                "found_at": match.found_at,
                "read_at": match.read_at,
                "mail_status": match.mail_status,
            }
        )
    if clip is not None:
        yield clip
