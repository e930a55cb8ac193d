"""“Tell me when this page changes”: a mail when a watched page's stored content changes.

A person watches a page of a site they follow (or one that made one of their clips). The
crawler keeps a new version only when the content changes; `notify_changes`, run with the
other due mail, tells each watcher once per new version, with the history page's diff.
"""

from __future__ import annotations

import logging
from smtplib import SMTPException

from django.db import transaction
from django.db.models import F, OuterRef, Subquery
from django.utils import timezone

from clipping import emails
from clipping.models import PageWatch
from crawler.models import PageVersion

logger = logging.getLogger(__name__)
BATCH = 200


def watch(user: object, page_id: int) -> PageWatch:
    """Start watching: changes after the newest version stored now are mailed."""
    newest = PageVersion.objects.filter(page_id=page_id).order_by("-fetched_at", "-id")
    seen = newest.values_list("id", flat=True).first() or 0
    found, _created = PageWatch.objects.get_or_create(
        owner=user, page_id=page_id, defaults={"seen_version_id": seen}
    )
    return found


def unwatch(user: object, page_id: int) -> None:
    PageWatch.objects.filter(owner=user, page_id=page_id).delete()


def due_watches() -> list[PageWatch]:
    """Return the watches whose page has a version newer than the one last told of."""
    newest = (
        PageVersion.objects.filter(page_id=OuterRef("page_id"))
        .order_by("-fetched_at", "-id")
        .values("id")[:1]
    )
    return list(
        PageWatch.objects.annotate(newest=Subquery(newest))
        .filter(newest__gt=F("seen_version_id"), owner__is_active=True)
        .select_related("owner", "page")[:BATCH]
    )


def notify_changes() -> int:
    """Mail each watcher of a changed page once; return the mails sent."""
    sent = 0
    for found in due_watches():
        newest = found.newest  # type: ignore[attr-defined]
        with transaction.atomic():
            claimed = PageWatch.objects.filter(
                pk=found.pk, seen_version_id=found.seen_version_id
            ).update(seen_version_id=newest, notified_at=timezone.now())
            if not claimed:
                continue  # another worker told of it
            try:
                emails.page_changed(found, found.seen_version_id, newest)
            except (SMTPException, OSError):
                logger.warning("page change mail for watch %s failed; retried later", found.pk)
                transaction.set_rollback(True)
                continue
        sent += 1
    return sent
