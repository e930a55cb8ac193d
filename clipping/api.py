"""The REST API of keyword lists, clips and deliveries: every object is the caller's own.

An id of someone else's object answers 404, as a missing one does. Lists are validated by the
list form of the pages, and a saved list that may now match more is backfilled the same way.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.utils import timezone
from ninja import Field, Query, Router, Schema, Status

from accounts.models import User
from clipping import backfill, tasks
from clipping.exchange import ListRecord, form_data
from clipping.feeds import clips_with_my_matches, list_feed_url
from clipping.forms import KeywordListForm
from clipping.matching import synonyms as why_none
from clipping.matching.synonyms import TermSynonyms, list_synonyms
from clipping.models import Clip, Delivery, KeywordList, Match, Star
from clipping.search import search
from clipping.terms import parse_terms

router = Router()
MAX_PAGE = 200


class ErrorOut(Schema):
    detail: str
    errors: dict[str, list[str]] = Field(default_factory=dict)


class ListOut(Schema):
    id: int
    name: str
    language: str
    active: bool
    use_synonyms: bool = Field(description="The list's synonym switch: off, no term matches any.")
    match_all: bool
    mail_enabled: bool
    terms: list[str]
    synonym_choices: dict[str, dict[str, bool]] = Field(
        description="Per term, the sense and synonym switches that differ from the defaults."
    )
    feed_url: str
    created_at: datetime
    updated_at: datetime


class ListIn(Schema):
    name: str = Field(max_length=100)
    terms: list[str] = Field(description='One term each: words, a "phrase", -exclusion, site:')
    language: str = "en"
    use_synonyms: bool = True
    match_all: bool = False
    active: bool = True
    mail_enabled: bool = True


class ListPatch(Schema):
    name: str | None = Field(default=None, max_length=100)
    terms: list[str] | None = None
    language: str | None = None
    use_synonyms: bool | None = None
    match_all: bool | None = None
    active: bool | None = None
    mail_enabled: bool | None = None


class SynonymOut(Schema):
    name: str
    key: str
    on: bool


class SenseOut(Schema):
    key: str
    word: str = Field(description="The unit the sense belongs to: the whole term or one word.")
    sense: str = Field(description="WordNet synset, e.g. car.n.01")
    gloss: str
    default: bool
    on: bool
    synonyms: list[SynonymOut]


class TermOut(Schema):
    text: str
    synonyms: bool = Field(description="Whether the term matches any synonym now.")
    note: str = Field(description="Why the term has no synonyms, when it has none.")
    senses: list[SenseOut]


class TermSynonymsIn(Schema):
    term: str = Field(description="The term line, as in the list's terms.")
    synonyms: bool | None = Field(
        default=None,
        description="false: every sense of the term off; true: back to the default senses.",
    )
    switches: dict[str, bool] = Field(
        default_factory=dict, description="Sense or synonym keys (see senses) to turn on or off."
    )


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


class ClipPage(Schema):
    items: list[ClipOut]
    next_offset: int | None


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


class DeliveryPage(Schema):
    items: list[DeliveryOut]
    next_offset: int | None


# --- Keyword lists -------------------------------------------------------------------------


def _owner(request: HttpRequest) -> User:
    return request.auth  # type: ignore[attr-defined, return-value]


def _lists(request: HttpRequest) -> QuerySet[KeywordList]:
    return KeywordList.objects.owned_by(_owner(request)).select_related("owner")


def _list_out(keyword_list: KeywordList) -> dict[str, Any]:
    return {
        **ListRecord.of(keyword_list).as_dict(),
        "id": keyword_list.pk,
        "feed_url": list_feed_url(keyword_list),
        "created_at": keyword_list.created_at,
        "updated_at": keyword_list.updated_at,
    }


def _save(
    request: HttpRequest, record: ListRecord, instance: KeywordList | None
) -> Status[dict[str, Any]]:
    """Validate a list with the pages' form, save it and backfill it if it may match more."""
    owner = _owner(request)
    before = backfill.matching_state(instance) if instance is not None else None
    target = instance or KeywordList(owner=owner)
    form = KeywordListForm(form_data(record), instance=target, owner=owner)
    if not form.is_valid():
        errors = {name: list(messages) for name, messages in form.errors.items()}
        return Status(422, {"detail": "The list is not valid.", "errors": errors})
    saved = form.save()
    if backfill.needs_backfill(before, saved):
        tasks.request_backfill(saved.pk)
    return Status(200 if instance is not None else 201, _list_out(saved))


