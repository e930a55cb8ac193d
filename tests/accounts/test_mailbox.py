"""The local mailbox page: on a DEBUG laptop, staff read all of it and others their own mail."""

from __future__ import annotations

import re

import pytest
from django.core.mail import send_mail
from django.urls import reverse

from tests.factories import PASSWORD, make_user

# Account mail is queued; here the tasks run in the test process, as a worker would.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]


def test_the_mailbox_page_shows_the_newest_mail_first_and_escaped(staff_client, file_mailbox):
    send_mail("Older", "first body", None, ["dana@example.com"])
    send_mail("Newer <b>bold</b>", "link: http://127.0.0.1:8000/x/", None, ["erin@example.com"])

    page = staff_client.get("/mailbox/").content.decode()

    assert page.index("Newer &lt;b&gt;bold&lt;/b&gt;") < page.index("Older")
    assert "erin@example.com" in page and "first body" in page
    assert "<b>bold</b>" not in page


@pytest.mark.parametrize(("debug", "provider"), [(False, "file"), (True, "smtp")])
def test_the_mailbox_page_does_not_exist_outside_a_debug_file_setup(
    staff_client, file_mailbox, settings, debug, provider
):
    send_mail("Secret", "reset link", None, ["dana@example.com"])
    settings.DEBUG = debug
    settings.EMAIL_PROVIDER = provider
    assert staff_client.get("/mailbox/").status_code == 404


def test_an_anonymous_visitor_is_sent_to_the_login_page(client, file_mailbox):
    send_mail("Reset your password", "reset link /accounts/password/reset/key/x/", None, ["a@x.io"])

    response = client.get("/mailbox/")

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


def test_bob_sees_his_own_mail_and_not_alices(client, file_mailbox, alice, bob):
    send_mail("Alice's reset", "alice reset link", None, [alice.email])
    send_mail("Bob's digest", "bob digest", None, [f"Bob <{bob.email.upper()}>"])
    client.force_login(bob)

    page = client.get("/mailbox/").content.decode()

    assert "Bob&#x27;s digest" in page
    assert "Alice" not in page and "alice reset link" not in page


def test_staff_see_everyones_mail(staff_client, file_mailbox, alice, bob):
    send_mail("For alice", "a", None, [alice.email])
    send_mail("For bob", "b", None, [bob.email])

    page = staff_client.get("/mailbox/").content.decode()

    assert "For alice" in page and "For bob" in page


def test_a_new_sign_up_reads_its_verification_mail_from_the_verify_page(client, file_mailbox):
    send_mail("Someone else's reset", "not yours", None, ["erin@example.com"])
    signup = {"email": "dana@example.com", "password1": PASSWORD, "password2": PASSWORD}

    verify_page = client.post(reverse("account_signup"), signup, follow=True).content.decode()
    assert 'href="/mailbox/"' in verify_page
    page = client.get("/mailbox/").content.decode()

    assert re.search(r"/accounts/confirm-email/[^/\s]+/", page)
    assert "dana@example.com" in page and "not yours" not in page


def test_signing_up_with_a_taken_address_grants_no_look_at_its_mail(client, file_mailbox, alice):
    send_mail("Alice's reset", "alice reset link", None, [alice.email])
    signup = {"email": alice.email, "password1": PASSWORD, "password2": PASSWORD}

    client.post(reverse("account_signup"), signup)
    response = client.get("/mailbox/")

    assert response.status_code == 302


def test_an_address_added_to_an_account_grants_no_look_at_its_mail(client, file_mailbox, bob):
    carol = make_user("carol@example.com")
    client.force_login(carol)
    client.post(reverse("account_email"), {"action_add": "", "email": bob.email})
    client.post(reverse("account_reset_password"), {"email": bob.email})
    assert any("password/reset/key" in path.read_text() for path in file_mailbox.iterdir())

    page = client.get("/mailbox/").content.decode()

    assert "password/reset/key" not in page and "confirm-email" not in page


def test_an_unverified_address_of_ones_own_shows_no_mail(client, file_mailbox):
    carol = make_user("carol@example.com", verified=False)
    carol.emailaddress_set.create(email="carol2@example.com", verified=True, primary=False)
    send_mail("To the unverified one", "secret", None, ["carol@example.com"])
    send_mail("To the verified one", "hello", None, ["carol2@example.com"])
    client.force_login(carol)

    page = client.get("/mailbox/").content.decode()

    assert "To the verified one" in page and "secret" not in page
