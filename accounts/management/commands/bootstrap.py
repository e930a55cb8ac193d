"""Create the first admin account for a local instance (idempotent)."""

import os
import secrets

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.models import User

RESET_HINT = "Forgot it? Choose a new one with: .venv/bin/python manage.py changepassword {email}"


class Command(BaseCommand):
    help = "Create the admin account (WEBCLIP_ADMIN_EMAIL / WEBCLIP_ADMIN_PASSWORD) if it does not exist."

    def handle(self, *args, **options) -> None:
        email = settings.WEBCLIP_ADMIN_EMAIL.lower()
        if User.objects.filter(email=email).exists():
            self.stdout.write(f"Admin account: {email} (exists; password unchanged)")
            self.stdout.write(RESET_HINT.format(email=email))
            return
        password = os.environ.get("WEBCLIP_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        user = User.objects.create_superuser(email=email, password=password)
        EmailAddress.objects.create(user=user, email=email, primary=True, verified=True)
        self.stdout.write(self.style.SUCCESS(f"Admin account created: {email} / {password}"))
        self.stdout.write(
            f"Log in at {settings.SITE_URL}/admin/ (set WEBCLIP_ADMIN_PASSWORD to choose it)."
        )
        self.stdout.write(RESET_HINT.format(email=email))
