"""Account settings: notification preferences, language and time zone, API tokens, deletion."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views import i18n
from django.views.decorators.http import require_POST

from accounts.forms import DeleteAccountForm, PreferencesForm
from accounts.models import API_TOKENS_PER_USER, ApiToken
from accounts.timezones import canonical_time_zone

# The browser's zone, reported once per session; applied to an account made in this session.
SESSION_TIME_ZONE = "browser_time_zone"
THEME_COOKIE = "webclip_theme"
THEME_COOKIE_AGE = 365 * 24 * 3600
# "auto" follows the system's setting (prefers-color-scheme).
THEMES = ("auto", "light", "dark")


@login_required
def settings_view(request: HttpRequest) -> HttpResponse:
    form = PreferencesForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        user = form.save(commit=False)
        user.time_zone_confirmed = True
        user.save()
        if user.language:
            translation.activate(user.language)
        messages.success(request, _("Your preferences are saved."))
        response = redirect("account_settings")
        _remember_language(response, user.language)
        return response
    return render(
        request,
        "accounts/settings.html",
        {"form": form, "delete_form": DeleteAccountForm(request.user)},
    )


@login_required
@require_POST
def rotate_feed_token(request: HttpRequest) -> HttpResponse:
    request.user.rotate_feed_token()
    messages.success(request, _("Your feed has a new address; the old one no longer works."))
    return redirect("account_settings")


@login_required
@require_POST
def api_token_create(request: HttpRequest) -> HttpResponse:
    """Create a personal API token and show it, this once: only its digest is kept."""
    name = " ".join(request.POST.get("name", "").split())[:100] or _("API token")
    if ApiToken.objects.owned_by(request.user).count() >= API_TOKENS_PER_USER:
        messages.error(
            request,
            _("You have %(count)d tokens; revoke one first.") % {"count": API_TOKENS_PER_USER},
        )
        return redirect("account_settings")
    token, secret = ApiToken.issue(request.user, name)
    response = render(
        request, "accounts/api_token_created.html", {"token": token, "secret": secret}
    )
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def api_token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken.objects.owned_by(request.user), pk=pk)
    token.delete()
    messages.success(request, _("The token “%(name)s” is revoked.") % {"name": token.name})
    return redirect("account_settings")


@login_required
def delete_account(request: HttpRequest) -> HttpResponse:
    form = DeleteAccountForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = request.user
        logout(request)
        user.delete()  # cascades to lists, matches, deliveries and email addresses
        messages.success(request, _("Your account and all its data are deleted."))
        return redirect("home")
    return render(request, "accounts/delete.html", {"form": form})


def mailbox(request: HttpRequest) -> HttpResponse:
    """Show the local mailbox: all of it to staff, a visitor's own mail to anyone else."""
    from django.conf import settings
    from django.contrib.auth.views import redirect_to_login
    from django.http import Http404

    from accounts.mailbox import read_mailbox, readable_mails

    if not (settings.DEBUG and settings.EMAIL_PROVIDER == "file"):
        raise Http404
    if request.user.is_staff:
        mails = read_mailbox(settings.EMAIL_FILE_PATH)
    else:
        mails = readable_mails(request, settings.EMAIL_FILE_PATH)
        if not mails and not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
    return render(
        request, "accounts/mailbox.html", {"mails": mails, "everyone": request.user.is_staff}
    )


# A mail's HTML keeps its own <style> and inline styles, and nothing else runs or loads: no
# script, no form, no frame, no fetch; images only inline. The frame's sandbox says the same.
MAIL_BODY_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'self'; "
    "sandbox allow-popups allow-popups-to-escape-sandbox"
)


def mailbox_body(request: HttpRequest, file: str, number: int) -> HttpResponse:
    """Serve one mail's HTML part for the mailbox page's frame, under its own strict policy."""
    from django.http import Http404

    from accounts.mailbox import find_mail

    if not (settings.DEBUG and settings.EMAIL_PROVIDER == "file"):
        raise Http404
    found = find_mail(request, settings.EMAIL_FILE_PATH, file, number)
    if found is None or not found.html:
        raise Http404
    response = HttpResponse(found.html, content_type="text/html; charset=utf-8")
    response["Content-Security-Policy"] = MAIL_BODY_CSP
    response["X-Frame-Options"] = "SAMEORIGIN"
    response["Referrer-Policy"] = "no-referrer"
    response["Cache-Control"] = "private, no-store"
    return response


@require_POST
def set_time_zone(request: HttpRequest) -> HttpResponse:
    """Take the zone the browser reports (Intl) for an account that has not chosen one.

    The zone is kept in the session too, so an account made later in it starts with it.
    An alias (Asia/Calcutta) is read as its current zone; an unknown name changes nothing.
    """
    zone = canonical_time_zone(request.POST.get("time_zone", "").strip()[:64])
    if zone is None:
        return HttpResponse(status=400)
    request.session[SESSION_TIME_ZONE] = zone
    user = request.user
    if user.is_authenticated and not user.time_zone_confirmed:
        user.time_zone = zone
        user.time_zone_confirmed = True
        user.save(update_fields=["time_zone", "time_zone_confirmed"])
    return HttpResponse(status=204)


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Switch the language: Django's cookie, and the account's choice when signed in."""
    language = request.POST.get("language", "")
    if request.user.is_authenticated and language in dict(settings.LANGUAGES):
        request.user.language = language
        request.user.save(update_fields=["language"])
    return i18n.set_language(request)


@require_POST
def set_theme(request: HttpRequest) -> HttpResponse:
    """Choose light, dark or the system's theme (a cookie: it also works signed out)."""
    theme = request.POST.get("theme", "auto")
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "/"
    response = redirect(target)
    if theme in THEMES and theme != "auto":
        response.set_cookie(
            THEME_COOKIE,
            theme,
            max_age=THEME_COOKIE_AGE,
            samesite="Lax",
            secure=settings.SESSION_COOKIE_SECURE,
        )
    else:
        response.delete_cookie(THEME_COOKIE)
    return response


def _remember_language(response: HttpResponse, language: str) -> None:
    if language:
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            samesite="Lax",
            secure=settings.SESSION_COOKIE_SECURE,
        )
    else:
        response.delete_cookie(settings.LANGUAGE_COOKIE_NAME)
