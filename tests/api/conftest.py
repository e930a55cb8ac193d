"""Personas speaking to the API with their own tokens, and a client without one."""

from __future__ import annotations

import pytest

from tests.api.clients import ApiClient, token_for


@pytest.fixture
def alice_api(client, alice):
    return ApiClient(client, token_for(alice))


@pytest.fixture
def bob_api(client, bob):
    return ApiClient(client, token_for(bob))


@pytest.fixture
def anonymous_api(client, db):
    return ApiClient(client, None)
