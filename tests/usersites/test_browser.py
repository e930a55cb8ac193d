"""In Chromium: a person previews a site, adds it, and sees it on their Sites page."""

from __future__ import annotations

import pytest

from crawler.models import Site
from tests.browser import log_in, watch_problems
from tests.usersites.sites import TITLES

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_person_adds_a_site_after_its_preview(live_server, page, alice, news, settings):
    settings.CRAWLER_USER_SITES = "approval"
    base = live_server.url
    problems = watch_problems(page)

    log_in(page, base, "alice@example.com")
    page.click("nav >> text=My sites")
    page.wait_for_url(f"{base}/sites/")
    page.fill("input[name=url]", news.url("/"))
    page.click("[data-testid=site-preview]")

    preview = page.locator("[data-testid=preview]")
    preview.wait_for()
    assert "a page of links to articles" in page.locator("[data-testid=preview-kind]").inner_text()
    titles = page.locator("[data-testid=preview-titles] li").all_inner_texts()
    assert titles == TITLES[:2]
    assert news.url("/feed.xml") in page.locator("[data-testid=preview-feeds]").inner_text()
    assert "/search?q={query}" in page.locator("[data-testid=preview-search]").inner_text()
    assert page.locator("[data-testid=preview-robots]").inner_text() == (
        "robots.txt allows this page."
    )
    assert "Crawl every 2 hours" in page.locator("[data-testid=preview-plan]").inner_text()

    page.click("[data-testid=site-add]")
    page.wait_for_url(f"{base}/sites/")
    assert "waits for an admin's approval" in page.locator(".messages").inner_text()
    row = page.locator("[data-testid=site]")
    assert row.count() == 1 and "Harbour Gazette" in row.inner_text()
    assert "Waiting for an admin" in page.locator("[data-testid=site-status]").inner_text()
    site = Site.objects.get()
    assert site.added_by_id == alice.id and site.approval == "pending"
    assert problems == []
