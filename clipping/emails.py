"""Every mail about clips goes out here: one function per kind of mail, three templates each.

Templates: emails/<name>-subject.txt, emails/<name>-body.txt and emails/<name>-body.html. The
HTML part has its CSS inlined by css-inline; every mail carries List-Unsubscribe and
List-Unsubscribe-Post (RFC 8058) and a Message-ID fixed per match or digest, so a resend after
a lost reply is recognisably the same message. Backend errors propagate to the publisher,
which records them and decides whether to retry.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from itertools import groupby
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import css_inline
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from accounts.models import User
from clipping.conf import clipping_settings, instant_limit
from clipping.matching.why import describe
from clipping.models import Delivery, Digest, Match, PageWatch
from clipping.safetext import one_line, safe_url
from clipping.unsubscribe import unsubscribe_url
from crawler.models import Site

SUBJECT_LIMIT = 200
STORY_WORDS = 4  # words a title keeps without its numbers, to group updates by it
_NUMBERS = re.compile(r"[\d/.:,#-]+")
_INLINER = css_inline.CSSInliner(load_remote_stylesheets=False, keep_style_tags=False)


def instant_clip(match: Match, *, limit_notice_until: datetime | None = None) -> str:
    """Mail one match to its owner and return the Message-ID.

    limit_notice_until: the end of the hour after which clips come one by one again; set
    when this is the last instant mail the hourly limit allows.
    """
    user = match.owner
    context = {
        "item": _item(match, user.time_zone),
        "list_name": match.keyword_list.name,
        "list_url": _absolute(match.keyword_list.get_absolute_url()),
        "limit_notice_until": _local(limit_notice_until, user.time_zone),
        "limit": _instant_limit(user),
        "unsubscribe_url": unsubscribe_url(user.id, match.keyword_list_id),
    }
    return _send(
        "instant-clip",
        context,
        match.owner.email,
        context["unsubscribe_url"],
        f"match-{match.id}",
        language=user.language,
    )


def digest(digest: Digest, matches: list[Match]) -> str:
    """Mail a digest of matches, grouped by list, and return the Message-ID."""
    user = digest.user
    # Lists by name; within a list, newest found first, as on the personal page.
    ordered = sorted(matches, key=lambda m: (m.found_at, m.id), reverse=True)
    ordered.sort(key=lambda m: (m.keyword_list.name.lower(), m.keyword_list_id))
    shown = one_per_story(ordered)[: clipping_settings().digest_items]
    groups = [
        {
            "name": keyword_list.name,
            "url": _absolute(keyword_list.get_absolute_url()),
            "items": [{**_item(m, user.time_zone), "updates": n} for m, n in items],
        }
        for keyword_list, items in groupby(shown, key=lambda pair: pair[0].keyword_list)
    ]
    hourly = digest.kind == Digest.Kind.HOURLY
    context = {
        "digest": digest,
        "hourly": hourly,
        "burst": digest.kind == Digest.Kind.BURST,
        "more": len(matches) - sum(1 + n for _, n in shown),
        "summary": digest.kind == Digest.Kind.SUMMARY,
        "list_names": ", ".join(str(group["name"]) for group in groups),
        "sent": _instant_sent(digest) if hourly else 0,
        "limit": _instant_limit(user),
        "period": _local(digest.period, user.time_zone),
        "groups": groups,
        "count": len(matches),
        "unsubscribe_url": unsubscribe_url(user.id, None),
    }
    return _send(
        "digest",
        context,
        user.email,
        context["unsubscribe_url"],
        f"digest-{digest.id}",
        language=user.language,
    )


def one_per_story(matches: list[Match]) -> list[tuple[Match, int]]:
    """Return each story's first match with the number of its other updates, in order.

    Updates of one story are clips of one list and site whose titles differ only in their
    numbers ("Markets live: rail strike update 4", "... update 9"), or near duplicates.
    """
    firsts: dict[tuple[object, ...], int] = {}
    kept: list[list[object]] = []
    for match in matches:
        key = (match.keyword_list_id, match.clip.site_id or match.clip.host, story_key(match))
        if key in firsts:
            kept[firsts[key]][1] += 1  # type: ignore[operator]
        else:
            firsts[key] = len(kept)
            kept.append([match, 0])
    return [(match, updates) for match, updates in kept]  # type: ignore[misc]


def story_key(match: Match) -> str:
    """Return what updates of one story share: the first clip's id, else the bare title."""
    clip = match.clip
    if clip.duplicate_of_id:
        return f"clip:{clip.duplicate_of_id}"
    words = _NUMBERS.sub(" ", clip.title.lower()).split()
    # A short title ("Story 2") says too little to tell an update from another story.
    return " ".join(words) if len(words) >= STORY_WORDS else f"clip:{clip.id}"