@router.get("/lists", response=list[ListOut], tags=["lists"])
def lists_index(request: HttpRequest) -> list[dict[str, Any]]:
    """List my keyword lists."""
    return [_list_out(item) for item in _lists(request)]


@router.post("/lists", response={201: ListOut, 422: ErrorOut}, tags=["lists"])
def lists_create(request: HttpRequest, payload: ListIn) -> Status[dict[str, Any]]:
    """Create a keyword list."""
    fields = {**payload.dict(), "terms": tuple(payload.terms)}
    return _save(request, ListRecord(**fields), None)


@router.get("/lists/{int:list_id}", response=ListOut, tags=["lists"])
def lists_read(request: HttpRequest, list_id: int) -> dict[str, Any]:
    """Read one of my keyword lists."""
    return _list_out(get_object_or_404(_lists(request), pk=list_id))


@router.put("/lists/{int:list_id}", response={200: ListOut, 422: ErrorOut}, tags=["lists"])
def lists_replace(request: HttpRequest, list_id: int, payload: ListIn) -> Status[dict[str, Any]]:
    """Replace a keyword list; its synonym switches of terms it keeps stay."""
    current = get_object_or_404(_lists(request), pk=list_id)
    fields = {**payload.dict(), "terms": tuple(payload.terms)}
    record = ListRecord(**fields, synonym_choices=current.synonym_choices or {})
    return _save(request, record, current)


@router.patch("/lists/{int:list_id}", response={200: ListOut, 422: ErrorOut}, tags=["lists"])
def lists_update(request: HttpRequest, list_id: int, payload: ListPatch) -> Status[dict[str, Any]]:
    """Change some fields of a keyword list."""
    current = get_object_or_404(_lists(request), pk=list_id)
    fields = ListRecord.of(current).as_dict()
    fields.update(payload.dict(exclude_none=True))
    fields["terms"] = tuple(fields["terms"])
    return _save(request, ListRecord(**fields), current)


@router.delete("/lists/{int:list_id}", response={204: None}, tags=["lists"])
def lists_delete(request: HttpRequest, list_id: int) -> Status[None]:
    """Delete a keyword list with its matches."""
    get_object_or_404(_lists(request), pk=list_id).delete()
    return Status(204, None)


def _terms(keyword_list: KeywordList, *, use_choices: bool = True) -> list[TermSynonyms]:
    return list_synonyms(
        parse_terms(keyword_list.terms),
        keyword_list.language,
        keyword_list.use_synonyms,
        keyword_list.synonym_choices if use_choices else None,
    )


# Why a term has no synonyms, in words (the list page says the same).
_NOTES = {
    why_none.EXCLUSION: "an exclusion: only its own word forms exclude",
    why_none.QUOTED: "quoted: matched exactly as written",
    why_none.SWITCHED_OFF: "synonyms are off for this list",
    why_none.NO_THESAURUS: "only word forms: no offline thesaurus for this language",
    why_none.NAME: "a name: matched by its own forms only",
    why_none.PATTERN: "a regular expression: matched in the title and text",
}


def _term_out(term: TermSynonyms) -> dict[str, Any]:
    senses = [
        {
            "key": group.key,
            "word": group.word,
            "sense": group.sense.id,
            "gloss": group.sense.gloss,
            "default": group.default,
            "on": group.on,
            "synonyms": [synonym._asdict() for synonym in group.synonyms],
        }
        for group in term.groups
    ]
    matches_any = any(group.on and any(s.on for s in group.synonyms) for group in term.groups)
    note = _NOTES.get(term.note, term.note)
    return {"text": term.raw, "synonyms": matches_any, "note": note, "senses": senses}


