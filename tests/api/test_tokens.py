"""Personal API tokens: made and revoked on the account page, stored hashed, rate limited."""

from __future__ import annotations

import hashlib

import pytest
from django.db import connection
from django.urls import reverse

from accounts.models import ApiToken
from tests.api.clients import ApiClient, token_for

pytestmark = pytest.mark.django_db


def test_a_token_made_on_the_account_page_is_shown_once_and_works(client, alice):
    client.force_login(alice)

    response = client.post(reverse("account_api_token_create"), {"name": "my script"})

    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    secret = response.context["secret"]
    assert secret.startswith("wc_") and secret in response.content.decode()
    page = client.get(reverse("account_settings")).content.decode()
    assert "my script" in page and secret[:10] in page and secret not in page
    assert ApiClient(client, secret).get("/api/lists").status_code == 200


def test_the_database_holds_the_digest_and_prefix_but_never_the_secret(alice):
    secret = token_for(alice)

    token = ApiToken.objects.get(user=alice)
    assert token.digest == hashlib.sha256(secret.encode()).hexdigest()
    assert token.prefix == secret[:10]
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM accounts_apitoken")
        row = cursor.fetchone()
    assert not any(secret in str(value) for value in row)


def test_a_request_records_when_the_token_was_last_used(alice):
    secret = token_for(alice)
    assert ApiToken.objects.get(user=alice).last_used_at is None

    from django.test import Client

    assert ApiClient(Client(), secret).get("/api/lists").status_code == 200

    assert ApiToken.objects.get(user=alice).last_used_at is not None


@pytest.mark.parametrize(
    "header",
    [
        None,
        "Bearer",
        "Bearer wc_not-a-token",
        "Token {secret}",
        "Basic {secret}",
        "Bearer {secret}x",
    ],
)
def test_a_missing_or_wrong_token_gets_401(client, alice, header):
    secret = token_for(alice)
    headers = {"Authorization": header.format(secret=secret)} if header else {}

    response = client.get("/api/lists", headers=headers)

    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_revoked_token_gets_401(client, alice):
    secret = token_for(alice)
    api = ApiClient(client, secret)
    assert api.get("/api/lists").status_code == 200
    client.force_login(alice)

    response = client.post(
        reverse("account_api_token_revoke", args=[ApiToken.objects.get(user=alice).pk])
    )

    assert response.status_code == 302
    assert api.get("/api/lists").status_code == 401


def test_another_users_token_cannot_be_revoked(client, alice, bob):
    token_for(alice)
    client.force_login(bob)

    response = client.post(
        reverse("account_api_token_revoke", args=[ApiToken.objects.get(user=alice).pk])
    )

    assert response.status_code == 404
    assert ApiToken.objects.filter(user=alice).exists()


def test_an_inactive_accounts_token_gets_401(client, alice):
    api = ApiClient(client, token_for(alice))
    alice.is_active = False
    alice.save()

    assert api.get("/api/lists").status_code == 401


def test_past_the_rate_limit_the_next_request_gets_429(client, alice, bob, settings):
    settings.WEBCLIP_API_RATE_LIMIT = 3
    settings.WEBCLIP_API_RATE_WINDOW = 3600
    first, second = ApiClient(client, token_for(alice)), ApiClient(client, token_for(alice))

    answers = [api.get("/api/lists").status_code for api in (first, second, first)]
    over = second.get("/api/lists")

    assert answers == [200, 200, 200]
    assert over.status_code == 429
    assert 1 <= int(over["Retry-After"]) <= 3600
    # The limit is per person: Bob has his own.
    assert ApiClient(client, token_for(bob)).get("/api/lists").status_code == 200


def test_creating_tokens_stops_at_the_cap(client, alice):
    from accounts.models import API_TOKENS_PER_USER

    for _ in range(API_TOKENS_PER_USER):
        token_for(alice)
    client.force_login(alice)

    response = client.post(reverse("account_api_token_create"), {"name": "one more"})

    assert response.status_code == 302
    assert ApiToken.objects.filter(user=alice).count() == API_TOKENS_PER_USER


def test_a_logged_in_session_without_a_token_gets_401(client, alice):
    client.force_login(alice)

    assert client.get("/api/lists").status_code == 401
