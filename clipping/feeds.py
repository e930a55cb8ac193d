"""Each user's clips as an Atom feed at a secret URL (the user's feed token; rotating it revokes)."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.db.models import Exists, OuterRef, Prefetch, QuerySet
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from accounts.models import User
from clipping.conf import clipping_settings
from clipping.models import Clip, Match
from clipping.safetext import highlight_html, one_line, output_safe, safe_url


def clips_with_my_matches(user: User, keyword_list: object | None = None) -> QuerySet[Clip]:
    """Return the user's clips (of one of their lists if given), newest first.

    Each clip carries `my_matches`: all of the user's matches of it, whichever list.
    """
    mine = Match.objects.filter(owner=user).select_related("keyword_list").order_by("id")
    if keyword_list is not None:
        if keyword_list.owner_id != user.pk:  # type: ignore[attr-defined]
            return Clip.objects.none()
        # The list alone: "owner and list" reads as rarer than it is (a list's matches are all
        # its owner's), and the planner would then sort every clip of the list.
        clips = Clip.objects.filter(
            Exists(Match.objects.filter(clip=OuterRef("pk"), keyword_list=keyword_list))
        )
    else:
        clips = Clip.objects.for_owner(user)
    return (
        clips.newest_first()
        .select_related("site")
        .prefetch_related(Prefetch("matches", queryset=mine, to_attr="my_matches"))
    )


class SafeAtomFeed(Atom1Feed):
    """Atom that any stored text can go into: refused characters become U+FFFD."""

    def __init__(self, title: str, link: str, description: str, **kwargs: object) -> None:
        super().__init__(output_safe(title), link, output_safe(description or ""), **_safe(kwargs))

    def add_item(self, title: str, link: str, description: str, **kwargs: object) -> None:
        super().add_item(output_safe(title), link, output_safe(description or ""), **_safe(kwargs))


def _safe(values: dict[str, object]) -> dict[str, object]:
    return {k: output_safe(v) if isinstance(v, str) else v for k, v in values.items()}


class ClipFeed(Feed):
    """The newest clips of one user: title, link, highlighted summary, list names."""

    feed_type = SafeAtomFeed

    def get_object(self, request: HttpRequest, token: str) -> User:
        return get_object_or_404(User, feed_token=token, is_active=True)

    def title(self, user: User) -> str:
        return f"{settings.SITE_NAME}: my clips"

    def subtitle(self, user: User) -> str:
        return "Articles that matched your keyword lists."

    def link(self, user: User) -> str:
        return reverse("clip_index")

    def feed_url(self, user: User) -> str:
        return reverse("clip_feed", args=[user.feed_token])

    def items(self, user: User) -> list[Clip]:
        return list(clips_with_my_matches(user)[: clipping_settings().feed_items])

    def item_title(self, clip: Clip) -> str:
        # Atom titles are plain text; the feed generator escapes it as XML.
        return one_line(clip.title, 300) or "(untitled)"

    def item_description(self, clip: Clip) -> str:
        match = clip.my_matches[0]  # type: ignore[attr-defined]
        lists = ", ".join(sorted({m.keyword_list.name for m in clip.my_matches}))  # type: ignore[attr-defined]
        source = f"{clip.host} · {lists}"
        return f"<p>{highlight_html(match.summary, match.spans)}</p><p><small>{highlight_html(source, [])}</small></p>"

    def item_link(self, clip: Clip) -> str:
        return safe_url(clip.url) or settings.SITE_URL + reverse("clip_index")

    def item_guid(self, clip: Clip) -> str:
        # A tag URI (RFC 4151): stable per clip, and no link pretending to be a page.
        return f"tag:{urlsplit(settings.SITE_URL).hostname or 'localhost'},2025:clip:{clip.pk}"

    item_guid_is_permalink = False

    def item_pubdate(self, clip: Clip) -> datetime:
        return clip.shown_at

    def item_updateddate(self, clip: Clip) -> datetime:
        return clip.shown_at