@router.get("/lists/{int:list_id}/terms", response=list[TermOut], tags=["lists"])
def lists_terms(request: HttpRequest, list_id: int) -> list[dict[str, Any]]:
    """List a keyword list's terms with their senses and synonym switches (site: lines left out)."""
    keyword_list = get_object_or_404(_lists(request), pk=list_id)
    return [_term_out(term) for term in _terms(keyword_list)]


@router.put(
    "/lists/{int:list_id}/synonyms",
    response={200: TermOut, 404: ErrorOut, 422: ErrorOut},
    tags=["lists"],
)
def lists_synonyms(
    request: HttpRequest, list_id: int, payload: TermSynonymsIn
) -> Status[dict[str, Any]]:
    """Turn a term's synonyms off or back to the defaults, or switch single senses and synonyms."""
    keyword_list = get_object_or_404(_lists(request), pk=list_id)
    defaults = {term.raw: term for term in _terms(keyword_list, use_choices=False)}
    term = defaults.get(payload.term.strip())
    if term is None:
        return Status(404, {"detail": "The list has no such term."})
    if not term.groups:
        why = _NOTES.get(term.note, term.note)
        return Status(422, {"detail": f"The term has no synonyms to switch: {why}."})
    shown = {group.key: group.default for group in term.groups}
    shown.update({s.key: True for group in term.groups for s in group.synonyms})
    unknown = sorted(set(payload.switches) - set(shown))
    if unknown:
        return Status(422, {"detail": "Unknown switches.", "errors": {"switches": unknown}})
    choices = dict(keyword_list.synonym_choices or {})
    own = dict(choices.get(term.raw, {}))
    if payload.synonyms is False:
        own = {group.key: False for group in term.groups if group.default}
    elif payload.synonyms is True:
        own = {}
    own.update(payload.switches)
    own = {key: on for key, on in own.items() if shown.get(key) != on}
    before = backfill.matching_state(keyword_list)
    if own:
        choices[term.raw] = own
    else:
        choices.pop(term.raw, None)
    keyword_list.synonym_choices = choices
    keyword_list.save(update_fields=["synonym_choices", "updated_at"])
    if backfill.needs_backfill(before, keyword_list):
        tasks.request_backfill(keyword_list.pk)
    now = {item.raw: item for item in _terms(keyword_list)}
    return Status(200, _term_out(now[term.raw]))


# --- Clips ---------------------------------------------------------------------------------


class ClipFilters(Schema):
    list: int | None = Field(default=None, description="Only clips of this list of mine.")
    site: int | None = Field(default=None, description="Only clips from this site.")
    read: bool | None = Field(default=None, description="true: read clips only; false: unread.")
    since: datetime | None = Field(default=None, description="Found at or after this time.")
    starred: bool | None = Field(default=None, description="true: starred only; false: not.")
    q: str | None = Field(
        default=None,
        max_length=200,
        description="Search: every word in the title or text (as a word prefix), or the "
        "whole query in the site's name or host or in the name of one of my lists that found it.",
    )
    limit: int = Field(default=50, ge=1, le=MAX_PAGE)
    offset: int = Field(default=0, ge=0, le=10_000)


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


@router.get("/clips", response=ClipPage, tags=["clips"])
def clips_index(request: HttpRequest, filters: Query[ClipFilters]) -> dict[str, Any]:
    """List my clips, newest found first, filtered by list, site, read state, star, time and
    search words."""
    user = _owner(request)
    keyword_list = None
    if filters.list is not None:
        keyword_list = get_object_or_404(_lists(request), pk=filters.list)
    clips = clips_with_my_matches(user, keyword_list=keyword_list)
    if filters.site is not None:
        clips = clips.filter(site_id=filters.site)
    if filters.read is not None:
        clips = clips.exclude(_unread(user)) if filters.read else clips.filter(_unread(user))
    if filters.since is not None:
        clips = clips.filter(found_at__gte=filters.since)
    if filters.starred is not None:
        clips = clips.filter(starred=filters.starred)
    if filters.q:
        clips = search(clips, filters.q, user)
    found = list(clips[filters.offset : filters.offset + filters.limit + 1])
    more = len(found) > filters.limit
    return {
        "items": [_clip_out(clip) for clip in found[: filters.limit]],
        "next_offset": filters.offset + filters.limit if more else None,
    }


