"""The local mailbox page: mail written by the file backend, readable only on a DEBUG laptop."""

from __future__ import annotations

import pytest
from django.core.mail import send_mail

pytestmark = pytest.mark.django_db


@pytest.fixture
def file_mailbox(settings, tmp_path):
    settings.EMAIL_PROVIDER = "file"
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    settings.DEBUG = True
    return tmp_path


def test_the_mailbox_page_shows_the_newest_mail_first_and_escaped(client, file_mailbox):
    send_mail("Older", "first body", None, ["dana@example.com"])
    send_mail("Newer <b>bold</b>", "link: http://127.0.0.1:8000/x/", None, ["erin@example.com"])

    page = client.get("/mailbox/").content.decode()

    assert page.index("Newer &lt;b&gt;bold&lt;/b&gt;") < page.index("Older")
    assert "erin@example.com" in page and "first body" in page
    assert "<b>bold</b>" not in page


@pytest.mark.parametrize(("debug", "provider"), [(False, "file"), (True, "smtp")])
def test_the_mailbox_page_does_not_exist_outside_a_debug_file_setup(
    client, file_mailbox, settings, debug, provider
):
    send_mail("Secret", "reset link", None, ["dana@example.com"])
    settings.DEBUG = debug
    settings.EMAIL_PROVIDER = provider
    assert client.get("/mailbox/").status_code == 404
