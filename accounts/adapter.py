"""django-allauth hooks: absolute links in mail point at SITE_URL."""

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings

from accounts.mailbox import grant_address


class AccountAdapter(DefaultAccountAdapter):
    def get_email_confirmation_url(self, request, emailconfirmation) -> str:
        url = super().get_email_confirmation_url(request, emailconfirmation)
        if request is None:
            return settings.SITE_URL + url
        return url

    def send_confirmation_mail(self, request, emailconfirmation, signup: bool) -> None:
        super().send_confirmation_mail(request, emailconfirmation, signup)
        if request is not None:
            # Whoever asked for this verification may read it in the local mailbox.
            grant_address(request, emailconfirmation.email_address.email)
