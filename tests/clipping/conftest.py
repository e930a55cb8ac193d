"""Fixtures for clips, matches and publishing; their builders are in tests/factories.py."""

from __future__ import annotations

import pytest

from crawler.models import Site
from tests.factories import make_site


@pytest.fixture
def site(db) -> Site:
    return make_site()
