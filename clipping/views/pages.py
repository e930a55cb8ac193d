"""Pages for people: the dashboard, their keyword lists, their clips, and unsubscribing."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.files.uploadedfile import UploadedFile
from django.db.models import Exists, OuterRef, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from analyzer.text.sorting import sort_key
from analyzer.text.wordnet import has_thesaurus
from clipping import backfill, digests, exchange, tasks
from clipping import unsubscribe as unsubscribing
from clipping.conf import clipping_settings
from clipping.feeds import clips_with_my_matches
from clipping.forms import ListPageForm
from clipping.matching.synonyms import changed_choices, list_synonyms
from clipping.models import Clip, KeywordList, Match
from clipping.search import clean_query, search
from clipping.terms import parse_terms
from clipping.views.sites import tell_staff_if_waiting
from crawler.models import Site
from crawler.models.sitesearch import SiteSearch

DASHBOARD_CLIPS = 5
# "My clips" pages back this far; older clips are reached by filtering. Counting every clip of
# a heavy reader to number all pages costs more than the page itself.
MAX_PAGES = 50


T = TypeVar("T")


def by_name(rows: Iterable[T]) -> list[T]:
    """Return rows (lists, sites) in the order of their names as a reader expects it."""
    return sorted(rows, key=lambda row: sort_key(row.name))  # type: ignore[attr-defined]


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
    lists = by_name(KeywordList.objects.owned_by(request.user))
    latest = clips_with_my_matches(request.user)[:DASHBOARD_CLIPS]
    context = {
        "lists": lists,
        "latest_clips": latest,
        "summaries": digests.recent_summaries(request.user.pk),
    }
    return render(request, "clipping/dashboard.html", context)


@login_required
def list_index(request: HttpRequest) -> HttpResponse:
    lists = by_name(KeywordList.objects.owned_by(request.user))
    return render(request, "clipping/list_index.html", {"lists": lists})


@login_required
def list_create(request: HttpRequest) -> HttpResponse:
    form = ListPageForm(request.POST or None, owner=request.user)
    if request.method == "POST" and form.is_valid():
        keyword_list = form.save()
        if backfill.needs_backfill(None, keyword_list):
            tasks.request_backfill(keyword_list.id)
        messages.success(request, _("List “%(name)s” created.") % {"name": keyword_list.name})
        return redirect(keyword_list)
    context = {"form": form, "creating": True, "searched_sites": searched_sites()}
    return render(request, "clipping/list_form.html", context)


def _own_list(request: HttpRequest, pk: int) -> KeywordList:
    return get_object_or_404(KeywordList.objects.owned_by(request.user), pk=pk)


@login_required
def list_detail(request: HttpRequest, pk: int) -> HttpResponse:
    keyword_list = _own_list(request, pk)
    terms = _term_synonyms(keyword_list)
    context = {
        "list": keyword_list,
        "terms": terms,
        "site_lines": [term for term in parse_terms(keyword_list.terms) if term.is_site],
        "switches": any(term.groups for term in terms),
        "thesaurus": has_thesaurus(keyword_list.language),
    }
    return render(request, "clipping/list_detail.html", context)


@login_required
@require_POST
def list_synonyms_save(request: HttpRequest, pk: int) -> HttpResponse:
    """Store the synonym switches of the list page's form: a switch not submitted is off."""
    keyword_list = _own_list(request, pk)
    before = backfill.matching_state(keyword_list)
    switched_on = set(request.POST.getlist("on"))
    described = _term_synonyms(keyword_list, use_choices=False)
    keyword_list.synonym_choices = changed_choices(described, switched_on)
    keyword_list.save(update_fields=["synonym_choices", "updated_at"])
    if backfill.needs_backfill(before, keyword_list):
        tasks.request_backfill(keyword_list.id)
    messages.success(request, _("Synonyms saved."))
    return redirect(keyword_list)


def _term_synonyms(keyword_list: KeywordList, *, use_choices: bool = True) -> list:
    """Return the list's terms with their synonyms grouped by sense (see list_synonyms)."""
    return list_synonyms(
        parse_terms(keyword_list.terms),
        keyword_list.language,
        keyword_list.use_synonyms,
        keyword_list.synonym_choices if use_choices else None,
    )


