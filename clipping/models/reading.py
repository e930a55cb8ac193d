"""What people keep of what they read: starred clips, pages clipped by hand, watched pages."""

from __future__ import annotations

import zlib

from django.conf import settings
from django.db import models
from django.utils import timezone


class Star(models.Model):
    """A clip its owner saved to read again: kept on a page and a feed of its own."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="stars"
    )
    clip = models.ForeignKey("clipping.Clip", on_delete=models.CASCADE, related_name="stars")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "clip"], name="clipping_one_star_per_clip")
        ]

    def __str__(self) -> str:
        return f"{self.owner_id} ★ {self.clip_id}"


class HandClip(models.Model):
    """The article of a page a person clipped by hand (bookmarklet or “Clip a page”).

    Such a clip has no crawled version to be read from: its main text's HTML, as the analyzer
    chose it, is kept here (zlib) for the reader view.
    """

    clip = models.OneToOneField(
        "clipping.Clip", on_delete=models.CASCADE, primary_key=True, related_name="by_hand"
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="hand_clips"
    )
    html = models.BinaryField(editable=False, help_text="The article's HTML, zlib-compressed.")
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.owner_id}: {self.clip_id}"

    def set_html(self, html: str) -> None:
        self.html = zlib.compress(html.encode(), 6)

    def article_html(self) -> str:
        return zlib.decompress(bytes(self.html)).decode()


class PageWatch(models.Model):
    """A person asked to be told by mail when a page of a site they follow changes."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="page_watches"
    )
    page = models.ForeignKey("crawler.Page", on_delete=models.CASCADE, related_name="watches")
    seen_version_id = models.BigIntegerField(
        default=0, help_text="The newest version the person was told of (or saw when watching)."
    )
    created_at = models.DateTimeField(default=timezone.now)
    notified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "page"], name="clipping_one_watch_per_page")
        ]
        verbose_name = "page watch"
        verbose_name_plural = "page watches"

    def __str__(self) -> str:
        return f"{self.owner_id} watches {self.page_id}"
