"""The admin login: wrong passwords spend the same rate limits as the allauth login."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

ADMIN_LOGIN = "/admin/login/?next=/admin/"


@pytest.fixture
def admin_user(db):
    return make_user("root@example.com", is_staff=True, is_superuser=True)


def log_in(client, password: str, forwarded_for: str = ""):
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    return client.post(
        ADMIN_LOGIN, {"username": "root@example.com", "password": password}, headers=headers
    )


def test_the_right_admin_password_logs_in(client, admin_user):
    response = log_in(client, PASSWORD)
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(admin_user.pk)


def test_the_admin_login_refuses_the_right_password_after_wrong_ones_for_a_while(
    client, admin_user
):
    with time_machine.travel(timezone.now(), tick=False) as clock:
        for _ in range(5):
            assert log_in(client, "wrong").status_code == 200

        response = log_in(client, PASSWORD)

        assert response.status_code == 200
        assert "Too many failed login attempts" in response.content.decode()
        assert "_auth_user_id" not in client.session
        clock.shift(timedelta(minutes=6))
        assert log_in(client, PASSWORD).status_code == 302


def test_a_forged_forwarded_for_header_does_not_reset_the_admin_limit(client, admin_user):
    for n in range(8):
        log_in(client, "wrong", forwarded_for=f"198.51.100.{n}")

    response = log_in(client, PASSWORD, forwarded_for="203.0.113.9")

    assert "Too many failed login attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_admin_limit_also_counts_per_address_across_accounts(client, admin_user):
    for n in range(10):  # RATE_LIMIT_LOGIN_FAILED: 10/m/ip
        log_in_as = {"username": f"guess{n}@example.com", "password": "wrong"}
        client.post(ADMIN_LOGIN, log_in_as, headers={"X-Forwarded-For": f"198.51.100.{n}"})

    response = log_in(client, PASSWORD)

    assert "Too many failed login attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session
