"""Account settings: notification preferences and account deletion."""

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts.forms import DeleteAccountForm, PreferencesForm


@login_required
def settings_view(request: HttpRequest) -> HttpResponse:
    form = PreferencesForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Your notification preferences are saved.")
        return redirect("account_settings")
    return render(
        request,
        "accounts/settings.html",
        {"form": form, "delete_form": DeleteAccountForm(request.user)},
    )


@login_required
@require_POST
def rotate_feed_token(request: HttpRequest) -> HttpResponse:
    request.user.rotate_feed_token()
    messages.success(request, "Your feed has a new address; the old one no longer works.")
    return redirect("account_settings")


@login_required
def delete_account(request: HttpRequest) -> HttpResponse:
    form = DeleteAccountForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = request.user
        logout(request)
        user.delete()  # cascades to lists, matches, deliveries and email addresses
        messages.success(request, "Your account and all its data are deleted.")
        return redirect("home")
    return render(request, "accounts/delete.html", {"form": form})


def mailbox(request: HttpRequest) -> HttpResponse:
    """Show the local mailbox: all of it to staff, a visitor's own mail to anyone else."""
    from django.conf import settings
    from django.contrib.auth.views import redirect_to_login
    from django.http import Http404

    from accounts.mailbox import read_mailbox, read_mailbox_for, readable_addresses

    if not (settings.DEBUG and settings.EMAIL_PROVIDER == "file"):
        raise Http404
    if request.user.is_staff:
        mails = read_mailbox(settings.EMAIL_FILE_PATH)
    else:
        addresses = readable_addresses(request)
        if not addresses:
            return redirect_to_login(request.get_full_path())
        mails = read_mailbox_for(settings.EMAIL_FILE_PATH, addresses)
    return render(
        request, "accounts/mailbox.html", {"mails": mails, "everyone": request.user.is_staff}
    )
