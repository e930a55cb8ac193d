"""`manage.py bootstrap`: the first admin account of a local instance, made once."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from allauth.account.models import EmailAddress
from django.core.management import call_command

from accounts.models import User

pytestmark = pytest.mark.django_db


def bootstrap() -> str:
    out = StringIO()
    call_command("bootstrap", stdout=out)
    return out.getvalue()


def test_it_creates_a_verified_superuser_with_the_password_from_the_env(settings, monkeypatch):
    settings.WEBCLIP_ADMIN_EMAIL = "Root@Example.org"
    monkeypatch.setenv("WEBCLIP_ADMIN_PASSWORD", "chosen-admin-pass-42")

    assert "root@example.org / chosen-admin-pass-42" in bootstrap()

    admin = User.objects.get(email="root@example.org")
    assert admin.is_superuser and admin.is_staff and admin.check_password("chosen-admin-pass-42")
    assert EmailAddress.objects.get(user=admin).verified


def test_without_a_password_it_prints_a_random_one_that_works(settings, monkeypatch):
    settings.WEBCLIP_ADMIN_EMAIL = "root@example.org"
    monkeypatch.delenv("WEBCLIP_ADMIN_PASSWORD", raising=False)

    password = re.search(r"root@example\.org / (\S+)", bootstrap()).group(1)

    assert len(password) >= 12
    assert User.objects.get(email="root@example.org").check_password(password)


def test_running_it_again_changes_nothing(settings, monkeypatch):
    settings.WEBCLIP_ADMIN_EMAIL = "root@example.org"
    monkeypatch.setenv("WEBCLIP_ADMIN_PASSWORD", "first-admin-pass-42")
    bootstrap()
    monkeypatch.setenv("WEBCLIP_ADMIN_PASSWORD", "second-admin-pass-42")

    assert "exists; password unchanged" in bootstrap()

    assert User.objects.count() == 1
    assert User.objects.get().check_password("first-admin-pass-42")
