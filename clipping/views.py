"""Pages for people: the dashboard, their keyword lists, their clips, and unsubscribing."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import connection
from django.db.models import BooleanField, Exists, OuterRef, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from clipping import backfill, tasks
from clipping import unsubscribe as unsubscribing
from clipping.conf import clipping_settings
from clipping.feeds import clips_with_my_matches
from clipping.forms import KeywordListForm
from clipping.models import Clip, KeywordList, Match
from clipping.terms import describe_expansions, parse_terms
from crawler.models import Site

DASHBOARD_CLIPS = 5
# The words of title and summary, a column PostgreSQL generates (migration 0006), GIN-indexed.
CLIP_TEXT = '"clipping_clip"."search_words"'
SEARCH_WORD = re.compile(r"[^\W_]+")
SEARCH_WORDS = 8
# "My clips" pages back this far; older clips are reached by filtering. Counting every clip of
# a heavy reader to number all pages costs more than the page itself.
MAX_PAGES = 50


@dataclass(frozen=True)
class BoundedPage:
    """One page of a query read with one more row than shown: no COUNT, a bounded OFFSET."""

    object_list: list[Clip]
    number: int
    has_next: bool

    @classmethod
    def of(cls, rows: QuerySet[Clip], raw_number: str | None, size: int) -> BoundedPage:
        try:
            number = min(max(int(raw_number or 1), 1), MAX_PAGES)
        except ValueError:
            number = 1
        start = (number - 1) * size
        found = list(rows[start : start + size + 1])
        if not found and number > 1:  # past the end: show the first page, as Paginator did
            return cls.of(rows, "1", size)
        return cls(found[:size], number, len(found) > size and number < MAX_PAGES)

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    def has_other_pages(self) -> bool:
        return self.has_next or self.has_previous

    def next_page_number(self) -> int:
        return self.number + 1

    def previous_page_number(self) -> int:
        return self.number - 1


def home(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("dashboard")
    return render(request, "home.html")


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    lists = KeywordList.objects.owned_by(request.user)
    latest = clips_with_my_matches(request.user)[:DASHBOARD_CLIPS]
    return render(request, "clipping/dashboard.html", {"lists": lists, "latest_clips": latest})


@login_required
def list_index(request: HttpRequest) -> HttpResponse:
    return render(
        request, "clipping/list_index.html", {"lists": KeywordList.objects.owned_by(request.user)}
    )


@login_required
def list_create(request: HttpRequest) -> HttpResponse:
    form = KeywordListForm(request.POST or None, owner=request.user)
    if request.method == "POST" and form.is_valid():
        keyword_list = form.save()
        if backfill.needs_backfill(None, keyword_list):
            tasks.request_backfill(keyword_list.id)
        messages.success(request, f"List “{keyword_list.name}” created.")
        return redirect(keyword_list)
    return render(request, "clipping/list_form.html", {"form": form, "creating": True})


def _own_list(request: HttpRequest, pk: int) -> KeywordList:
    return get_object_or_404(KeywordList.objects.owned_by(request.user), pk=pk)


@login_required
def list_detail(request: HttpRequest, pk: int) -> HttpResponse:
    keyword_list = _own_list(request, pk)
    expansions = describe_expansions(
        parse_terms(keyword_list.terms), keyword_list.language, keyword_list.use_synonyms
    )
    return render(
        request, "clipping/list_detail.html", {"list": keyword_list, "expansions": expansions}
    )


@login_required
def list_edit(request: HttpRequest, pk: int) -> HttpResponse:
    keyword_list = _own_list(request, pk)
    before = backfill.matching_state(keyword_list)  # validating the form changes the list
    form = KeywordListForm(request.POST or None, instance=keyword_list, owner=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        if backfill.needs_backfill(before, keyword_list):
            tasks.request_backfill(keyword_list.id)
        messages.success(request, f"List “{keyword_list.name}” saved.")
        return redirect(keyword_list)
    return render(
        request, "clipping/list_form.html", {"form": form, "list": keyword_list, "creating": False}
    )


@login_required
def list_delete(request: HttpRequest, pk: int) -> HttpResponse:
    keyword_list = _own_list(request, pk)
    if request.method == "POST":
        name = keyword_list.name
        keyword_list.delete()
        messages.success(request, f"List “{name}” deleted.")
        return redirect("list_index")
    return render(request, "clipping/list_confirm_delete.html", {"list": keyword_list})


@login_required
def clip_index(request: HttpRequest) -> HttpResponse:
    """My clips: newest first, filtered by list, site and words in titles and summaries."""
    user = request.user
    lists = list(KeywordList.objects.owned_by(user))
    # Only sites with this person's clips: listing every site with clips would name sites that
    # only other people follow. One EXISTS per site, a handful of rows.
    mine = Clip.objects.for_owner(user).filter(site=OuterRef("pk"))
    sites = list(Site.objects.filter(Exists(mine)).order_by("name", "id"))
    chosen_list = _choice(request.GET.get("list"), {item.pk: item for item in lists})
    chosen_site = _choice(request.GET.get("site"), {site.pk: site for site in sites})
    query = " ".join(request.GET.get("q", "").split())[:200]
    # One of the user's lists narrows the one EXISTS, probed through (keyword_list, clip).
    clips = clips_with_my_matches(user, keyword_list=chosen_list)
    if chosen_site is not None:
        clips = clips.filter(site=chosen_site)
    if query:
        clips = search(clips, query, user)
    page = BoundedPage.of(clips, request.GET.get("page"), clipping_settings().page_size)
    filters = {
        "list": chosen_list.pk if chosen_list else "",
        "site": chosen_site.pk if chosen_site else "",
        "q": query,
    }
    context = {
        "page": page,
        "lists": lists,
        "sites": sites,
        "filters": filters,
        "filtered": bool(chosen_list or chosen_site or query),
        "feed_url": settings.SITE_URL + reverse("clip_feed", args=[user.feed_token]),
    }
    return render(request, "clipping/clip_index.html", context)


@login_required
@require_POST
def clip_mark_read(request: HttpRequest, pk: int) -> HttpResponse:
    """Mark one of my clips read."""
    mine = Match.objects.owned_by(request.user).filter(clip_id=pk)
    if not mine.exists():
        raise Http404("No such clip.")
    mine.filter(read_at__isnull=True).update(read_at=timezone.now())
    return _back(request)


@login_required
@require_POST
def clip_mark_all_read(request: HttpRequest) -> HttpResponse:
    """Mark every clip of mine read."""
    Match.objects.owned_by(request.user).unread().update(read_at=timezone.now())
    messages.success(request, "All clips are marked read.")
    return _back(request)


@csrf_exempt  # RFC 8058: mail providers post the one-click form without cookies or a CSRF token
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET shows a confirmation form; POST (one-click or that form) stops the mail at once."""
    try:
        target = unsubscribing.read_token(token)
    except unsubscribing.BadToken:
        return render(request, "clipping/unsubscribe_invalid.html", status=400)
    except LookupError as exc:
        raise Http404(str(exc)) from None
    if request.method == "POST":
        unsubscribing.stop_mail(target)
        return render(request, "clipping/unsubscribe_done.html", {"target": target})
    return render(request, "clipping/unsubscribe_confirm.html", {"target": target})


