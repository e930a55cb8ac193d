"""In Chromium: a person adds a channel on the account page, tests it and routes a list to it."""

from __future__ import annotations

import pytest

from clipping.models import ListChannel
from tests.browser import log_in
from tests.factories import make_list

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_person_adds_tests_and_routes_a_channel(live_server, page, alice, notify_server):
    base = live_server.url
    energy = make_list(alice, "Energy", "subsidy")
    secret_url = f"json://bot:Tok3n-9f@127.0.0.1:{notify_server.port}/hook"

    log_in(page, base, "alice@example.com")
    page.goto(f"{base}/account/settings/")
    page.fill("#channel-name", "Webhook")
    page.fill("#channel-url", secret_url)
    page.click("[data-testid=channel-add] button[type=submit]")
    page.wait_for_url(f"{base}/account/settings/#channels")

    channel = page.locator("[data-testid=channel]")
    assert f"json://bot:****@127.0.0.1:{notify_server.port}/…" in channel.inner_text()
    assert "Tok3n-9f" not in page.content()

    page.click("[data-testid=channel-test]")
    page.wait_for_url(f"{base}/account/settings/#channels")
    assert "A test message went to Webhook" in page.locator(".messages").inner_text()
    assert [m.payload["title"] for m in notify_server.messages] == ["Webclip test message"]

    page.select_option("select[aria-label='Energy to Webhook']", "digest")
    page.click("[data-testid=channel-routes] button[type=submit]")
    page.wait_for_url(f"{base}/account/settings/#channels")
    assert ListChannel.objects.get(keyword_list=energy).mode == "digest"
