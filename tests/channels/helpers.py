"""Builders for channel tests."""

from __future__ import annotations

from clipping import channels
from clipping.models import Channel, ListChannel


def make_channel(owner, url: str, name: str = "Phone") -> Channel:
    """Create a channel the way the account page does (checked, sealed, masked)."""
    checked = channels.check_url(url)
    channel = Channel(owner=owner, name=name)
    channel.set_url(checked.url, checked.shown, checked.service)
    channel.save()
    return channel


def route(keyword_list, channel: Channel, mode: str = "instant") -> ListChannel:
    return ListChannel.objects.create(keyword_list=keyword_list, channel=channel, mode=mode)
