"""What a person does in Chromium in the end-to-end tests: sign up and verify by mail, keep a list.

Every e2e test that signs someone up goes through `sign_up_and_verify`, the way a person does
it: from the home page, with the verification link of the mail the real SMTP server caught.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page

from tests.e2e.processes import wait_until
from tests.factories import PASSWORD


def text_of(message) -> str:
    """Return the plain-text body of a caught mail."""
    return message.get_body(preferencelist=("plain",)).get_content()


def sign_up_and_verify(page: Page, base: str, sink, email: str) -> None:
    """Sign up as `email` from the home page, follow the mailed link, land on the dashboard."""
    page.goto(f"{base}/")
    page.get_by_role("main").get_by_role("button", name="Sign up").click()
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password (again)").fill(PASSWORD)
    page.get_by_role("main").get_by_role("button", name="Sign up").click()
    page.wait_for_url(re.compile(r".*/accounts/confirm-email/$"))

    mail = wait_until(lambda: sink.to(email), 30, f"the verification mail to {email}")[-1]
    link = re.search(r"https?://\S+/accounts/confirm-email/\S+/", text_of(mail)).group(0)
    assert link.startswith(base)
    page.goto(link)
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_url(f"{base}/dashboard/")


def create_list(page: Page, name: str, terms: str) -> None:
    """Make a list from the navigation's My lists, as a person does; end on the list's page."""
    page.get_by_role("navigation").get_by_role("link", name="My lists").click()
    page.get_by_role("main").get_by_role("button", name="New list").click()
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Terms").fill(terms)
    page.get_by_role("button", name="Create list").click()
    page.wait_for_url(re.compile(r".*/lists/\d+/$"))
