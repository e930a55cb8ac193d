"""django-allauth hooks: absolute links in mail point at SITE_URL; mail leaves off the request."""

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context as allauth_context
from django.conf import settings
from django.contrib.sites.shortcuts import get_current_site
from django.utils import translation

from accounts.mailbox import grant_confirmation
from accounts.tasks import send_account_mail, serialize


class AccountAdapter(DefaultAccountAdapter):
    def save_user(self, request, user, form, commit: bool = True):
        """Start a new account in the page's language and the zone its browser reported."""
        from accounts.views import SESSION_TIME_ZONE

        language = translation.get_language() or ""
        if language in dict(settings.LANGUAGES):
            user.language = language
        zone = request.session.get(SESSION_TIME_ZONE) if request is not None else None
        if zone:
            user.time_zone = zone
            user.time_zone_confirmed = True
        return super().save_user(request, user, form, commit=commit)

    def get_email_confirmation_url(self, request, emailconfirmation) -> str:
        url = super().get_email_confirmation_url(request, emailconfirmation)
        if request is None:
            return settings.SITE_URL + url
        return url

    def send_mail(self, template_prefix: str, email: str, context: dict[str, Any]) -> None:
        """Render the mail now and queue its sending, so no answer waits for a mail server."""
        request = allauth_context.request
        full = {"request": request, "email": email, "current_site": get_current_site(request)}
        full.update(context)
        send_account_mail.delay(serialize(self.render_mail(template_prefix, email, full)))

    def send_confirmation_mail(self, request, emailconfirmation, signup: bool) -> None:
        super().send_confirmation_mail(request, emailconfirmation, signup)
        if request is not None and signup:
            # Who signed up may read this one verification mail in the local mailbox (the
            # address was free: sign-up refuses a taken one). An address added to an account
            # grants nothing: it may be another person's.
            grant_confirmation(
                request, emailconfirmation.email_address.email, emailconfirmation.key
            )
