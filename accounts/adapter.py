"""django-allauth hooks: absolute links in mail point at SITE_URL."""

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings


class AccountAdapter(DefaultAccountAdapter):
    def get_email_confirmation_url(self, request, emailconfirmation) -> str:
        url = super().get_email_confirmation_url(request, emailconfirmation)
        if request is None:
            return settings.SITE_URL + url
        return url
