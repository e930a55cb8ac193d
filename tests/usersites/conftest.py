from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.crawler.servers import SiteServer
from tests.usersites.sites import serve_news


@pytest.fixture
def news(settings) -> Iterator[SiteServer]:
    """The local news site, which people's sites may reach in tests only (an operator
    setting; the per-site private-network flag stays the admins')."""
    settings.CRAWLER_USER_SITE_NETWORKS = "127.0.0.1/32"
    settings.CRAWLER_USER_SITE_PREVIEW_PAGES = 2
    with SiteServer() as server:
        serve_news(server)
        yield server
