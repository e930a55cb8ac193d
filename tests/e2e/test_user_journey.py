"""A new person's whole journey in Chromium, on real workers: sign up, verify by mail, add a
site after its preview, keep a list, route it to a webhook, and get the matching clip by mail
and on the webhook.

The news site and the webhook listen on 127.0.0.1, which people's sites and channels may reach
only through the operator's network settings: the test opens 127.0.0.1/32 with them, in this
process (the live server) and in the workers' environment alike.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django_celery_beat.models import IntervalSchedule, PeriodicTask
from playwright.sync_api import Page, expect

from clipping.models import Match
from crawler.models import Site
from tests.channels.servers import NotifyServer
from tests.crawler.servers import SiteServer
from tests.e2e.people import create_list, sign_up_and_verify, text_of
from tests.e2e.processes import Processes, purge_queues, service_env, wait_until
from tests.usersites.sites import TITLES, serve_news

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
]

EMAIL = "dana@example.com"
LOOPBACK = "127.0.0.1/32"
MATCHING_TITLE = "Council backs solar subsidies"  # the one article "subsidy" matches
OPEN_LOOPBACK = {
    "CRAWLER_USER_SITES": "open",
    "CRAWLER_USER_SITE_NETWORKS": LOOPBACK,
    "CLIPPING_CHANNEL_NETWORKS": LOOPBACK,
}


def open_loopback(settings) -> None:
    """Let people's sites and channels reach 127.0.0.1 in this process (the live server)."""
    for name, value in OPEN_LOOPBACK.items():
        setattr(settings, name, value)


@pytest.fixture
def news(settings) -> Iterator[SiteServer]:
    open_loopback(settings)
    with SiteServer() as server:
        serve_news(server)
        yield server


@pytest.fixture
def webhook() -> Iterator[NotifyServer]:
    with NotifyServer() as server:
        yield server


@pytest.fixture
def services(live_server, smtp_server, tmp_path) -> Iterator[Processes]:
    """The workers of `make run`, sharing this test's database, broker and SMTP server."""
    purge_queues()
    # Crawls are dispatched every 2 s here (the shipped schedule ticks every minute).
    every, _ = IntervalSchedule.objects.get_or_create(every=2, period=IntervalSchedule.SECONDS)
    PeriodicTask.objects.update_or_create(
        name="Dispatch due crawls",
        defaults={
            "task": "crawler.tasks.dispatch_due_sites",
            "interval": every,
            "queue": "crawl",
            "enabled": True,
        },
    )
    env = service_env(smtp_port=smtp_server.port, site_url=live_server.url, **OPEN_LOOPBACK)
    processes = Processes(env, tmp_path)
    yield processes
    processes.stop_all()


def add_site_after_preview(page: Page, base: str, news: SiteServer) -> None:
    page.get_by_role("navigation").get_by_role("link", name="My sites").click()
    page.wait_for_url(f"{base}/sites/")
    page.get_by_label("Address of a site, a section or a feed").fill(news.url("/"))
    page.get_by_role("button", name="Preview").click()

    preview = page.get_by_test_id("preview")
    expect(preview).to_be_visible()
    assert (
        "Harbour Gazette: a page of links to articles"
        in preview.get_by_test_id("preview-kind").inner_text()
    )
    titles = preview.get_by_test_id("preview-titles").get_by_role("listitem").all_inner_texts()
    assert MATCHING_TITLE in titles and set(titles) <= set(TITLES)
    assert news.url("/feed.xml") in preview.get_by_test_id("preview-feeds").inner_text()
    assert preview.get_by_test_id("preview-robots").inner_text() == "robots.txt allows this page."

    preview.get_by_role("button", name="Add this site").click()
    page.wait_for_url(f"{base}/sites/")
    expect(page.get_by_text("Harbour Gazette is added; its first crawl starts")).to_be_visible()
    expect(page.get_by_role("table").get_by_role("link", name="Harbour Gazette")).to_be_visible()


def add_webhook_for_list(page: Page, base: str, hook_url: str, list_name: str) -> None:
    page.get_by_role("navigation").get_by_role("link", name="Account").click()
    page.wait_for_url(f"{base}/account/settings/")
    form = page.get_by_test_id("channel-add")
    form.get_by_label("Name").fill("Webhook")
    form.get_by_label("Apprise URL").fill(hook_url)
    form.get_by_role("button", name="Add the channel").click()
    page.wait_for_url(f"{base}/account/settings/#channels")
    expect(page.get_by_text("Channel Webhook added")).to_be_visible()

    page.get_by_label(f"{list_name} to Webhook").select_option(label="Each clip")
    page.get_by_role("button", name="Save channel choices").click()
    page.wait_for_url(f"{base}/account/settings/#channels")
    expect(page.get_by_text("Your channel choices are saved.")).to_be_visible()
    expect(page.get_by_label(f"{list_name} to Webhook")).to_have_value("instant")


def test_a_new_person_gets_a_clip_of_their_own_site_by_mail_and_webhook(
    live_server, smtp_server, page, news, webhook, services
):
    base = live_server.url
    services.worker("publish", "publish,celery")  # account mail leaves through it too
    services.worker("crawl", "crawl,render")

    sign_up_and_verify(page, base, smtp_server, EMAIL)
    add_site_after_preview(page, base, news)
    create_list(page, "Energy", "subsidy")
    add_webhook_for_list(page, base, webhook.json_url("/hook"), "Energy")

    # The site is crawled once the beat ticks: everything the person chose is in place.
    services.beat()
    article_url = news.url("/news/1")
    clip_mails = wait_until(
        lambda: [m for m in smtp_server.to(EMAIL) if MATCHING_TITLE in str(m["Subject"])],
        90,
        "the clip's mail",
    )
    posts = wait_until(
        lambda: [m for m in webhook.messages if m.path == "/hook"], 30, "the webhook's post"
    )

    (mail,) = clip_mails
    assert str(mail["Subject"]) == f"[Webclip] Energy: {MATCHING_TITLE}"
    assert article_url in text_of(mail)
    (post,) = posts
    assert post.payload["title"] == MATCHING_TITLE
    assert article_url in post.payload["message"] and "(Energy)" in post.payload["message"]

    site = Site.objects.get()
    assert site.added_by.email == EMAIL and not site.allow_private_network
    match = Match.objects.get()
    assert match.clip.title == MATCHING_TITLE and match.keyword_list.name == "Energy"

    # The clip is on the person's own page too.
    page.get_by_role("navigation").get_by_role("link", name="My clips").click()
    clip = page.get_by_role("main").get_by_test_id("clip").filter(has_text=MATCHING_TITLE)
    expect(clip.get_by_test_id("original-link")).to_have_attribute("href", article_url)
    expect(clip.get_by_role("link", name=MATCHING_TITLE, exact=True)).to_have_attribute(
        "href", f"/clips/{match.clip_id}/"
    )
