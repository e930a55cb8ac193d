"""In Chromium: the reader view, stars and keyboard shortcuts, dark mode, and My clips offline."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from clipping.models import Match, Star
from tests.browser import log_in, watch_problems
from tests.ui.pages import READER, populate
from tests.ui.test_browser_pages import SCREENS, SHOTS, audit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def site():
    return populate(clips=4)


def test_the_reader_view_shows_the_article_and_stars_in_place(live_server, page, site):
    base = live_server.url
    problems = watch_problems(page)
    log_in(page, base, READER)
    page.goto(f"{base}/clips/")
    page.locator(f"[data-clip='{site.clip_id}'] [data-testid=read-link]").click()
    page.wait_for_url(f"{base}/clips/{site.clip_id}/")
    body = page.get_by_test_id("reader-body")
    expect(body).to_contain_text("after a long debate in the town hall")
    expect(body.locator("mark").first).to_have_text("subsidies")
    expect(body).not_to_contain_text("Home")  # the page's navigation is not the article
    star = page.get_by_test_id("star")
    star.click()
    expect(star).to_have_attribute("aria-pressed", "true")
    assert Star.objects.filter(clip_id=site.clip_id).count() == 1
    page.get_by_test_id("history-link").click()
    expect(page.get_by_test_id("diff").locator(".diff-added")).to_contain_text("on Tuesday")
    assert problems == []


def test_keyboard_shortcuts_move_star_mark_read_and_open(live_server, page, site):
    base = live_server.url
    log_in(page, base, READER)
    page.goto(f"{base}/clips/")
    cards = page.locator("[data-testid=clip]")
    page.keyboard.press("j")
    expect(cards.nth(0)).to_be_focused()
    page.keyboard.press("j")
    expect(cards.nth(1)).to_be_focused()
    page.keyboard.press("k")
    expect(cards.nth(0)).to_be_focused()
    first = int(cards.nth(0).get_attribute("data-clip"))
    page.keyboard.press("s")
    expect(cards.nth(0).get_by_test_id("star")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("m")
    expect(cards.nth(0).get_by_test_id("mark-read")).to_have_count(0)
    assert Star.objects.filter(clip_id=first).exists()
    assert not Match.objects.filter(clip_id=first, read_at__isnull=True).exists()
    page.keyboard.press("?")
    expect(page.get_by_test_id("shortcut-help")).to_be_visible()
    page.screenshot(path=str(SHOTS / "desktop-shortcuts.png"))
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("shortcut-help")).to_be_hidden()
    page.keyboard.press("/")
    expect(page.locator("input[type=search]")).to_be_focused()
    page.keyboard.press("Escape")
    page.keyboard.press("j")
    page.keyboard.press("o")
    page.wait_for_url(f"{base}/clips/{first}/")


@pytest.mark.parametrize("screen", SCREENS)
def test_dark_mode_follows_the_system_switches_and_passes_axe(live_server, browser, site, screen):
    base = live_server.url
    context = browser.new_context(viewport=SCREENS[screen], color_scheme="dark")
    context.set_default_timeout(30_000)
    page = context.new_page()
    log_in(page, base, READER)
    # The sum of the page background's red, green and blue.
    brightness = (
        "() => getComputedStyle(document.documentElement).backgroundColor"
        ".match(/\\d+/g).slice(0, 3).reduce((a, b) => a + Number(b), 0)"
    )
    assert page.evaluate(brightness) < 150  # the system is dark, nothing chosen yet
    problems: dict[str, list[str]] = {}
    for theme in ("dark", "light"):
        page.goto(f"{base}/clips/")
        page.select_option("#theme-choice", theme)
        for path in (
            "/clips/",
            f"/clips/{site.clip_id}/",
            f"/pages/{site.page_id}/history/",
            "/account/settings/",
            "/clips/add/",
        ):
            page.goto(base + path)
            page.wait_for_load_state("networkidle")
            if found := audit(page):
                problems[f"{theme} {path}"] = found
            if screen == "phone" and path == f"/clips/{site.clip_id}/":
                page.screenshot(path=str(SHOTS / f"phone-reader-{theme}.png"))
        bright = page.evaluate(brightness)
        assert bright > 600 if theme == "light" else bright < 150
    assert problems == {}
    context.close()


def test_my_clips_stay_readable_offline(live_server, browser, site):
    base = live_server.url
    context = browser.new_context()
    page = context.new_page()
    log_in(page, base, READER)
    page.goto(f"{base}/clips/")
    page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # now under the worker, which keeps the page
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    page.goto(f"{base}/clips/")
    page.wait_for_load_state("networkidle")
    context.set_offline(True)
    page.goto(f"{base}/clips/")
    expect(page.locator("[data-testid=clip]").first).to_contain_text("Council backs solar")
    context.set_offline(False)
    # Logging out empties the cache: nobody reads this person's clips offline afterwards.
    page.get_by_test_id("logout").click()
    page.wait_for_url(f"{base}/")
    page.wait_for_load_state("networkidle")
    kept = page.evaluate("() => caches.match('/clips/').then(hit => hit !== undefined)")
    assert kept is False
    context.close()