@login_required
def list_edit(request: HttpRequest, pk: int) -> HttpResponse:
    keyword_list = _own_list(request, pk)
    before = backfill.matching_state(keyword_list)  # validating the form changes the list
    form = ListPageForm(request.POST or None, instance=keyword_list, owner=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        if backfill.needs_backfill(before, keyword_list):
            tasks.request_backfill(keyword_list.id)
        messages.success(request, _("List “%(name)s” saved.") % {"name": keyword_list.name})
        return redirect(keyword_list)
    context = {
        "form": form,
        "list": keyword_list,
        "creating": False,
        "searched_sites": searched_sites(),
    }
    return render(request, "clipping/list_form.html", context)


def searched_sites() -> int:
    """Count the watched sites whose search forms the crawler would type a list's words into."""
    return (
        Site.objects.enabled()
        .approved()
        .filter(searches__in=SiteSearch.objects.searchable())
        .values("id")
        .distinct()
        .count()
    )


@login_required
def list_delete(request: HttpRequest, pk: int) -> HttpResponse:
    keyword_list = _own_list(request, pk)
    if request.method == "POST":
        name = keyword_list.name
        keyword_list.delete()
        messages.success(request, _("List “%(name)s” deleted.") % {"name": name})
        return redirect("list_index")
    return render(request, "clipping/list_confirm_delete.html", {"list": keyword_list})


@login_required
def clip_index(request: HttpRequest) -> HttpResponse:
    """My clips: newest first, filtered by list, site and words in titles and summaries."""
    user = request.user
    lists = by_name(KeywordList.objects.owned_by(user))
    # Only sites with this person's clips: listing every site with clips would name sites that
    # only other people follow. One EXISTS per site, a handful of rows.
    mine = Clip.objects.for_owner(user).filter(site=OuterRef("pk"))
    sites = by_name(Site.objects.filter(Exists(mine)).order_by("id"))
    chosen_list = chosen(request.GET.get("list"), {item.pk: item for item in lists})
    chosen_site = chosen(request.GET.get("site"), {site.pk: site for site in sites})
    query = clean_query(request.GET.get("q"))
    starred = request.GET.get("starred") == "1"
    # One of the user's lists narrows the one EXISTS, probed through (keyword_list, clip).
    clips = clips_with_my_matches(user, keyword_list=chosen_list)
    if chosen_site is not None:
        clips = clips.filter(site=chosen_site)
    if query:
        clips = search(clips, query, user)
    if starred:
        clips = clips.filter(starred=True)
    page = BoundedPage.of(clips, request.GET.get("page"), clipping_settings().page_size)
    filters = {
        "list": chosen_list.pk if chosen_list else "",
        "site": chosen_site.pk if chosen_site else "",
        "q": query,
        "starred": starred,
    }
    context = {
        "page": page,
        "lists": lists,
        "sites": sites,
        "filters": filters,
        "filtered": bool(chosen_list or chosen_site or query or starred),
        "feed_url": settings.SITE_URL + reverse("clip_feed", args=[user.feed_token]),
        "starred_feed_url": settings.SITE_URL + reverse("starred_feed", args=[user.feed_token]),
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
    return back_to_next(request)


@login_required
@require_POST
def clip_mark_unread(request: HttpRequest, pk: int) -> HttpResponse:
    """Mark one of my clips unread again (opening it in the reader marked it read)."""
    mine = Match.objects.owned_by(request.user).filter(clip_id=pk)
    if not mine.exists():
        raise Http404("No such clip.")
    mine.update(read_at=None)
    messages.success(request, _("The clip is unread again."))
    return back_to_next(request)


@login_required
@require_POST
def clip_mark_all_read(request: HttpRequest) -> HttpResponse:
    """Mark every clip of mine read."""
    Match.objects.owned_by(request.user).unread().update(read_at=timezone.now())
    messages.success(request, _("All clips are marked read."))
    return back_to_next(request)


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


def chosen(raw: str | None, options: dict[int, object]) -> object | None:
    """Return the option a query parameter names, None if it names none of the user's."""
    try:
        return options.get(int(raw or ""))
    except ValueError:
        return None


def back_to_next(request: HttpRequest) -> HttpResponse:
    """Redirect to the form's `next` address when it is this site's, else to My clips."""
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(target)
    return redirect("clip_index")


# --- Import and export: lists as JSON or CSV, sites as OPML, the whole account as JSON -------

UPLOAD_MAX_BYTES = 2 * 1024 * 1024


@login_required
def lists_export(request: HttpRequest, fmt: str) -> HttpResponse:
    """Download my keyword lists as JSON or CSV."""
    lists = KeywordList.objects.owned_by(request.user)
    if fmt == "json":
        body, content_type = exchange.lists_json(lists), "application/json"
    elif fmt == "csv":
        body, content_type = exchange.lists_csv(lists), "text/csv; charset=utf-8"
    else:
        raise Http404("No such format.")
    return _download(body, content_type, f"keyword-lists.{fmt}")


@login_required
@require_POST
def lists_import(request: HttpRequest) -> HttpResponse:
    """Create or update my lists from an uploaded JSON or CSV file."""
    upload = _upload(request)
    if upload is None:
        return redirect("list_index")
    try:
        records = exchange.read_lists(upload.read(), upload.name or "")
    except exchange.ExchangeError as exc:
        messages.error(request, _("Nothing was imported: %(reason)s") % {"reason": exc})
        return redirect("list_index")
    report = exchange.import_lists(request.user, records)
    for list_id in report.to_backfill:
        tasks.request_backfill(list_id)
    counts = {
        "created": len(report.created),
        "updated": len(report.updated),
        "unchanged": len(report.unchanged),
    }
    messages.success(
        request,
        _("Lists imported: %(created)s created, %(updated)s updated, %(unchanged)s unchanged.")
        % counts,
    )
    for name, error in report.failed:
        messages.error(
            request,
            _("List “%(name)s” was not imported: %(error)s") % {"name": name, "error": error},
        )
    return redirect("list_index")


@login_required
def sites_export(request: HttpRequest) -> HttpResponse:
    """Download the sites my clips come from as OPML."""
    body = exchange.sites_opml(request.user, _("%(site)s: my sites") % {"site": settings.SITE_NAME})
    return _download(body, "text/x-opml; charset=utf-8", "sites.opml")


@login_required
@require_POST
def sites_import(request: HttpRequest) -> HttpResponse:
    """Read a feed reader's OPML export; show its feeds, to follow or add the ones chosen."""
    upload = _upload(request)
    if upload is None:
        return redirect("list_index")
    try:
        feeds = exchange.read_opml(upload.read())
    except exchange.ExchangeError as exc:
        messages.error(request, _("Nothing was imported: %(reason)s") % {"reason": exc})
        return redirect("list_index")
    rows = exchange.feed_rows(request.user, feeds)
    return render(request, "clipping/opml_import.html", {"rows": rows})


@login_required
@require_POST
def sites_import_follow(request: HttpRequest) -> HttpResponse:
    """Follow or add the sites of the feeds chosen on the OPML page."""
    results = exchange.follow_feeds(request.user, request.POST.getlist("url"))
    for result in results:
        if result.outcome is not None:
            tell_staff_if_waiting(result.outcome)
    return render(request, "clipping/opml_import.html", {"results": results})


@login_required
def account_export(request: HttpRequest) -> StreamingHttpResponse:
    """Download my lists, sites and clips as one JSON document."""
    response = StreamingHttpResponse(
        exchange.account_document(request.user), content_type="application/json"
    )
    response["Content-Disposition"] = 'attachment; filename="webclip-account.json"'
    return response


def _upload(request: HttpRequest) -> UploadedFile | None:
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, _("Choose a file to import."))
        return None
    if upload.size > UPLOAD_MAX_BYTES:
        size = UPLOAD_MAX_BYTES // 1024 // 1024
        messages.error(
            request,
            ngettext(
                "The file is larger than %(size)s MiB.",
                "The file is larger than %(size)s MiB.",
                size,
            )
            % {"size": size},
        )
        return None
    return upload


def _download(body: str, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
