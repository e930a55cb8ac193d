"""The channels panel of the account page: a person's channels and which lists feed them."""

from __future__ import annotations

from dataclasses import dataclass

from django import template
from django.utils.translation import gettext_lazy as _

from clipping.models import Channel, KeywordList, ListChannel
from clipping.models.channels import Mode

register = template.Library()
CHOICES = [("off", _("Off")), *Mode.choices]


@dataclass(frozen=True)
class Cell:
    name: str  # the form field: route-<list>-<channel>
    channel: Channel
    mode: str  # "off", "instant" or "digest"


@register.simple_tag
def channel_panel(user: object) -> dict[str, object]:
    """Return the person's channels, and per list one cell per channel with its choice."""
    channels = list(Channel.objects.owned_by(user))
    lists = list(KeywordList.objects.owned_by(user))
    modes = dict(
        ((r.keyword_list_id, r.channel_id), r.mode)
        for r in ListChannel.objects.filter(channel__in=channels)
    )
    rows = [
        (
            keyword_list,
            [
                Cell(
                    f"route-{keyword_list.id}-{c.id}", c, modes.get((keyword_list.id, c.id), "off")
                )
                for c in channels
            ],
        )
        for keyword_list in lists
    ]
    return {"channels": channels, "rows": rows, "choices": CHOICES}
