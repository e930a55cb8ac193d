"""The Sites page: the sites a person follows, with their crawl status, and adding one."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from accounts.tasks import send_account_mail, serialize
from clipping import emails
from crawler.conf import user_site_settings
from crawler.models import Site
from crawler.usersites.follow import Added, add_site, followed_sites, unfollow_site
from crawler.usersites.preview import Preview, normalized, preview_site
from crawler.usersites.quota import SiteRefused, pages_allowance

SESSION_KEY = "site_preview"  # the preview the person saw, until they add the site
RUNS_SHOWN = 5


class SiteURLForm(forms.Form):
    url = forms.CharField(
        label=gettext_lazy("Address of a site, a section or a feed"),
        max_length=2083,
        widget=forms.TextInput(attrs={"placeholder": "https://news.example.com/science/"}),
    )


@login_required
def site_index(request: HttpRequest) -> HttpResponse:
    """My sites; `?url=` (the "watch this site" bookmarklet) fills the address to preview."""
    url = request.GET.get("url", "").strip()[:2083]
    return _index(request, SiteURLForm(initial={"url": url} if url else None))


@login_required
@require_POST
def site_preview(request: HttpRequest) -> HttpResponse:
    """Fetch and analyse the address, and show what a site of it would give."""
    form = SiteURLForm(request.POST)
    if not form.is_valid():
        return _index(request, form, status=400)
    preview = preview_site(request.user, form.cleaned_data["url"])
    if not preview.error:
        request.session[SESSION_KEY] = preview.to_dict()
    return _index(request, form, preview=preview)


@login_required
@require_POST
def site_add(request: HttpRequest) -> HttpResponse:
    """Add the previewed site, or follow the site already watching its origin."""
    form = SiteURLForm(request.POST)
    if not form.is_valid():
        return _index(request, form, status=400)
    url = normalized(form.cleaned_data["url"])
    saved = request.session.pop(SESSION_KEY, None)
    try:
        preview = Preview.from_dict(saved) if saved else None
    except TypeError:  # kept by an older version of the page: preview again
        preview = None
    try:
        added = add_site(request.user, url, preview)
    except SiteRefused as exc:
        messages.error(request, str(exc))
        return redirect("site_index")
    tell_staff_if_waiting(added)
    messages.success(request, added.message)
    return redirect("site_index")


def tell_staff_if_waiting(added: Added) -> None:
    """Queue the one mail to staff about a new site that waits for their approval."""
    if not added.created or added.site.approval != Site.Approval.PENDING:
        return
    message = emails.site_waiting(added.site)
    if message is not None:
        send_account_mail.delay_on_commit(serialize(message))


@login_required
def site_detail(request: HttpRequest, pk: int) -> HttpResponse:
    site = get_object_or_404(Site.objects.followed_by(request.user), pk=pk)
    (row,) = [r for r in followed_sites(request.user) if r.site.pk == site.pk]
    runs = list(site.runs.order_by("-started_at", "-id")[:RUNS_SHOWN])
    return render(request, "clipping/site_detail.html", {"row": row, "runs": runs})


@login_required
@require_POST
def site_remove(request: HttpRequest, pk: int) -> HttpResponse:
    site = get_object_or_404(Site.objects.followed_by(request.user), pk=pk)
    unfollow_site(request.user, site)
    messages.success(request, _("You no longer follow %(name)s.") % {"name": site.name})
    return redirect("site_index")


def _index(
    request: HttpRequest,
    form: SiteURLForm,
    *,
    preview: Preview | None = None,
    status: int = 200,
) -> HttpResponse:
    conf = user_site_settings()
    rows = followed_sites(request.user)
    context = {
        "form": form,
        "rows": rows,
        "preview": preview,
        "policy": conf.policy,
        "max_sites": conf.max_sites,
        "pages_per_day": conf.pages_per_day,
        "pages_left": pages_allowance(request.user),
    }
    return render(request, "clipping/sites.html", context, status=status)
