"""In Chromium, phone (390x844) and desktop (1280x800): every page fits its screen, passes
axe-core with no serious or critical violation, and is photographed into docs/screenshots/.

One browser for all; per screen size one context per persona (visitor, reader, staff), pages
visited in turn. axe-core is the axe.min.js that axe-playwright-python ships (no network),
evaluated through the DevTools protocol, which the pages' Content-Security-Policy does not block.
"""

from __future__ import annotations

from pathlib import Path

import axe_playwright_python
import pytest
from playwright.sync_api import expect

from tests.browser import log_in
from tests.ui.pages import READER, STAFF, populate

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

AXE = (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text()
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
OPML = Path(__file__).resolve().parents[1] / "api" / "fixtures" / "miniflux.opml"
SCREENS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}

VISITOR_PAGES = {
    "home": "/",
    "login": "/accounts/login/",
    "signup": "/accounts/signup/",
    "password-reset": "/accounts/password/reset/",
}
READER_PAGES = {
    "dashboard": "/dashboard/",
    "clips": "/clips/",
    "clip-read": "/clips/{clip}/",
    "clip-add": "/clips/add/",
    "history": "/pages/{page}/history/",
    "lists": "/lists/",
    "list": "/lists/{list}/",
    "list-edit": "/lists/{list}/edit/",
    "list-new": "/lists/new/",
    "account": "/account/settings/",
    "sites": "/sites/",
    "site": "/sites/{site}/",
    "mailbox": "/mailbox/",
}
STAFF_PAGES = {"ops": "/ops/", "admin": "/admin/"}


@pytest.fixture
def site(settings, tmp_path):
    settings.DEBUG = True  # the local mailbox page exists only then
    settings.EMAIL_PROVIDER = "file"
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    return populate()


def audit(page) -> list[str]:
    """Return axe-core's serious and critical violations on the page, one line each."""
    page.evaluate(AXE + "\n;0")
    result = page.evaluate("() => axe.run(document)")
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes'][:3]]}"
        for v in result["violations"]
        if v["impact"] in {"serious", "critical"}
    ]


def check(page, screen: str, name: str, problems: dict[str, object]) -> None:
    """Note the page's overflow and axe findings in `problems`, and photograph it."""
    page.wait_for_load_state("networkidle")
    width = page.evaluate("document.documentElement.scrollWidth")
    if width > SCREENS[screen]["width"]:
        problems[f"{name}: page is {width} px wide"] = width
    if found := audit(page):
        problems[f"{name}: axe"] = found
    page.screenshot(path=str(SHOTS / f"{screen}-{name}.png"))


@pytest.mark.parametrize("screen", SCREENS)
def test_every_page_fits_the_screen_and_passes_axe(live_server, browser, site, screen):
    base = live_server.url
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems: dict[str, object] = {}
    for who, pages in ((None, VISITOR_PAGES), (READER, READER_PAGES), (STAFF, STAFF_PAGES)):
        context = browser.new_context(
            viewport=SCREENS[screen], locale="en-GB", timezone_id="Europe/Berlin"
        )
        context.set_default_timeout(30_000)  # axe on a loaded 2-core machine
        page = context.new_page()
        errors: list[str] = []
        page.on("response", lambda r, e=errors: e.append(r.url) if r.status >= 400 else None)
        if who:
            log_in(page, base, who)
        for name, path in pages.items():
            page.goto(
                base
                + path.format(
                    list=site.list_id, site=site.site_id, clip=site.clip_id, page=site.page_id
                )
            )
            check(page, screen, name, problems)
            if name == "ops":
                chart = page.locator(".ops-site:has(canvas.ops-chart)").first
                chart.screenshot(path=str(SHOTS / f"{screen}-ops-chart.png"))
        if who == READER:
            # The pages a form leads to: a feed reader's OPML export read, its feeds listed.
            page.goto(base + "/lists/")
            page.set_input_files("#opml-file", str(OPML))
            page.get_by_test_id("import-opml").click()
            page.wait_for_url(f"{base}/sites/import/")
            check(page, screen, "sites-import", problems)
        assert [url for url in errors if "favicon" not in url] == []
        context.close()
    assert problems == {}


def test_the_phone_menu_folds_and_opens_and_the_ops_chart_keeps_its_shape(
    live_server, browser, site
):
    base = live_server.url
    context = browser.new_context(viewport=SCREENS["phone"])
    page = context.new_page()
    log_in(page, base, STAFF)

    logout = page.locator("[data-testid=logout]")
    assert not logout.is_visible()
    page.click("summary:has-text('Menu')")
    assert logout.is_visible()
    assert logout.bounding_box()["x"] + logout.bounding_box()["width"] <= 390

    page.goto(f"{base}/ops/")
    chart = page.locator("canvas.ops-chart").first
    chart.wait_for()
    box = chart.bounding_box()
    assert box["width"] <= 390 and box["height"] >= 200  # not a flat line
    context.close()


