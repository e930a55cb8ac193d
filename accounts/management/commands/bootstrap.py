"""Create the first admin account for a local instance (idempotent)."""

import os
import secrets

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.models import User


class Command(BaseCommand):
    help = "Create the admin account (WEBCLIP_ADMIN_EMAIL / WEBCLIP_ADMIN_PASSWORD) if it does not exist."

    def handle(self, *args, **options) -> None:
        email = settings.WEBCLIP_ADMIN_EMAIL.lower()
        if User.objects.filter(email=email).exists():
            self.stdout.write(f"Admin account: {email} (exists; password unchanged)")
            return
        password = os.environ.get("WEBCLIP_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        user = User.objects.create_superuser(email=email, password=password)
        EmailAddress.objects.create(user=user, email=email, primary=True, verified=True)
        self.stdout.write(self.style.SUCCESS(f"Admin account created: {email} / {password}"))
        self.stdout.write(
            "Log in at http://127.0.0.1:8000/admin/ (set WEBCLIP_ADMIN_PASSWORD to choose it)."
        )
