"""Reading pages: a clip in the reader view, stars, a page's change history, clipping by hand."""

from __future__ import annotations

from csp.decorators import csp_update
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clipping import handclip, history, watching
from clipping.feeds import clips_with_my_matches
from clipping.models import Match, PageWatch, Star
from clipping.reader import matched_words, reader_article
from clipping.views.pages import back_to_next, chosen


def _own_clip(request: HttpRequest, pk: int):  # noqa: ANN202 (a Clip with its annotations)
    return get_object_or_404(clips_with_my_matches(request.user), pk=pk)


# Articles' images come from their sites; they load without a referrer (reader.SET_ATTRIBUTES).
@csp_update({"img-src": ["https:", "http:"]})
@login_required
def clip_read(request: HttpRequest, pk: int) -> HttpResponse:
    """The reader view: the article's main text, its matched words marked; opening it reads it."""
    clip = _own_clip(request, pk)
    mine = clip.my_matches
    words = matched_words((match.summary, match.spans) for match in mine)
    article = reader_article(clip, words)
    Match.objects.owned_by(request.user).filter(clip=clip, read_at__isnull=True).update(
        read_at=timezone.now()
    )
    context = {
        "clip": clip,
        "article": article,
        "history_url": reverse("page_history", args=[clip.page_id]) if clip.page_id else "",
    }
    response = render(request, "clipping/clip_read.html", context)
    response["Referrer-Policy"] = "no-referrer"
    return response


@login_required
@require_POST
def clip_star(request: HttpRequest, pk: int) -> HttpResponse:
    """Star (save) or unstar one of my clips: `starred=1` stars, anything else unstars."""
    clip = _own_clip(request, pk)
    starred = request.POST.get("starred") == "1"
    if starred:
        Star.objects.get_or_create(owner=request.user, clip=clip)
    else:
        Star.objects.filter(owner=request.user, clip=clip).delete()
    if request.headers.get("Accept") == "application/json":
        return JsonResponse({"id": clip.pk, "starred": starred})
    return back_to_next(request)


@login_required
def page_history(request: HttpRequest, pk: int) -> HttpResponse:
    """A page's stored versions and a diff of two (`a` older, `b` newer; default: the last two)."""
    page = get_object_or_404(history.pages_of(request.user).select_related("site"), pk=pk)
    versions = list(history.versions_of(page)[:200])
    by_id = {version.pk: version for version in versions}
    newer = chosen(request.GET.get("b"), by_id) or (versions[0] if versions else None)
    older = chosen(request.GET.get("a"), by_id) or (versions[1] if len(versions) > 1 else None)
    rows, pruned = [], False
    if newer is not None and older is not None and older.pk != newer.pk:
        if older.fetched_at > newer.fetched_at:
            older, newer = newer, older
        old_lines, new_lines = history.version_lines(older), history.version_lines(newer)
        pruned = old_lines is None or new_lines is None
        if not pruned:
            rows = history.diff(old_lines or [], new_lines or [])
    context = {
        "page": page,
        "versions": versions,
        "older": older,
        "newer": newer,
        "rows": rows,
        "pruned": pruned,
        "watching": PageWatch.objects.filter(owner=request.user, page=page).exists(),
    }
    return render(request, "clipping/page_history.html", context)


@login_required
@require_POST
def page_watch(request: HttpRequest, pk: int) -> HttpResponse:
    """Start (`watch=1`) or stop watching a page for changes."""
    page = get_object_or_404(history.pages_of(request.user), pk=pk)
    if request.POST.get("watch") == "1":
        watching.watch(request.user, page.pk)
        messages.success(request, _("You will get a mail when this page changes."))
    else:
        watching.unwatch(request.user, page.pk)
        messages.success(request, _("You will no longer get mail about this page."))
    return redirect("page_history", pk=page.pk)


@login_required
def clip_add(request: HttpRequest) -> HttpResponse:
    """Clip a page by hand (the bookmarklet's target): GET asks, POST fetches and clips it."""
    url = (request.POST.get("url") or request.GET.get("url") or "").strip()[:2000]
    if request.method != "POST" or not url:
        return render(request, "clipping/clip_add.html", {"url": url})
    done = handclip.clip_page(request.user, url)
    if done.clip is None:
        return render(request, "clipping/clip_add.html", {"url": url, "error": done.error})
    if done.again:
        messages.success(request, _("This page was in your clips already; it is up to date now."))
    else:
        messages.success(request, _("The page is in your clips."))
    return redirect("clip_read", pk=done.clip.pk)
