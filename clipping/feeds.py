"""Each user's clips as an Atom feed at a secret URL (the user's feed token; rotating it revokes)."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.db.models import Exists, OuterRef, Prefetch, QuerySet, Subquery
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext as _
from django.utils.translation import override

from accounts.models import User
from clipping.conf import clipping_settings
from clipping.matching.why import describe
from clipping.models import Clip, KeywordList, Match, Star
from clipping.safetext import highlight_html, one_line, output_safe, safe_url

LIST_FEED_SALT = "clipping.feeds.list_feed_token"


def clips_with_my_matches(user: User, keyword_list: object | None = None) -> QuerySet[Clip]:
    """Return the user's clips (of one of their lists if given), newest found first.

    A clip's time is when the user's lists found it (Match.found_at: a backfill's matches
    carry their page's publication time), the latest of its matches when several lists
    found it; each clip carries it as `found_at`, whether the user starred it as `starred`,
    and `my_matches`: all of the user's matches of it, whichever list, first made first.
    """
    mine = Match.objects.filter(owner=user).select_related("keyword_list").order_by("id")
    if keyword_list is not None:
        if keyword_list.owner_id != user.pk:  # type: ignore[attr-defined]
            return Clip.objects.none()
        # The list alone: "owner and list" reads as rarer than it is (a list's matches are all
        # its owner's), and the planner would then sort every clip of the list.
        matches = Match.objects.filter(clip=OuterRef("pk"), keyword_list=keyword_list)
    else:
        matches = Match.objects.filter(clip=OuterRef("pk"), owner=user)
    found = matches.order_by("-found_at").values("found_at")[:1]
    stars = Star.objects.filter(owner=user, clip=OuterRef("pk"))
    return (
        Clip.objects.filter(Exists(matches))
        .annotate(found_at=Subquery(found), starred=Exists(stars))
        .order_by("-found_at", "-id")
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
    """The newest clips of one user: title, link, highlighted summary, list names.

    Valid Atom (RFC 4287): the feed's id, updated and author (this service), and each entry's
    author (the site the article is from).
    """

    feed_type = SafeAtomFeed

    def __call__(self, request: HttpRequest, *args: object, **kwargs: object):  # noqa: ANN204
        # A feed reader sends no language: the feed speaks its owner's.
        obj = self.get_object(request, *args, **kwargs)
        request.feed_object = obj  # type: ignore[attr-defined]  (read once, see get_object)
        with override(self._owner(obj).language or settings.LANGUAGE_CODE):
            return super().__call__(request, *args, **kwargs)

    def _owner(self, obj: object) -> User:
        return obj  # type: ignore[return-value]

    def get_object(self, request: HttpRequest, token: str) -> User:
        if hasattr(request, "feed_object"):
            return request.feed_object
        return get_object_or_404(User, feed_token=token, is_active=True)

    def title(self, user: User) -> str:
        return _("%(site)s: my clips") % {"site": settings.SITE_NAME}

    def subtitle(self, user: User) -> str:
        return _("Articles that matched your keyword lists.")

    def author_name(self) -> str:
        return settings.SITE_NAME

    def author_link(self) -> str:
        return settings.SITE_URL + "/"

    def item_author_name(self, clip: Clip) -> str:
        return clip.site.name if clip.site_id else clip.host

    def link(self, user: User) -> str:
        return reverse("clip_index")

    def feed_url(self, user: User) -> str:
        return reverse("clip_feed", args=[user.feed_token])

    def items(self, user: User) -> list[Clip]:
        return list(clips_with_my_matches(user)[: clipping_settings().feed_items])

    def item_title(self, clip: Clip) -> str:
        # Atom titles are plain text; the feed generator escapes it as XML.
        return one_line(clip.title, 300) or _("(untitled)")

    def item_description(self, clip: Clip) -> str:
        match = clip.my_matches[0]  # type: ignore[attr-defined]
        lists = ", ".join(sorted({m.keyword_list.name for m in clip.my_matches}))  # type: ignore[attr-defined]
        source = f"{self.item_author_name(clip)} · {lists}"
        why = "; ".join(describe(reason) for reason in match.reasons or [])
        why_html = (
            f"<p><small>{highlight_html(_('Why: %(why)s') % {'why': why}, [])}</small></p>"
            if why
            else ""
        )
        return (
            f"<p>{highlight_html(match.summary, match.spans)}</p>{why_html}"
            f"<p><small>{highlight_html(source, [])}</small></p>"
        )

    def item_link(self, clip: Clip) -> str:
        return safe_url(clip.url) or settings.SITE_URL + reverse("clip_index")

    def item_guid(self, clip: Clip) -> str:
        # A tag URI (RFC 4151): stable per clip, and no link pretending to be a page.
        return f"tag:{urlsplit(settings.SITE_URL).hostname or 'localhost'},2025:clip:{clip.pk}"

    item_guid_is_permalink = False

    def item_pubdate(self, clip: Clip) -> datetime | None:
        # Only what the page declares: a clip of a page that gives no date has no <published>.
        return clip.published_at

    def item_updateddate(self, clip: Clip) -> datetime:
        # When the user's lists found it: the order the feed is in, as on the personal page.
        return clip.found_at  # type: ignore[attr-defined]


class StarredFeed(ClipFeed):
    """The clips one user starred, newest starred first, at the personal feed's secret URL."""

    def title(self, user: User) -> str:
        return _("%(site)s: starred clips") % {"site": settings.SITE_NAME}

    def subtitle(self, user: User) -> str:
        return _("Articles you starred to read again.")

    def link(self, user: User) -> str:
        return reverse("clip_index") + "?starred=1"

    def feed_url(self, user: User) -> str:
        return reverse("starred_feed", args=[user.feed_token])

    def items(self, user: User) -> list[Clip]:
        starred_at = Star.objects.filter(owner=user, clip=OuterRef("pk")).values("created_at")
        clips = (
            clips_with_my_matches(user)
            .filter(starred=True)
            .annotate(starred_at=Subquery(starred_at[:1]))
            .order_by("-starred_at", "-id")
        )
        return list(clips[: clipping_settings().feed_items])


def list_feed_token(keyword_list: KeywordList) -> str:
    """Return the secret of one list's feed URL."""
    # Derived from the owner's feed token: a new personal feed address revokes every list's
    # too, and one list's URL reveals neither the personal feed nor another list's.
    owner_token = keyword_list.owner.feed_token  # type: ignore[attr-defined]
    mac = salted_hmac(LIST_FEED_SALT, f"{owner_token}:{keyword_list.pk}", algorithm="sha256")
    return mac.hexdigest()[:32]


def list_feed_url(keyword_list: KeywordList) -> str:
    """Return the absolute URL of one list's feed."""
    path = reverse("list_feed", args=[keyword_list.pk, list_feed_token(keyword_list)])
    return settings.SITE_URL + path


class ListFeed(ClipFeed):
    """The newest clips of one keyword list, at a secret URL of its own."""

    def get_object(self, request: HttpRequest, pk: int, token: str) -> KeywordList:  # type: ignore[override]
        if hasattr(request, "feed_object"):
            return request.feed_object
        keyword_list = get_object_or_404(
            KeywordList.objects.select_related("owner"), pk=pk, owner__is_active=True
        )
        if not constant_time_compare(token, list_feed_token(keyword_list)):
            raise Http404("No such feed.")
        return keyword_list

    def _owner(self, obj: object) -> User:
        return obj.owner  # type: ignore[attr-defined]

    def title(self, keyword_list: KeywordList) -> str:  # type: ignore[override]
        return f"{settings.SITE_NAME}: {keyword_list.name}"

    def subtitle(self, keyword_list: KeywordList) -> str:  # type: ignore[override]
        return _("Articles that matched the keyword list “%(name)s”.") % {"name": keyword_list.name}

    def link(self, keyword_list: KeywordList) -> str:  # type: ignore[override]
        return reverse("list_detail", args=[keyword_list.pk])

    def feed_url(self, keyword_list: KeywordList) -> str:  # type: ignore[override]
        return reverse("list_feed", args=[keyword_list.pk, list_feed_token(keyword_list)])

    def items(self, keyword_list: KeywordList) -> list[Clip]:  # type: ignore[override]
        owner = keyword_list.owner  # type: ignore[attr-defined]
        clips = list(
            clips_with_my_matches(owner, keyword_list=keyword_list)[
                : clipping_settings().feed_items
            ]
        )
        for clip in clips:
            # This list's match first: its summary and reasons are the ones the entry shows.
            clip.my_matches.sort(key=lambda match: match.keyword_list_id != keyword_list.pk)  # type: ignore[attr-defined]
        return clips
