"""The REST API of clips and mail deliveries: every object is the caller's own.

An id of someone else's clip or delivery answers 404, as a missing one does.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from ninja import Field, Query, Router, Schema

from accounts.models import User
from base.api import PageIn, page_of, page_schema, responses
from clipping.feeds import clips_with_my_matches
from clipping.models import Clip, Delivery, KeywordList, Match, Star
from clipping.search import search

router = Router()


class ClipOut(Schema):
    id: int
    title: str
    url: str
    host: str
    site_id: int | None
    published_at: datetime | None
    seen_at: datetime
    found_at: datetime | None
    lists: list[int] = Field(description="Ids of the caller's lists that matched the clip.")
    summary: str
    read: bool
    starred: bool


class DeliveryOut(Schema):
    id: int
    kind: str
    status: str
    address: str
    error: str
    permanent: bool
    clip_id: int | None
    digest_id: int | None
    created_at: datetime
    finished_at: datetime | None


ClipPage = page_schema(ClipOut, "ClipPage")
DeliveryPage = page_schema(DeliveryOut, "DeliveryPage")


# --- Clips ---------------------------------------------------------------------------------


class ClipFilters(Schema):
    list: int | None = Field(default=None, description="Only clips of this list of mine.")
    site: int | None = Field(default=None, description="Only clips from this site.")
    read: bool | None = Field(default=None, description="true: read clips only; false: unread.")
    since: datetime | None = Field(default=None, description="Found at or after this time.")
    starred: bool | None = Field(default=None, description="true: starred only; false: not.")


QUERY_HELP = (
    "Every word in the title or text (as a word prefix), or the whole query in the site's name "
    "or host or in the name of one of my lists that found it."
)


class ClipQuery(ClipFilters):
    q: str | None = Field(default=None, max_length=200, description=QUERY_HELP)


class ClipSearch(ClipFilters):
    q: str = Field(min_length=1, max_length=200, description=QUERY_HELP)


def _owner(request: HttpRequest) -> User:
    return request.auth  # type: ignore[attr-defined, return-value]


def _clip_out(clip: Clip) -> dict[str, Any]:
    mine = clip.my_matches  # type: ignore[attr-defined]
    return {
        "id": clip.pk,
        "title": clip.title,
        "url": clip.url,
        "host": clip.host,
        "site_id": clip.site_id,
        "published_at": clip.published_at,
        "seen_at": clip.seen_at,
        "found_at": getattr(clip, "found_at", None),
        "lists": sorted({match.keyword_list_id for match in mine}),
        "summary": mine[0].summary if mine else clip.summary,
        "read": all(match.read_at is not None for match in mine),
        "starred": bool(getattr(clip, "starred", False)),
    }


def _unread(user: User) -> Exists:
    return Exists(Match.objects.owned_by(user).unread().filter(clip=OuterRef("pk")))


def _filtered(request: HttpRequest, filters: ClipFilters, q: str | None) -> QuerySet[Clip]:
    user = _owner(request)
    keyword_list = None
    if filters.list is not None:
        lists = KeywordList.objects.owned_by(user)
        keyword_list = get_object_or_404(lists, pk=filters.list)
    clips = clips_with_my_matches(user, keyword_list=keyword_list)
    if filters.site is not None:
        clips = clips.filter(site_id=filters.site)
    if filters.read is not None:
        clips = clips.exclude(_unread(user)) if filters.read else clips.filter(_unread(user))
    if filters.since is not None:
        clips = clips.filter(found_at__gte=filters.since)
    if filters.starred is not None:
        clips = clips.filter(starred=filters.starred)
    if q:
        clips = search(clips, q, user)
    return clips


@router.get("/clips", response=responses(ClipPage), tags=["clips"])
def clips_index(
    request: HttpRequest,
    response: HttpResponse,
    filters: Query[ClipQuery],
    page: Query[PageIn],
) -> dict[str, Any]:
    """List my clips, newest found first, filtered by list, site, read state, star, time and
    search words."""
    clips = _filtered(request, filters, filters.q)
    return page_of(request, response, clips, page, _clip_out)


@router.get("/clips/search", response=responses(ClipPage), tags=["clips"])
def clips_search(
    request: HttpRequest,
    response: HttpResponse,
    filters: Query[ClipSearch],
    page: Query[PageIn],
) -> dict[str, Any]:
    """Search my clips (`q` required), newest found first, with the same filters as the list."""
    clips = _filtered(request, filters, filters.q.strip() or None)
    return page_of(request, response, clips, page, _clip_out)


def _own_clip(request: HttpRequest, clip_id: int) -> Clip:
    return get_object_or_404(clips_with_my_matches(_owner(request)), pk=clip_id)


@router.get("/clips/{int:clip_id}", response=responses(ClipOut), tags=["clips"])
def clips_read(request: HttpRequest, clip_id: int) -> dict[str, Any]:
    """Read one of my clips."""
    return _clip_out(_own_clip(request, clip_id))


@router.post("/clips/{int:clip_id}/read", response=responses(ClipOut), tags=["clips"])
def clips_mark_read(request: HttpRequest, clip_id: int) -> dict[str, Any]:
    """Mark one of my clips read."""
    _own_clip(request, clip_id)
    mine = Match.objects.owned_by(_owner(request)).filter(clip_id=clip_id)
    mine.filter(read_at__isnull=True).update(read_at=timezone.now())
    return _clip_out(_own_clip(request, clip_id))


@router.post("/clips/{int:clip_id}/unread", response=responses(ClipOut), tags=["clips"])
def clips_mark_unread(request: HttpRequest, clip_id: int) -> dict[str, Any]:
    """Mark one of my clips unread."""
    _own_clip(request, clip_id)
    Match.objects.owned_by(_owner(request)).filter(clip_id=clip_id).update(read_at=None)
    return _clip_out(_own_clip(request, clip_id))


@router.put("/clips/{int:clip_id}/star", response=responses(ClipOut), tags=["clips"])
def clips_star(request: HttpRequest, clip_id: int) -> dict[str, Any]:
    """Star one of my clips (save it to read again; idempotent)."""
    clip = _own_clip(request, clip_id)
    Star.objects.get_or_create(owner=_owner(request), clip=clip)
    return _clip_out(_own_clip(request, clip_id))


@router.delete("/clips/{int:clip_id}/star", response=responses(ClipOut), tags=["clips"])
def clips_unstar(request: HttpRequest, clip_id: int) -> dict[str, Any]:
    """Remove the star from one of my clips (idempotent)."""
    clip = _own_clip(request, clip_id)
    Star.objects.filter(owner=_owner(request), clip=clip).delete()
    return _clip_out(_own_clip(request, clip_id))


# --- Deliveries ----------------------------------------------------------------------------


class DeliveryFilters(Schema):
    status: Delivery.Status | None = None


def _deliveries(request: HttpRequest) -> QuerySet[Delivery]:
    rows = Delivery.objects.filter(user=_owner(request)).select_related("match")
    return rows.order_by("-created_at", "-id")


def _delivery_out(delivery: Delivery) -> dict[str, Any]:
    return {
        "id": delivery.pk,
        "kind": delivery.kind,
        "status": delivery.status,
        "address": delivery.address,
        "error": delivery.error,
        "permanent": delivery.permanent,
        "clip_id": delivery.match.clip_id if delivery.match else None,
        "digest_id": delivery.digest_id,
        "created_at": delivery.created_at,
        "finished_at": delivery.finished_at,
    }


@router.get("/deliveries", response=responses(DeliveryPage), tags=["deliveries"])
def deliveries_index(
    request: HttpRequest,
    response: HttpResponse,
    filters: Query[DeliveryFilters],
    page: Query[PageIn],
) -> dict[str, Any]:
    """List the mails sent to me (every attempt), newest first."""
    rows = _deliveries(request)
    if filters.status is not None:
        rows = rows.filter(status=filters.status)
    return page_of(request, response, rows, page, _delivery_out)


@router.get("/deliveries/{int:delivery_id}", response=responses(DeliveryOut), tags=["deliveries"])
def deliveries_read(request: HttpRequest, delivery_id: int) -> dict[str, Any]:
    """Read one mail attempt of mine."""
    return _delivery_out(get_object_or_404(_deliveries(request), pk=delivery_id))
