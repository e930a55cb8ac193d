"""What the Chromium tests share: signing in through the login page, and watching a page for
failed responses and Content Security Policy violations."""

from __future__ import annotations

from tests.factories import PASSWORD

LOADED_MS = 90_000


def log_in(page, base: str, email: str) -> None:
    """Sign in as `email` (the factories' password) and wait for the dashboard."""
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=login]", email)
    page.fill("input[name=password]", PASSWORD)
    # A loaded 2-core machine (the other test worker crawling) can take longer than
    # Playwright's 30 s default; the login's own answer is checked, so a refusal says so.
    with page.expect_response(
        lambda r: r.request.method == "POST" and r.url.startswith(f"{base}/accounts/login/"),
        timeout=LOADED_MS,
    ) as answer:
        page.click("[data-testid=login-form] button[type=submit]")
    status = answer.value.status
    assert status == 302, f"logging in as {email} answered {status}"
    page.wait_for_url(f"{base}/dashboard/", timeout=LOADED_MS)
    # The dashboard's own requests (the time-zone report, the service worker's install) end
    # before the test goes on, so none races the test's next page for the session.
    page.wait_for_load_state("networkidle")


def watch_problems(page) -> list[str]:
    """Return a list that fills with the page's answers of 400 or more (the favicon aside)
    and the console's Content Security Policy violations, as they happen."""
    problems: list[str] = []
    page.on(
        "response",
        lambda r: problems.append(r.url) if r.status >= 400 and "favicon" not in r.url else None,
    )
    page.on(
        "console",
        lambda msg: problems.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    return problems
