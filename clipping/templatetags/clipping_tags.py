"""Template filters for clips: highlighted summaries, one-line titles and safe links."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from django import template
from django.utils.safestring import SafeString
from django.utils.translation import ngettext

from clipping import safetext
from clipping.matching.why import describe

register = template.Library()


@register.filter
def highlight(text: str, spans: Sequence[Sequence[object]] | None) -> SafeString:
    """Escape text and mark the spans."""
    return safetext.highlight_html(text or "", spans or [])


@register.filter
def highlight_plain(text: str, spans: Sequence[Sequence[object]] | None) -> str:
    """Mark the spans of plain text with asterisks."""
    return safetext.highlight_text(text or "", spans or [])


@register.filter
def why(reasons: Sequence[dict] | None) -> str:
    """Say briefly why a match matched: each term, the form it was found in, its sense."""
    return "; ".join(describe(reason) for reason in reasons or [] if isinstance(reason, dict))


@register.filter
def one_line(text: str) -> str:
    """Collapse white space and drop control characters."""
    return safetext.one_line(text or "")


@register.filter
def safe_url(url: str) -> str:
    """Keep only absolute http(s) URLs."""
    return safetext.safe_url(url or "")


@register.filter
def is_unread(clip: object) -> bool:
    """Tell whether any of the viewer's matches of a clip is unread (needs `my_matches`)."""
    return any(match.read_at is None for match in getattr(clip, "my_matches", ()))


@register.filter
def interval(value: timedelta | None) -> str:
    """Say a revisit interval in words: "1 hour", "90 minutes", "2 days"."""
    if value is None:
        return ""
    minutes = max(1, round(value.total_seconds() / 60))
    if minutes % (24 * 60) == 0:
        days = minutes // (24 * 60)
        return ngettext("%(count)d day", "%(count)d days", days) % {"count": days}
    if minutes % 60 == 0:
        hours = minutes // 60
        return ngettext("%(count)d hour", "%(count)d hours", hours) % {"count": hours}
    return ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}
