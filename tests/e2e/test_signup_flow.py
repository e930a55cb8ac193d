"""A person signs up in Chromium, verifies by mail through a real SMTP server, and keeps a list."""

from __future__ import annotations

import re
import time

import pytest

from clipping.models import KeywordList
from tests.browser import log_in
from tests.e2e.processes import Processes, purge_queues, service_env
from tests.factories import PASSWORD, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def wait_for_mail(sink, address: str, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = sink.to(address)
        if found:
            return found[-1]
        time.sleep(0.1)
    raise AssertionError(f"no mail reached {address} within {timeout} s")


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

    page.goto(f"{base}/")
    page.click("main >> text=Sign up")
    page.fill("input[name=email]", "dana@example.com")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("form[action*='signup'] button[type=submit]")
    page.wait_for_url(re.compile(r".*/accounts/confirm-email/$"))

    message = wait_for_mail(smtp_server, "dana@example.com")
    body = message.get_body(preferencelist=("plain",)).get_content()
    link = re.search(r"https?://\S+/accounts/confirm-email/\S+/", body).group(0)
    assert link.startswith(base)
    page.goto(link)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{base}/dashboard/")

    page.click("[data-testid=logout]")
    page.wait_for_url(f"{base}/")
    log_in(page, base, "dana@example.com")
    assert page.locator("[data-testid=no-clips]").is_visible()

    page.goto(f"{base}/lists/new/")
    page.fill("input[name=name]", "Energy")
    page.fill("textarea[name=terms]", 'solar subsidies\n"feed-in tariff"')
    page.click("main form button[type=submit]")
    page.wait_for_url(re.compile(r".*/lists/\d+/$"))
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