def _send(
    name: str,
    context: dict[str, object],
    to: str,
    unsubscribe: str,
    key: str,
    *,
    language: str = "",
) -> str:
    """Render and send one mail in its reader's language; return its Message-ID."""
    context = {
        **context,
        "site_name": settings.SITE_NAME,
        "site_url": settings.SITE_URL,
        "lists_url": _absolute(reverse("list_index")),
        "clips_url": _absolute(reverse("clip_index")),
        "settings_url": _absolute(reverse("account_settings")),
    }
    with translation.override(language or settings.LANGUAGE_CODE):
        subject = one_line(render_to_string(f"emails/{name}-subject.txt", context), SUBJECT_LIMIT)
        text = render_to_string(f"emails/{name}-body.txt", context)
        html = _INLINER.inline(render_to_string(f"emails/{name}-body.html", context))
    message_id = f"<webclip.{key}@{urlsplit(settings.SITE_URL).hostname or 'localhost'}>"
    message = EmailMultiAlternatives(
        subject=subject,
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
        headers={
            "Message-ID": message_id,
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
        },
    )
    message.attach_alternative(html, "text/html")
    message.send(fail_silently=False)
    return message_id


def _item(match: Match, time_zone: str) -> dict[str, object]:
    """Return what a mail shows of one match; scraped text stays text (templates escape it).

    published_at: when the page says it was published, in the reader's zone; None when it
    says nothing, and seen_at (when it was first seen) is shown as such instead.
    """
    clip = match.clip
    return {
        "title": one_line(clip.title, 300) or "(untitled)",
        "url": safe_url(clip.url),
        # Named as on the pages: the watched site's name, its host only for a clip without one.
        "host": clip.site.name if clip.site_id else clip.host,
        "summary": match.summary,
        "spans": match.spans,
        "published_at": _local(clip.published_at, time_zone),
        "seen_at": _local(clip.seen_at, time_zone),
        "why": "; ".join(describe(reason) for reason in match.reasons or []),
    }


def _absolute(path: str) -> str:
    return settings.SITE_URL + path


def _local(moment: datetime | None, time_zone: str) -> datetime | None:
    if moment is None:
        return None
    try:
        return moment.astimezone(ZoneInfo(time_zone))
    except (KeyError, ValueError):
        return moment


def _instant_sent(digest: Digest) -> int:
    """Count the instant mails (bursts too) sent in the hour an hourly digest gathers."""
    last = _local(digest.period - timedelta(seconds=1), digest.user.time_zone) or digest.period
    start = last.replace(minute=0, second=0, microsecond=0)
    return (
        Delivery.objects.instant_mails()
        .filter(
            user=digest.user,
            status=Delivery.Status.SENT,
            created_at__gte=start,
            created_at__lt=digest.period,
        )
        .count()
    )


def _instant_limit(user: User) -> int:
    return instant_limit(user.instant_mails_per_hour)


def page_changed(watch: PageWatch, old_version_id: int, new_version_id: int) -> str:
    """Tell a watcher that a page changed, with a link to the diff; return the Message-ID."""
    user, page = watch.owner, watch.page
    history = reverse("page_history", args=[page.pk])
    query = f"?a={old_version_id}&b={new_version_id}" if old_version_id else ""
    context = {
        "title": one_line(page.title, 300) or page.url,
        "url": safe_url(page.url),
        "diff_url": _absolute(history + query),
        "unsubscribe_url": unsubscribe_url(user.id, None),
    }
    return _send(
        "page-changed",
        context,
        user.email,
        context["unsubscribe_url"],
        f"page-{page.pk}-{new_version_id}-{user.pk}",
        language=user.language,
    )


def site_waiting(site: Site) -> EmailMultiAlternatives | None:
    """Render the one mail that tells staff a person's new site waits for approval.

    The caller queues it (accounts' mail task); None when no staff member has an address.
    """
    staff = list(
        User.objects.filter(is_staff=True, is_active=True)
        .exclude(email="")
        .order_by("id")
        .values_list("email", flat=True)
    )
    if not staff:
        return None
    review = reverse("admin:crawler_site_change", args=[site.pk])
    context = {
        "site_name": settings.SITE_NAME,
        "name": one_line(site.name, 200),
        "url": safe_url(site.root_url) or site.root_url,
        "person": site.added_by.email if site.added_by else "?",
        "review_url": _absolute(review),
    }
    with translation.override(settings.LANGUAGE_CODE):
        subject = one_line(render_to_string("emails/site-waiting-subject.txt", context), 200)
        text = render_to_string("emails/site-waiting-body.txt", context)
        html = _INLINER.inline(render_to_string("emails/site-waiting-body.html", context))
    message = EmailMultiAlternatives(
        subject=subject,
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=staff,
        headers={"Auto-Submitted": "auto-generated"},
    )
    message.attach_alternative(html, "text/html")
    return message
