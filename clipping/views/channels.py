"""Notification channels on the account page: add, test, resume, delete, and route lists."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clipping import channels
from clipping.forms import ChannelForm
from clipping.models import Channel, KeywordList, ListChannel
from clipping.models.channels import Mode

OFF = "off"


def _back() -> HttpResponse:
    return redirect(reverse("account_settings") + "#channels")


@login_required
@require_POST
def channel_add(request: HttpRequest) -> HttpResponse:
    form = ChannelForm(request.user, request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return _back()
    checked = form.checked
    assert checked is not None
    channel = Channel(owner=request.user, name=form.cleaned_data["name"])
    channel.set_url(checked.url, checked.shown, checked.service)
    channel.save()
    messages.success(
        request, _("Channel %(name)s added; send it a test message.") % {"name": channel.name}
    )
    return _back()


@login_required
@require_POST
def channel_test(request: HttpRequest, pk: int) -> HttpResponse:
    channel = get_object_or_404(Channel.objects.owned_by(request.user), pk=pk)
    error = channels.send_test(channel)
    if error:
        messages.error(
            request,
            _("The test message to %(name)s failed: %(error)s")
            % {"name": channel.name, "error": error},
        )
    else:
        messages.success(request, _("A test message went to %(name)s.") % {"name": channel.name})
    return _back()


@login_required
@require_POST
def channel_resume(request: HttpRequest, pk: int) -> HttpResponse:
    channel = get_object_or_404(Channel.objects.owned_by(request.user), pk=pk)
    channels.resume(channel)
    messages.success(request, _("%(name)s is sending again.") % {"name": channel.name})
    return _back()


@login_required
@require_POST
def channel_delete(request: HttpRequest, pk: int) -> HttpResponse:
    channel = get_object_or_404(Channel.objects.owned_by(request.user), pk=pk)
    channel.delete()
    messages.success(request, _("Channel %(name)s deleted.") % {"name": channel.name})
    return _back()


@login_required
@require_POST
def channel_routes(request: HttpRequest) -> HttpResponse:
    """Save which channels get each list's clips: off, each clip, or a digest."""
    lists = {kl.id: kl for kl in KeywordList.objects.owned_by(request.user)}
    owned = {c.id: c for c in Channel.objects.owned_by(request.user)}
    current = {
        (r.keyword_list_id, r.channel_id): r
        for r in ListChannel.objects.filter(keyword_list_id__in=lists, channel_id__in=owned)
    }
    with transaction.atomic():
        for list_id in lists:
            for channel_id in owned:
                choice = request.POST.get(f"route-{list_id}-{channel_id}", OFF)
                route = current.get((list_id, channel_id))
                if choice not in Mode.values:
                    if route is not None:
                        route.delete()
                elif route is None:
                    ListChannel.objects.create(
                        keyword_list_id=list_id, channel_id=channel_id, mode=choice
                    )
                elif route.mode != choice:
                    ListChannel.objects.filter(id=route.id).update(mode=choice)
    messages.success(request, _("Your channel choices are saved."))
    return _back()
