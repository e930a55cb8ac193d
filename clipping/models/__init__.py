"""Clipping models: keyword lists, clips and matches, and the mail records."""

from clipping.models.clips import Clip, ClipBand, Match, SeenText
from clipping.models.lists import LANGUAGE_CHOICES, KeywordList, KeywordListQuerySet
from clipping.models.mail import Delivery, Digest, Suppression, WebhookEvent

__all__ = [
    "LANGUAGE_CHOICES",
    "Clip",
    "ClipBand",
    "Delivery",
    "Digest",
    "KeywordList",
    "KeywordListQuerySet",
    "Match",
    "SeenText",
    "Suppression",
    "WebhookEvent",
]
