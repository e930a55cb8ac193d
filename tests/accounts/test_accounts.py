"""Sign-up, verification, login limits, enumeration, preferences and deletion."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import time_machine
from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from clipping.models import KeywordList
from tests.factories import PASSWORD, make_user

# Account mail is queued; here the tasks run in the test process, as a worker would.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]


def sign_up(client, email: str, password: str = PASSWORD):
    return client.post(
        reverse("account_signup"), {"email": email, "password1": password, "password2": password}
    )


def test_sign_up_sends_a_verification_mail_and_logs_in_only_after_the_link(client):
    response = sign_up(client, "dana@example.com")
    assert response.status_code == 302
    user = User.objects.get(email="dana@example.com")
    assert not EmailAddress.objects.get(user=user).verified
    assert (
        client.get(reverse("dashboard")).status_code == 302
    )  # mandatory verification: not logged in

    assert len(mail.outbox) == 1
    link = re.search(r"https?://\S+/accounts/confirm-email/\S+/", mail.outbox[0].body).group(0)
    path = link.split("://", 1)[1].split("/", 1)[1]
    client.post("/" + path)
    assert EmailAddress.objects.get(user=user).verified
    assert client.get(reverse("dashboard")).status_code == 200


def test_login_is_refused_after_too_many_failed_attempts_for_one_address(client, alice):
    for _ in range(5):
        response = client.post(
            reverse("account_login"), {"login": alice.email, "password": "wrong"}
        )
        assert response.status_code == 200
    response = client.post(reverse("account_login"), {"login": alice.email, "password": PASSWORD})
    assert "Too many failed login attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session
    assert client.get(reverse("dashboard")).status_code == 302


def test_password_reset_answers_the_same_for_known_and_unknown_addresses(client, alice):
    known = client.post(reverse("account_reset_password"), {"email": alice.email})
    unknown = client.post(reverse("account_reset_password"), {"email": "nobody@example.com"})
    assert known.status_code == unknown.status_code == 302
    assert known["Location"] == unknown["Location"]
    assert [m.to for m in mail.outbox] == [[alice.email], ["nobody@example.com"]]
    assert "reset" in mail.outbox[0].body.lower()
    assert "/accounts/password/reset/key/" not in mail.outbox[1].body


def test_sign_up_with_a_taken_address_looks_like_a_fresh_sign_up(client, alice):
    response = sign_up(client, alice.email)
    fresh = sign_up(client.__class__(), "erin@example.com")
    assert response.status_code == fresh.status_code == 302
    assert response["Location"] == fresh["Location"]
    assert User.objects.filter(email=alice.email).count() == 1


def test_logout_needs_a_post(client, alice):
    client.force_login(alice)
    client.get(reverse("account_logout"))
    assert client.get(reverse("dashboard")).status_code == 200
    client.post(reverse("account_logout"))
    assert client.get(reverse("dashboard")).status_code == 302


def test_preferences_are_saved_on_the_account_page(client, alice):
    client.force_login(alice)
    response = client.post(
        reverse("account_settings"),
        {
            "delivery_mode": "daily",
            "digest_hour": "7",
            "digest_weekday": "2",
            "time_zone": "Europe/Athens",
            "mail_paused": "on",
        },
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert (alice.delivery_mode, alice.digest_hour, alice.time_zone, alice.mail_paused) == (
        "daily",
        7,
        "Europe/Athens",
        True,
    )


def test_an_unknown_time_zone_is_refused(client, alice):
    client.force_login(alice)
    response = client.post(
        reverse("account_settings"),
        {
            "delivery_mode": "daily",
            "digest_hour": "7",
            "digest_weekday": "0",
            "time_zone": "Mars/Olympus",
        },
    )
    assert response.status_code == 200
    assert "time_zone" in response.context["form"].errors
    alice.refresh_from_db()
    assert alice.time_zone == "UTC"


def test_deleting_the_account_removes_the_user_and_their_lists(client, alice, bob):
    KeywordList.objects.create(owner=alice, name="Energy", terms="solar")
    KeywordList.objects.create(owner=bob, name="Rail", terms="strike")
    client.force_login(alice)
    assert client.post(reverse("account_delete"), {"password": "wrong"}).status_code == 200
    assert User.objects.filter(pk=alice.pk).exists()
    response = client.post(reverse("account_delete"), {"password": PASSWORD})
    assert response.status_code == 302
    assert not User.objects.filter(pk=alice.pk).exists()
    assert list(KeywordList.objects.values_list("name", flat=True)) == ["Rail"]


def test_changing_the_email_address_needs_the_new_address_verified(client, alice):
    client.force_login(alice)
    client.post(reverse("account_email"), {"action_add": "", "email": "alice.new@example.com"})
    new = EmailAddress.objects.get(user=alice, email="alice.new@example.com")
    assert not new.verified
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"
    assert mail.outbox[-1].to == ["alice.new@example.com"]


def test_unverified_and_paused_people_are_not_mailable(db):
    verified = make_user("v@example.com")
    make_user("u@example.com", verified=False)
    make_user("p@example.com", mail_paused=True)
    assert list(User.objects.mailable()) == [verified]


def test_rotating_the_feed_token_changes_the_feed_address(client, alice):
    old = alice.feed_token
    client.force_login(alice)
    assert f"/feed/{old}/" in client.get(reverse("account_settings")).content.decode()
    client.post(reverse("account_rotate_feed_token"))
    alice.refresh_from_db()
    assert alice.feed_token != old
    assert client.get(f"/feed/{old}/").status_code == 404
    assert f"/feed/{alice.feed_token}/" in client.get(reverse("account_settings")).content.decode()


def test_verifying_a_changed_address_makes_it_the_only_one(client, alice):
    client.force_login(alice)
    client.post(reverse("account_email"), {"action_add": "", "email": "alice.new@example.com"})
    link = re.search(r"/accounts/confirm-email/\S+/", mail.outbox[-1].body).group(0)

    client.post(link)

    alice.refresh_from_db()
    assert alice.email == "alice.new@example.com"
    addresses = EmailAddress.objects.filter(user=alice)
    assert [(a.email, a.primary, a.verified) for a in addresses] == [
        ("alice.new@example.com", True, True)
    ]
    assert list(User.objects.mailable()) == [alice]


def test_a_password_reset_link_sets_a_new_password(client, alice):
    client.post(reverse("account_reset_password"), {"email": alice.email})
    link = re.search(r"/accounts/password/reset/key/\S+/", mail.outbox[0].body).group(0)
    form_url = client.get(link)["Location"]  # allauth moves the key into the session
    new = "another-horse-staple-7"

    response = client.post(form_url, {"password1": new, "password2": new})

    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password(new) and not alice.check_password(PASSWORD)
    assert (
        client.post(form_url, {"password1": "x-" + new, "password2": "x-" + new}).status_code != 302
    )


def test_a_wrong_password_and_an_unknown_address_get_the_same_login_error(client, alice):
    unknown = client.post(
        reverse("account_login"), {"login": "nobody@example.com", "password": PASSWORD}
    )
    wrong = client.post(
        reverse("account_login"), {"login": alice.email, "password": "wrong-password"}
    )
    assert unknown.status_code == wrong.status_code == 200
    assert unknown.context["form"].non_field_errors() == wrong.context["form"].non_field_errors()
    assert unknown.context["form"].non_field_errors()


def test_sign_up_is_refused_after_too_many_attempts_from_one_address(client):
    # The clock stands still: on a loaded machine twenty sign-ups may take longer than the minute.
    with time_machine.travel(timezone.now(), tick=False):
        for n in range(20):  # RATE_LIMIT_SIGNUP: 20/m/ip
            assert sign_up(client.__class__(), f"user{n}@example.com").status_code == 302
        response = sign_up(client, "one-too-many@example.com")
    assert response.status_code == 429
    assert not User.objects.filter(email="one-too-many@example.com").exists()


def test_password_reset_is_refused_after_too_many_requests_for_one_address(client, alice):
    for _ in range(5):  # RATE_LIMIT_RESET_PASSWORD: 5/m/key
        assert (
            client.post(reverse("account_reset_password"), {"email": alice.email}).status_code
            == 302
        )
    response = client.post(reverse("account_reset_password"), {"email": alice.email})
    assert response.status_code == 429
    assert len(mail.outbox) == 5


def test_verification_mail_is_resent_at_most_once_in_three_minutes(client):
    dana = make_user("dana@example.com", verified=False)
    for _ in range(3):  # each login attempt of an unverified address asks for the mail again
        response = client.post(
            reverse("account_login"), {"login": dana.email, "password": PASSWORD}
        )
        assert response.status_code == 302
    assert [m.to for m in mail.outbox] == [[dana.email]]
    with time_machine.travel(timezone.now() + timedelta(minutes=3, seconds=5)):
        client.post(reverse("account_login"), {"login": dana.email, "password": PASSWORD})
    assert len(mail.outbox) == 2


@pytest.mark.redis
def test_rate_limits_live_in_the_shared_cache(client, alice):
    from django.core.cache import cache

    assert settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
    for _ in range(5):
        client.post(reverse("account_reset_password"), {"email": alice.email})
    cache.clear()  # what another web process sees is this cache: empty it and the limit resets
    assert client.post(reverse("account_reset_password"), {"email": alice.email}).status_code == 302


def test_deleting_the_account_removes_every_record_of_the_person(client, alice, bob):
    from clipping.models import Delivery, Digest, Match
    from tests.factories import make_clip, make_list, make_match

    clip = make_clip()
    mine = make_match(make_list(alice, "Energy", "subsidy"), clip)
    theirs = make_match(make_list(bob, "Power", "subsidy"), clip)
    digest = Digest.objects.create(user=alice, kind="daily", period=timezone.now())
    Delivery.objects.create(user=alice, kind="instant", match=mine, address=alice.email)
    client.force_login(alice)

    client.post(reverse("account_delete"), {"password": PASSWORD})

    assert not EmailAddress.objects.filter(email=alice.email).exists()
    assert list(Match.objects.all()) == [theirs]
    assert not Digest.objects.filter(id=digest.id).exists()
    assert not Delivery.objects.filter(user_id=alice.id).exists()
    assert client.get(reverse("dashboard")).status_code == 302  # logged out


def test_a_password_reset_link_expires_after_one_hour(alice, time_machine):
    from allauth.account.forms import default_token_generator

    time_machine.move_to("2026-01-05 09:00:00+00:00", tick=False)
    token = default_token_generator.make_token(alice)

    time_machine.move_to("2026-01-05 09:59:00+00:00", tick=False)
    assert default_token_generator.check_token(alice, token)
    time_machine.move_to("2026-01-05 10:01:00+00:00", tick=False)
    assert not default_token_generator.check_token(alice, token)


class CountingHasher(MD5PasswordHasher):
    """The test hasher, counting how often a sign-up pays for a password hash."""

    calls = 0

    def encode(self, password: str, salt: str) -> str:
        CountingHasher.calls += 1
        return super().encode(password, salt)


def test_sign_up_costs_one_password_hash_for_a_taken_address_as_for_a_new_one(
    client, alice, settings
):
    settings.PASSWORD_HASHERS = [f"{__name__}.CountingHasher"]
    CountingHasher.calls = 0
    sign_up(client.__class__(), "erin@example.com")
    fresh = CountingHasher.calls
    CountingHasher.calls = 0
    sign_up(client.__class__(), alice.email)
    assert fresh == CountingHasher.calls == 1