def _own_clip(request: HttpRequest, clip_id: int) -> Clip:
    return get_object_or_404(clips_with_my_matches(_owner(request)), pk=clip_id)


@router.get("/clips/{int:clip_id}", response=ClipOut, tags=["clips"])
def clips_read(request: HttpRequest, clip_id: int) -> dict[str, Any]:
    """Read one of my clips."""
    return _clip_out(_own_clip(request, clip_id))


@router.post("/clips/{int:clip_id}/read", response=ClipOut, tags=["clips"])
def clips_mark_read(request: HttpRequest, clip_id: int) -> dict[str, Any]:
    """Mark one of my clips read."""
    _own_clip(request, clip_id)
    mine = Match.objects.owned_by(_owner(request)).filter(clip_id=clip_id)
    mine.filter(read_at__isnull=True).update(read_at=timezone.now())
    return _clip_out(_own_clip(request, clip_id))


@router.post("/clips/{int:clip_id}/unread", response=ClipOut, tags=["clips"])
def clips_mark_unread(request: HttpRequest, clip_id: int) -> dict[str, Any]:
    """Mark one of my clips unread."""
    _own_clip(request, clip_id)
    Match.objects.owned_by(_owner(request)).filter(clip_id=clip_id).update(read_at=None)
    return _clip_out(_own_clip(request, clip_id))


@router.put("/clips/{int:clip_id}/star", response=ClipOut, tags=["clips"])
def clips_star(request: HttpRequest, clip_id: int) -> dict[str, Any]:
    """Star one of my clips (save it to read again; idempotent)."""
    clip = _own_clip(request, clip_id)
    Star.objects.get_or_create(owner=_owner(request), clip=clip)
    return _clip_out(_own_clip(request, clip_id))


@router.delete("/clips/{int:clip_id}/star", response=ClipOut, tags=["clips"])
def clips_unstar(request: HttpRequest, clip_id: int) -> dict[str, Any]:
    """Remove the star from one of my clips (idempotent)."""
    clip = _own_clip(request, clip_id)
    Star.objects.filter(owner=_owner(request), clip=clip).delete()
    return _clip_out(_own_clip(request, clip_id))


# --- Deliveries ----------------------------------------------------------------------------


class DeliveryFilters(Schema):
    status: Delivery.Status | None = None
    limit: int = Field(default=50, ge=1, le=MAX_PAGE)
    offset: int = Field(default=0, ge=0, le=10_000)


def _deliveries(request: HttpRequest) -> QuerySet[Delivery]:
    return Delivery.objects.filter(user=_owner(request)).select_related("match")


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


@router.get("/deliveries", response=DeliveryPage, tags=["deliveries"])
def deliveries_index(request: HttpRequest, filters: Query[DeliveryFilters]) -> dict[str, Any]:
    """List the mails sent to me (every attempt), newest first."""
    rows = _deliveries(request)
    if filters.status is not None:
        rows = rows.filter(status=filters.status)
    found = list(rows[filters.offset : filters.offset + filters.limit + 1])
    more = len(found) > filters.limit
    return {
        "items": [_delivery_out(item) for item in found[: filters.limit]],
        "next_offset": filters.offset + filters.limit if more else None,
    }


@router.get("/deliveries/{int:delivery_id}", response=DeliveryOut, tags=["deliveries"])
def deliveries_read(request: HttpRequest, delivery_id: int) -> dict[str, Any]:
    """Read one mail attempt of mine."""
    return _delivery_out(get_object_or_404(_deliveries(request), pk=delivery_id))
