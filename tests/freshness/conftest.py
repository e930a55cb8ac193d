"""Fixtures of the freshness tests: a site server of their own, the versions handed on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from crawler import hooks
from tests.crawler.servers import SiteServer


@pytest.fixture(autouse=True)
def _no_hidden_web(settings):
    """These tests count requests and hand-ons; the hidden-web pass reads the seeds again."""
    settings.DEEPWEB_ENABLED = False


@pytest.fixture
def server() -> Iterator[SiteServer]:
    with SiteServer() as site:
        yield site


@pytest.fixture
def handed_on() -> Iterator[list[int]]:
    """Version ids handed to a batch handler registered for the test."""
    received: list[int] = []
    hooks.register_batch_handler(received.extend)
    yield received
    hooks.unregister_batch_handler(received.extend)
