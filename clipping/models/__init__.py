"""Clipping models: keyword lists, clips and matches, the mail records, and channels."""

from clipping.models.channels import (
    Channel,
    ChannelDelivery,
    ChannelDigest,
    ListChannel,
    Notice,
)
from clipping.models.clips import Clip, ClipBand, Match, SeenText
from clipping.models.lists import LANGUAGE_CHOICES, KeywordList, KeywordListQuerySet
from clipping.models.mail import Delivery, Digest, Suppression, WebhookEvent
from clipping.models.reading import HandClip, PageWatch, Star

__all__ = [
    "LANGUAGE_CHOICES",
    "Channel",
    "ChannelDelivery",
    "ChannelDigest",
    "ListChannel",
    "Notice",
    "Clip",
    "ClipBand",
    "Delivery",
    "HandClip",
    "PageWatch",
    "Star",
    "Digest",
    "KeywordList",
    "KeywordListQuerySet",
    "Match",
    "SeenText",
    "Suppression",
    "WebhookEvent",
]