def search(clips: QuerySet[Clip], query: str, user: object) -> QuerySet[Clip]:
    """Keep the clips whose title or summary has every word of the query (as a word prefix).

    On PostgreSQL through the GIN index of migration 0006 (full-text, "simple" configuration);
    elsewhere a case-insensitive substring search that also reads the user's match summaries.
    """
    if connection.vendor != "postgresql":
        in_my_summaries = Match.objects.filter(
            clip=OuterRef("pk"), owner=user, summary__icontains=query
        )
        return clips.filter(
            Q(title__icontains=query) | Q(summary__icontains=query) | Exists(in_my_summaries)
        )
    words = [word.lower() for word in SEARCH_WORD.findall(query)][:SEARCH_WORDS]
    if not words:
        return clips.none()
    # Only letters and digits reach the tsquery, so no operator of the user's can.
    tsquery = " & ".join(f"{word}:*" for word in words)
    # The SQL is a constant naming the indexed column; the user's words are a parameter.
    matches = RawSQL(  # noqa: S611
        f"{CLIP_TEXT} @@ to_tsquery('simple'::regconfig, %s)", [tsquery], BooleanField()
    )
    return clips.filter(matches)


def _choice(raw: str | None, options: dict[int, object]) -> object | None:
    """Return the option a query parameter names, None if it names none of the user's."""
    try:
        return options.get(int(raw or ""))
    except ValueError:
        return None


def _back(request: HttpRequest) -> HttpResponse:
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(target)
    return redirect("clip_index")
