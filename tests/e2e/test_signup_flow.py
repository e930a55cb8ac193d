"""A person signs up in Chromium, verifies by mail through a real SMTP server, and keeps a list."""

from __future__ import annotations

import pytest

from clipping.models import KeywordList
from tests.browser import log_in
from tests.e2e.people import create_list, sign_up_and_verify
from tests.e2e.processes import Processes, purge_queues, service_env
from tests.factories import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def publish_worker(live_server, smtp_server, tmp_path):
    """The worker that sends account mail, as `make run` starts it."""
    purge_queues()  # tasks an earlier test left on the broker name rows that are gone
    processes = Processes(
        service_env(smtp_port=smtp_server.port, site_url=live_server.url), tmp_path
    )
    processes.worker("publish", "publish,celery")
    yield processes
    processes.stop_all()


def test_sign_up_verify_log_in_create_a_list_and_keep_it_private(
    live_server, smtp_server, publish_worker, page, browser
):
    base = live_server.url
    csp_violations: list[str] = []
    page.on(
        "console",
        lambda msg: (
            csp_violations.append(msg.text) if "Content Security Policy" in msg.text else None
        ),
    )

    sign_up_and_verify(page, base, smtp_server, "dana@example.com")

    page.click("[data-testid=logout]")
    page.wait_for_url(f"{base}/")
    log_in(page, base, "dana@example.com")
    assert page.locator("[data-testid=no-clips]").is_visible()

    create_list(page, "Energy", 'solar subsidies\n"feed-in tariff"')
    list_url = page.url
    page.goto(f"{base}/dashboard/")
    assert page.locator("[data-testid=my-lists]").inner_text().strip() == "Energy"
    page.click("[data-testid=logout]")
    page.wait_for_url(f"{base}/")

    make_user("bob@example.com")
    context = browser.new_context()
    other = context.new_page()
    log_in(other, base, "bob@example.com")
    assert "Energy" not in other.content()
    response = other.goto(list_url)
    assert response.status == 404
    assert other.goto(list_url + "edit/").status == 404
    context.close()

    assert KeywordList.objects.get().owner.email == "dana@example.com"
    assert csp_violations == []
