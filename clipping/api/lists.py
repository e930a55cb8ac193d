"""The REST API of keyword lists: every list is the caller's own.

An id of someone else's list answers 404, as a missing one does. Lists are validated by the
list form of the pages, and a saved list that may now match more is backfilled the same way.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Field, Query, Router, Schema, Status

from accounts.models import User
from base.api import PageIn, created, error, form_error, page_of, page_schema, responses
from clipping import backfill, tasks
from clipping.exchange import ListRecord, form_data
from clipping.feeds import list_feed_url
from clipping.forms import KeywordListForm
from clipping.matching import synonyms as why_none
from clipping.matching.synonyms import TermSynonyms, list_synonyms
from clipping.models import KeywordList
from clipping.terms import parse_terms

router = Router(tags=["lists"])


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
    request: HttpRequest,
    response: HttpResponse,
    record: ListRecord,
    instance: KeywordList | None,
) -> Status[dict[str, Any]]:
    """Validate a list with the pages' form, save it and backfill it if it may match more."""
    owner = _owner(request)
    before = backfill.matching_state(instance) if instance is not None else None
    target = instance or KeywordList(owner=owner)
    form = KeywordListForm(form_data(record), instance=target, owner=owner)
    if not form.is_valid():
        return form_error(form, "The list is not valid.")
    saved = form.save()
    if backfill.needs_backfill(before, saved):
        tasks.request_backfill(saved.pk)
    if instance is None:
        created(request, response, f"/api/lists/{saved.pk}")
        return Status(201, _list_out(saved))
    return Status(200, _list_out(saved))


ListPage = page_schema(ListOut, "ListPage")


@router.get("/lists", response=responses(ListPage))
def lists_index(
    request: HttpRequest, response: HttpResponse, page: Query[PageIn]
) -> dict[str, Any]:
    """List my keyword lists, by name."""
    return page_of(request, response, _lists(request).order_by("name", "id"), page, _list_out)


@router.post("/lists", response=responses(ListOut, status=201))
def lists_create(
    request: HttpRequest, response: HttpResponse, payload: ListIn
) -> Status[dict[str, Any]]:
    """Create a keyword list; `Location` names it."""
    fields = {**payload.dict(), "terms": tuple(payload.terms)}
    return _save(request, response, ListRecord(**fields), None)


@router.get("/lists/{int:list_id}", response=responses(ListOut))
def lists_read(request: HttpRequest, list_id: int) -> dict[str, Any]:
    """Read one of my keyword lists."""
    return _list_out(get_object_or_404(_lists(request), pk=list_id))


@router.put("/lists/{int:list_id}", response=responses(ListOut))
def lists_replace(
    request: HttpRequest, response: HttpResponse, list_id: int, payload: ListIn
) -> Status[dict[str, Any]]:
    """Replace a keyword list; its synonym switches of terms it keeps stay."""
    current = get_object_or_404(_lists(request), pk=list_id)
    fields = {**payload.dict(), "terms": tuple(payload.terms)}
    record = ListRecord(**fields, synonym_choices=current.synonym_choices or {})
    return _save(request, response, record, current)


@router.patch("/lists/{int:list_id}", response=responses(ListOut))
def lists_update(
    request: HttpRequest, response: HttpResponse, list_id: int, payload: ListPatch
) -> Status[dict[str, Any]]:
    """Change some fields of a keyword list."""
    current = get_object_or_404(_lists(request), pk=list_id)
    fields = ListRecord.of(current).as_dict()
    fields.update(payload.dict(exclude_none=True))
    fields["terms"] = tuple(fields["terms"])
    return _save(request, response, ListRecord(**fields), current)


@router.delete("/lists/{int:list_id}", response=responses({204: None}))
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


@router.get("/lists/{int:list_id}/terms", response=responses(list[TermOut]))
def lists_terms(request: HttpRequest, list_id: int) -> list[dict[str, Any]]:
    """List a keyword list's terms with their senses and synonym switches (site: lines left out)."""
    keyword_list = get_object_or_404(_lists(request), pk=list_id)
    return [_term_out(term) for term in _terms(keyword_list)]


@router.put("/lists/{int:list_id}/synonyms", response=responses(TermOut))
def lists_synonyms(
    request: HttpRequest, list_id: int, payload: TermSynonymsIn
) -> Status[dict[str, Any]]:
    """Turn a term's synonyms off or back to the defaults, or switch single senses and synonyms."""
    keyword_list = get_object_or_404(_lists(request), pk=list_id)
    defaults = {term.raw: term for term in _terms(keyword_list, use_choices=False)}
    term = defaults.get(payload.term.strip())
    if term is None:
        return Status(404, error("The list has no such term."))
    if not term.groups:
        why = _NOTES.get(term.note, term.note)
        return Status(422, error(f"The term has no synonyms to switch: {why}."))
    shown = {group.key: group.default for group in term.groups}
    shown.update({s.key: True for group in term.groups for s in group.synonyms})
    unknown = sorted(set(payload.switches) - set(shown))
    if unknown:
        return Status(422, error("Unknown switches.", {"switches": unknown}))
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
