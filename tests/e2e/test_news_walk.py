"""What a new person is told is news, walked in Chromium on real workers with the defaults.

A person signs up, adds a site of their own after its preview, keeps two lists and routes both
to a webhook. The site's first crawl finds, at once, sixteen new articles on solar subsidies,
a rail strike said only in a headline ("the strike" in its text), and an archive article
whose byline dates it years back. With the defaults a person gets (a week's news window,
instant mail gathered for a few seconds and spaced a minute apart):

- the burst of sixteen comes as at most two mails and two webhook posts;
- the headline-only phrase matches, and the headline is what is shown;
- no mail or post names the archive article, which is on My clips, dated, all the same;
- the pages visited stay axe-clean at 390 and 1280 px.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from clipping.models import Match
from tests.crawler.servers import Response, SiteServer
from tests.e2e.people import create_list, sign_up_and_verify, text_of
from tests.e2e.processes import Processes, wait_until
from tests.e2e.test_user_journey import (  # noqa: F401 (services, webhook: the fixtures)
    EMAIL,
    add_webhook_for_list,
    open_loopback,
    services,
    webhook,
)
from tests.ui.test_browser_pages import SCREENS, audit

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
]

TOWNS = [
    "Alder", "Birch", "Cedar", "Dover", "Elm", "Fairview", "Glen", "Harbour",
    "Ivy", "Juniper", "Kestrel", "Linden", "Maple", "Norbury", "Oakham", "Pinewood",
]  # fmt: skip
HEADLINE = "Rail strike halts commuter trains across the region"
ARCHIVE = "Archive: how the great rail strike of 1989 ended"


def page_of(title: str, byline: str, paragraphs: list[str]) -> str:
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title></head><body>"
        "<nav><ul><li><a href='/'>Home</a></li></ul></nav>"
        f"<article><h1>{title}</h1><p class='byline'>{byline}</p>{body}</article>"
        "<footer><p>The Valley Courier</p></footer></body></html>"
    )


def solar(n: int, town: str) -> str:
    return page_of(
        f"{town} backs solar subsidies for {n + 3} streets",
        "By Ann Writer",
        [
            f"The {town} council approved solar subsidies on Monday for {n + 3} streets near "
            f"the {town} market, after a debate that ran past midnight.",
            f"Officials in {town} said {n * 40 + 120} households could fit panels before the "
            f"{town} winter fair, paid for by a levy on the {town} water board.",
            f"Critics in {town} argued that the {n + 2} largest houses on {town} hill would "
            "gain the most from the scheme in the coming years.",
            f"The {town} mayor promised a second phase covering {town} schools and the old "
            f"{town} library, with details due in {['spring', 'summer', 'autumn'][n % 3]}.",
        ],
    )


def serve_courier(server: SiteServer) -> list[tuple[str, str]]:
    """Serve a small news site; return its (path, title) articles."""
    articles = [(f"/news/solar-{n}", f"{town} backs solar subsidies for {n + 3} streets")
                for n, town in enumerate(TOWNS)]  # fmt: skip
    for n, town in enumerate(TOWNS):
        server.html(f"/news/solar-{n}", solar(n, town))
    server.html(
        "/news/rail",
        page_of(
            HEADLINE,
            "By Ann Writer",
            [
                "Commuter trains stood still on Tuesday as drivers walked out in a dispute "
                "over pay and rosters across the whole network.",
                "The union said the strike would last 48 hours unless the operator returned "
                "to talks. Buses were added on the busiest routes.",
                "Business groups warned that a longer stoppage would hurt shops in the city "
                "centre and cost the region millions.",
            ],
        ),
    )
    server.html(
        "/archive/rail-1989",
        page_of(
            ARCHIVE,
            "By Jo Bloggs · 21 November 2016",
            [
                "Reporters looked back at the rail strike of 1989 and how the drivers and the "
                "operator settled it after eleven weeks.",
                "The settlement set the rosters that stayed in place for two decades, and the "
                "union's leaders later wrote of the weeks of talks.",
                "Historians still argue over who gave way first in the final night of talks.",
            ],
        ),
    )
    articles += [("/news/rail", HEADLINE), ("/archive/rail-1989", ARCHIVE)]
    items = "".join(
        f'<li><h2><a href="{path}">{title}</a></h2><p>A short teaser.</p></li>'
        for path, title in articles
    )
    server.html(
        "/",
        "<!doctype html><html lang='en'><head><title>Valley Courier</title>"
        '<link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body>'
        f"<h1>Latest news</h1><ul>{items}</ul></body></html>",
    )
    rss = "".join(
        f"<item><title>{title}</title><link>{server.url(path)}</link></item>"
        for path, title in articles
    )
    server.route(
        "/feed.xml",
        Response(
            f'<?xml version="1.0"?><rss version="2.0"><channel><title>Courier</title>{rss}'
            "</channel></rss>",
            headers={"Content-Type": "application/rss+xml"},
        ),
    )
    server.robots("User-agent: *\nAllow: /\n")
    return articles


@pytest.fixture
def courier(settings) -> Iterator[SiteServer]:
    open_loopback(settings)
    with SiteServer() as server:
        serve_courier(server)
        yield server


def add_own_site(page: Page, base: str, courier: SiteServer) -> None:
    page.get_by_role("navigation").get_by_role("link", name="My sites").click()
    page.get_by_label("Address of a site, a section or a feed").fill(courier.url("/"))
    page.get_by_role("button", name="Preview").click()
    preview = page.get_by_test_id("preview")
    expect(preview).to_be_visible()
    preview.get_by_role("button", name="Add this site").click()
    page.wait_for_url(f"{base}/sites/")
    expect(page.get_by_text("Valley Courier is added; its first crawl starts")).to_be_visible()


def axe_clean(page: Page, problems: dict[str, object], name: str) -> None:
    """Note axe's serious findings and any sideways scroll at both widths."""
    for screen, size in SCREENS.items():
        page.set_viewport_size(size)
        page.wait_for_load_state("networkidle")
        if page.evaluate("document.documentElement.scrollWidth") > size["width"]:
            problems[f"{name} at {screen}: wider than the screen"] = True
        if found := audit(page):
            problems[f"{name} at {screen}: axe"] = found


