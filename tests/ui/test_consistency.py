"""One name and one vocabulary: the site's name in allauth's mail, distinct admin sections,
no "Add" for records the system writes, "Log in" / "Sign up" / "Log out" everywhere."""

from __future__ import annotations

import re

import pytest
from django.contrib.sites.models import Site
from django.core import mail
from django.urls import reverse

from tests.factories import make_user

pytestmark = pytest.mark.django_db


def test_the_sites_framework_carries_the_site_name_and_domain(settings):
    site = Site.objects.get_current()
    assert (site.name, site.domain) == (settings.SITE_NAME, "127.0.0.1:8000")


@pytest.mark.usefixtures("eager_celery")
def test_the_verification_mail_greets_from_the_site_name(client, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    client.post(
        reverse("account_signup"),
        {
            "email": "dana@example.com",
            "password1": "x-Correct-9-horse",
            "password2": "x-Correct-9-horse",
        },
    )
    (sent,) = mail.outbox
    assert sent.subject.startswith("[Webclip] ")
    assert "Hello from Webclip!" in sent.body and "127.0.0.1:8000!" not in sent.body
    assert "signed up for Webclip with this address" in sent.body
    assert "register an account on" not in sent.body
    assert "127.0.0.1:8000" not in sent.body.replace(settings.SITE_URL + "/", "")  # only links


def test_admin_sections_have_distinct_names_and_system_records_no_add(staff_client):
    page = staff_client.get("/admin/").content.decode()
    sections = re.findall(r'<caption>\s*<a [^>]*class="section"[^>]*>([^<]+)</a>', page)
    assert len(sections) == len(set(s.lower() for s in sections)) > 3
    for model in ("clip", "match", "delivery", "webhookevent", "digest"):
        assert f"/admin/clipping/{model}/add/" not in page
        assert staff_client.get(f"/admin/clipping/{model}/add/").status_code == 403
    assert "/admin/clipping/keywordlist/add/" in page


@pytest.mark.parametrize("path", ["/", "/accounts/login/", "/accounts/signup/"])
def test_the_entrance_pages_use_one_vocabulary(client, path):
    text = client.get(path).content.decode()
    for other in ("Sign In", "Sign in", "sign in", "Sign Up", "Signup", "Sign Out", "sign out"):
        assert other not in text
    assert "Log in" in text and "Sign up" in text


def test_the_logged_in_message_says_log_in(client):
    make_user("alice@example.com")
    response = client.post(
        reverse("account_login"),
        {"login": "alice@example.com", "password": "correct-horse-battery-9"},
        follow=True,
    )
    assert "You are logged in as alice@example.com." in response.content.decode()
