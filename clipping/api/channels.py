"""The REST API of notification channels: add, read, test, resume, delete, and route lists.

A channel is an Apprise URL checked as the account page checks it (`clipping.forms.
ChannelForm`: known services only, no private or local network target, at most
WEBCLIP_MAX_CHANNELS per person); it is kept sealed and only its masked form is ever answered.
Someone else's channel answers 404, as a missing one does.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Field, Query, Router, Schema, Status

from accounts.models import User
from base.api import PageIn, created, error, form_error, page_of, page_schema, responses
from clipping import channels
from clipping.forms import ChannelForm
from clipping.models import Channel, KeywordList, ListChannel
from clipping.models.channels import Mode

router = Router(tags=["channels"])

RouteMode = Literal["instant", "digest", "off"]


class RouteOut(Schema):
    list_id: int
    mode: str = Field(description="instant: each clip; digest: with the person's digest.")


class ChannelOut(Schema):
    id: int
    name: str
    url: str = Field(description="The Apprise URL with its secrets masked.")
    service: str
    paused: bool = Field(description="Paused after failures in a row; resume or test it.")
    paused_reason: str
    failures: int
    created_at: datetime
    routes: list[RouteOut] = Field(description="The lists whose clips go to this channel.")


class ChannelIn(Schema):
    name: str = Field(max_length=100)
    url: str = Field(max_length=2000, description="An Apprise URL, e.g. ntfys://host/topic.")


class RoutesIn(Schema):
    routes: dict[str, RouteMode] = Field(
        description="List id -> instant, digest or off; lists not named keep their choice."
    )


class TestOut(Schema):
    sent: bool
    error: str = Field(description="Why the test message did not go; empty when it went.")
    channel: ChannelOut


ChannelPage = page_schema(ChannelOut, "ChannelPage")


def _owner(request: HttpRequest) -> User:
    return request.auth  # type: ignore[attr-defined, return-value]


def _channels(request: HttpRequest) -> Any:
    return Channel.objects.owned_by(_owner(request)).prefetch_related("routes")


def _channel_out(channel: Channel) -> dict[str, Any]:
    routes = sorted(channel.routes.all(), key=lambda route: route.keyword_list_id)
    return {
        "id": channel.pk,
        "name": channel.name,
        "url": channel.shown_url,
        "service": channel.service,
        "paused": channel.paused,
        "paused_reason": channel.paused_reason,
        "failures": channel.failures,
        "created_at": channel.created_at,
        "routes": [{"list_id": r.keyword_list_id, "mode": r.mode} for r in routes],
    }


def _own(request: HttpRequest, channel_id: int) -> Channel:
    return get_object_or_404(_channels(request), pk=channel_id)


@router.get("/channels", response=responses(ChannelPage))
def channels_index(
    request: HttpRequest, response: HttpResponse, page: Query[PageIn]
) -> dict[str, Any]:
    """List my notification channels, by name."""
    return page_of(request, response, _channels(request).order_by("name", "id"), page, _channel_out)


@router.post("/channels", response=responses(ChannelOut, status=201))
def channels_create(
    request: HttpRequest, response: HttpResponse, payload: ChannelIn
) -> Status[dict[str, Any]]:
    """Add a channel (no list is routed to it yet); `Location` names it. Send it a test."""
    form = ChannelForm(_owner(request), {"name": payload.name, "url": payload.url})
    if not form.is_valid():
        return form_error(form, "The channel is not valid.")
    checked = form.checked
    assert checked is not None
    channel = Channel(owner=_owner(request), name=form.cleaned_data["name"])
    channel.set_url(checked.url, checked.shown, checked.service)
    channel.save()
    created(request, response, f"/api/channels/{channel.pk}")
    return Status(201, _channel_out(_own(request, channel.pk)))


@router.get("/channels/{int:channel_id}", response=responses(ChannelOut))
def channels_read(request: HttpRequest, channel_id: int) -> dict[str, Any]:
    """Read one of my channels."""
    return _channel_out(_own(request, channel_id))


@router.delete("/channels/{int:channel_id}", response=responses({204: None}))
def channels_delete(request: HttpRequest, channel_id: int) -> Status[None]:
    """Delete a channel; what it had not sent yet is dropped."""
    _own(request, channel_id).delete()
    return Status(204, None)


@router.post("/channels/{int:channel_id}/test", response=responses(TestOut))
def channels_test(request: HttpRequest, channel_id: int) -> dict[str, Any]:
    """Send a test message now; a test that goes resumes a paused channel."""
    failure = channels.send_test(_own(request, channel_id))
    return {
        "sent": not failure,
        "error": failure,
        "channel": _channel_out(_own(request, channel_id)),
    }


@router.post("/channels/{int:channel_id}/resume", response=responses(ChannelOut))
def channels_resume(request: HttpRequest, channel_id: int) -> dict[str, Any]:
    """Resume a paused channel (its count of failures starts again)."""
    channels.resume(_own(request, channel_id))
    return _channel_out(_own(request, channel_id))


@router.put("/channels/{int:channel_id}/routes", response=responses(ChannelOut))
def channels_routes(
    request: HttpRequest, channel_id: int, payload: RoutesIn
) -> Status[dict[str, Any]]:
    """Choose which of my lists feed the channel: each clip, a digest, or off."""
    channel = _own(request, channel_id)
    wanted: dict[int, str] = {}
    bad: list[str] = []
    for key, mode in payload.routes.items():
        if key.isdigit() and len(key) < 12:
            wanted[int(key)] = mode
        else:
            bad.append(key)
    lists = set(
        KeywordList.objects.owned_by(_owner(request))
        .filter(pk__in=wanted)
        .values_list("pk", flat=True)
    )
    bad += [str(list_id) for list_id in wanted if list_id not in lists]
    if bad:
        return Status(422, error("No such list of yours.", {"routes": sorted(bad)}))
    with transaction.atomic():
        for list_id, mode in wanted.items():
            routes = ListChannel.objects.filter(keyword_list_id=list_id, channel=channel)
            if mode not in Mode.values:
                routes.delete()
            elif not routes.update(mode=mode):
                ListChannel.objects.create(keyword_list_id=list_id, channel=channel, mode=mode)
    return Status(200, _channel_out(_own(request, channel_id)))