def test_a_new_person_is_told_the_news_once_and_nothing_old(
    live_server,
    smtp_server,
    page,
    courier,
    webhook,  # noqa: F811 (the fixture imported above)
    services: Processes,  # noqa: F811 (the fixture imported above)
):
    base = live_server.url
    problems: dict[str, object] = {}
    services.worker("publish", "publish,celery,watch")
    services.worker("crawl", "crawl,render")

    sign_up_and_verify(page, base, smtp_server, EMAIL)
    axe_clean(page, problems, "dashboard")
    add_own_site(page, base, courier)
    axe_clean(page, problems, "sites")
    create_list(page, "Transport", "rail strike")
    create_list(page, "Energy", "solar subsidies")
    axe_clean(page, problems, "list")
    add_webhook_for_list(page, base, webhook.json_url("/hook"), "Transport")
    page.get_by_label("Energy to Webhook").select_option(label="Each clip")
    page.get_by_role("button", name="Save channel choices").click()
    expect(page.get_by_label("Energy to Webhook")).to_have_value("instant")
    axe_clean(page, problems, "account")

    services.beat()
    wanted = len(TOWNS) + 1  # the burst and the headline; the archive is never sent
    wait_until(
        lambda: Match.objects.filter(mail_status="sent").count() >= wanted or None,
        240,
        "every new clip's mail",
    )
    wait_until(
        lambda: len([m for m in webhook.messages if m.path == "/hook"]) >= 1 or None,
        60,
        "the webhook's post",
    )

    mails = [m for m in smtp_server.to(EMAIL) if "confirm" not in str(m["Subject"]).lower()]
    posts = [m for m in webhook.messages if m.path == "/hook"]
    assert 1 <= len(mails) <= 2, [str(m["Subject"]) for m in mails]
    assert 1 <= len(posts) <= 2, [p.payload["title"] for p in posts]
    told = "\n".join([*(text_of(m) for m in mails), *(p.payload["message"] for p in posts)])
    assert "1989" not in told and "archive/rail-1989" not in told
    assert HEADLINE in told and courier.url("/news/rail") in told
    assert all(f"{town} backs solar subsidies" in told for town in TOWNS)

    rail = Match.objects.get(keyword_list__name="Transport", clip__title=HEADLINE)
    assert rail.summary == HEADLINE
    old = Match.objects.get(clip__title=ARCHIVE)
    assert old.old and old.mail_status == "skipped" and not old.notices.exists()
    assert old.clip.published_at.year == 2016

    # On My clips, dated by what the page says.
    page.get_by_role("navigation").get_by_role("link", name="My clips").click()
    archived = page.get_by_role("main").get_by_test_id("clip").filter(has_text=ARCHIVE)
    expect(archived.get_by_test_id("published")).to_have_attribute(
        "datetime", old.clip.published_at.isoformat()
    )
    axe_clean(page, problems, "clips")
    assert problems == {}
