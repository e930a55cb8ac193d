from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.channels.servers import NotifyServer


@pytest.fixture
def notify_server(settings) -> Iterator[NotifyServer]:
    """A webhook and ntfy endpoint on 127.0.0.1, which channels may reach in tests only."""
    settings.CLIPPING_CHANNEL_NETWORKS = "127.0.0.1/32"
    with NotifyServer() as server:
        yield server
