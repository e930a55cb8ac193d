"""xCrawl on a site nobody has keywords for yet: breadth-first, and no warning about it."""

from __future__ import annotations

import logging

import pytest

from crawler.conf import xcrawl_settings
from crawler.models import Site
from crawler.strategies.xcrawl.strategy import XCrawl

pytestmark = pytest.mark.django_db


def test_a_site_nobody_has_keywords_for_is_crawled_breadth_first_without_a_warning(caplog):
    site = Site.objects.create(name="The Daily Demo", root_url="http://127.0.0.1:8100/")
    strategy = XCrawl.__new__(XCrawl)
    strategy.config = xcrawl_settings()
    with caplog.at_level(logging.DEBUG, logger="crawler.strategies.xcrawl.strategy"):
        strategy._focus(site, None)
    assert not strategy.focused
    assert [record.levelno for record in caplog.records] == [logging.INFO]
    assert "no keywords yet" in caplog.records[0].getMessage()