def test_the_desktop_menu_shows_every_link_and_focus_is_visible(live_server, browser, site):
    base = live_server.url
    context = browser.new_context(viewport=SCREENS["desktop"])
    page = context.new_page()
    log_in(page, base, READER)

    assert not page.locator("summary:has-text('Menu')").is_visible()
    for name in ("Dashboard", "My lists", "My clips", "My sites", "Account", "Mailbox"):
        assert page.locator(f"nav >> text={name}").is_visible()
    # The first Tab reaches the skip link, then the nav links show a solid outline.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    assert page.locator(".skip-link").is_visible()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    outline = page.evaluate(
        "(() => { const s = getComputedStyle(document.activeElement);"
        " return [document.activeElement.textContent.trim(), s.outlineStyle, s.outlineWidth]; })()"
    )
    assert outline == ["Dashboard", "solid", "3px"]
    context.close()


def test_marking_read_filtering_and_paging_happen_in_place(live_server, browser, site):
    base = live_server.url
    context = browser.new_context(viewport=SCREENS["desktop"])
    page = context.new_page()
    log_in(page, base, READER)
    page.goto(f"{base}/clips/")
    page.evaluate("window.stillHere = true")

    first = page.locator("[data-testid=clip]").nth(2)
    title_x = first.locator(".clip-title").bounding_box()["x"]
    page.evaluate("window.scrollTo(0, 400)")
    first.locator("[data-testid=mark-read]").click()
    first.locator("[data-testid=mark-read]").wait_for(state="detached")
    assert "unread" not in first.get_attribute("class")
    assert first.locator(".clip-title").bounding_box()["x"] == title_x  # no sideways shift
    assert page.evaluate("window.stillHere && window.scrollY") == 400  # no reload, no jump

    page.locator("[data-testid=clip-filters] input[name=q]").fill("part 3")
    page.click("[data-testid=clip-filters] button[type=submit]")
    page.wait_for_url(f"{base}/clips/?list=&site=&q=part+3")
    expect(page.locator("[data-testid=clip]")).to_have_count(1)
    assert page.evaluate("window.stillHere") is True

    page.goto(f"{base}/clips/")
    page.evaluate("window.stillHere = true")
    page.click("a[rel=next]")
    page.wait_for_url(f"{base}/clips/?page=2")
    titles = page.locator("[data-testid=clip] .clip-title")
    expect(titles.first).to_have_text("Council backs solar subsidies, part 21")
    assert page.evaluate("window.stillHere") is True
    page.go_back()
    page.wait_for_url(f"{base}/clips/")
    expect(titles.first).to_have_text("Council backs solar subsidies, part 1")
    context.close()


def test_the_clip_pages_work_without_javascript(live_server, browser, site):
    base = live_server.url
    context = browser.new_context(viewport=SCREENS["phone"], java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{base}/accounts/login/")
    # Without scripts the menu stays open: every link can be reached.
    assert page.locator("nav >> text=Log in").is_visible()
    log_in(page, base, READER)
    page.goto(f"{base}/clips/")
    page.locator("[data-testid=mark-read]").first.click()
    page.wait_for_load_state()
    # 20 a page: one read already (populate), one now; each read one offers "Mark unread".
    assert page.locator("[data-testid=mark-read]").count() == 18
    assert page.locator("[data-testid=mark-unread]").count() == 2
    page.locator("[data-testid=mark-unread]").first.click()
    page.wait_for_load_state()
    assert page.locator("[data-testid=mark-unread]").count() == 1
    page.locator("[data-testid=clip-filters] input[name=q]").fill("part 3")
    page.click("[data-testid=clip-filters] button[type=submit]")
    page.wait_for_url(f"{base}/clips/?list=&site=&q=part+3")
    assert page.locator("[data-testid=clip]").count() == 1
    page.goto(f"{base}/account/settings/")
    # The digest fields are sent (and labelled as a group) whatever the mode.
    assert page.locator("[data-testid=digest-fields] select[name=digest_hour]").is_visible()
    context.close()


def test_the_browser_time_zone_is_taken_and_digest_fields_follow_the_mode(
    live_server, browser, site
):
    from accounts.models import User

    base = live_server.url
    context = browser.new_context(viewport=SCREENS["desktop"], timezone_id="Asia/Kolkata")
    page = context.new_page()
    log_in(page, base, READER)
    page.goto(f"{base}/account/settings/")
    page.wait_for_load_state("networkidle")
    assert User.objects.get(email=READER).time_zone == "Asia/Kolkata"

    page.goto(f"{base}/account/settings/")
    digest = page.locator("[data-testid=digest-fields]")
    assert not digest.is_visible()
    page.select_option("select[name=delivery_mode]", "daily")
    assert digest.is_visible()
    page.fill("#id_time_zone-filter", "kolk")
    visible = page.locator("#id_time_zone option:not([hidden])").all_inner_texts()
    assert visible == ["Kolkata"]
    context.close()
