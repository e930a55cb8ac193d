"""The whole product as its users meet it: admin adds a site, people sign up and keep lists, real
Celery workers (crawl and publish queues) and beat run as separate processes on the real broker,
and clips arrive by mail through a real SMTP server, on the personal page and in the feed."""

from __future__ import annotations

import os
import re
import urllib.parse
import urllib.request
from datetime import timedelta

import pytest
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from accounts.models import User
from clipping.models import Clip, Match
from crawler.models import CrawlRun, Site
from demo.server import serve
from tests.e2e.people import create_list, sign_up_and_verify, text_of
from tests.e2e.processes import UNPACED, Processes, purge_queues, service_env, wait_until
from tests.factories import PASSWORD, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SUBSIDY_ARTICLES = {
    "Government doubles solar subsidies for households",
    "Wind farm approved off the northern coast",
    "Small firms report slower growth in orders",
}
SYNONYM_ARTICLE = "Automobile makers bet on smaller electric models"  # "car" -> automobile
RAIL_ARTICLES = {"Rail strike halts commuter trains across the region"}


@pytest.fixture
def news_site():
    server, state = serve()
    yield f"http://127.0.0.1:{server.server_address[1]}/", state
    server.shutdown()


@pytest.fixture
def schedules(db):
    """Beat every 2 s (the shipped schedules run every minute)."""
    every, _ = IntervalSchedule.objects.get_or_create(every=2, period=IntervalSchedule.SECONDS)
    for name, task, queue in [
        ("Dispatch due crawls", "crawler.tasks.dispatch_due_sites", "crawl"),
        ("Publish due mail", "clipping.tasks.publish_due", "publish"),
    ]:
        PeriodicTask.objects.update_or_create(
            name=name, defaults={"task": task, "interval": every, "queue": queue, "enabled": True}
        )


@pytest.fixture
def services(live_server, smtp_server, schedules, tmp_path):
    purge_queues()  # tasks an earlier test left on the broker name rows that are gone
    env = service_env(
        smtp_port=smtp_server.port,
        site_url=live_server.url,
        CRAWLER_HEARTBEAT_TIMEOUT="5",
        **UNPACED,
    )
    processes = Processes(env, tmp_path)
    yield processes
    processes.stop_all()


def snap(page, name: str, *, full_page: bool = False) -> None:
    """Save a screenshot for the README when WEBCLIP_SCREENSHOTS names a folder."""
    folder = os.environ.get("WEBCLIP_SCREENSHOTS")
    if folder:
        page.set_viewport_size({"width": 1100, "height": 760})
        page.screenshot(path=os.path.join(folder, f"{name}.png"), full_page=full_page)


def mails_to(sink, address: str) -> list:
    return sink.to(address)


def clip_title(message) -> str:
    """Return the clip title of a clip mail's subject, "[Webclip] <list>: <title>"."""
    return str(message["Subject"]).split(": ", 1)[-1]


def subjects(sink, address: str) -> list[str]:
    return [clip_title(m) for m in mails_to(sink, address)]


def mailed(sink, address: str, titles: set[str]) -> set[str]:
    """Return the titles some mail to `address` names: a clip's own mail, or the summary of
    what a new list found already (articles older than the news window come only there)."""
    texts = [text_of(m) for m in mails_to(sink, address)]
    return {title for title in titles if any(title in text for text in texts)}


def kept_old(title: str, address: str) -> bool:
    """The owner's match of `title` was published before their news window: on My clips, never
    mailed."""
    return Match.objects.filter(owner__email=address, clip__title=title, old=True).exists()


def told(sink, address: str, titles: set[str]) -> bool:
    """Every title is mailed to `address`, or kept on My clips as older than the news window."""
    sent = mailed(sink, address, titles)
    return all(title in sent or kept_old(title, address) for title in titles)


def mail_naming(mails, title: str):
    return next(m for m in mails if title in text_of(m))


def admin_adds_site(page, base: str, root_url: str) -> None:
    make_user("admin@example.com", is_staff=True, is_superuser=True)
    page.goto(f"{base}/admin/login/")
    page.fill("input[name=username]", "admin@example.com")
    page.fill("input[name=password]", PASSWORD)
    page.click("input[type=submit]")
    page.goto(f"{base}/admin/crawler/site/add/")
    page.fill("input[name=name]", "The Daily Demo")
    page.fill("input[name=root_url]", root_url)
    page.fill("input[name=revisit_interval]", "00:00:03")
    page.fill("input[name=min_page_revisit]", "00:00:03")
    page.fill("input[name=crawl_delay]", "0")
    page.fill("input[name=page_budget]", "80")
    page.check("input[name=allow_private_network]")
    page.click("input[name=_save]")
    page.wait_for_url(re.compile(r".*/admin/crawler/site/$"))


def test_clips_reach_people_by_mail_page_and_feed(
    page, browser, live_server, smtp_server, services, news_site
):
    base = live_server.url
    root_url, demo = news_site

    # People first, so the first crawl already has their lists (account mail is the publish
    # worker's too).
    services.worker("publish", "publish,celery")
    sign_up_and_verify(page, base, smtp_server, "dana@example.com")
    # The demo site's archive and live desks match Dana's words dozens of times; she takes
    # every clip at once (the per-person cap, not what this test follows).
    User.objects.filter(email="dana@example.com").update(instant_mails_per_hour=1000)
    create_list(page, "Energy and cars", "subsidy\ncar")
    snap(page, "list")
    digest_context = browser.new_context()
    erin_page = digest_context.new_page()
    sign_up_and_verify(erin_page, base, smtp_server, "erin@example.com")
    erin_page.goto(f"{base}/account/settings/")
    erin_page.select_option("select[name=delivery_mode]", "daily")
    erin_page.click("main form button[type=submit]")
    create_list(erin_page, "Rail", "strike")

    admin_context = browser.new_context()
    admin_page = admin_context.new_page()
    admin_adds_site(admin_page, base, root_url)
    site = Site.objects.get()

    services.worker("crawl", "crawl,render")
    services.beat()

    # Articles, not the hub pages that link to them, arrive one mail each.
    expected = SUBSIDY_ARTICLES | {SYNONYM_ARTICLE}

    # The demo site now also holds an archive behind its search and desks built by scripts:
    # a whole first crawl of it takes minutes on a loaded machine.
    # Each is mailed, or found but published before Dana's news window (the demo's older
    # stories say when they were published): then it is on My clips and never mailed.
    def old(title: str) -> bool:
        return kept_old(title, "dana@example.com")

    try:
        wait_until(
            lambda: told(smtp_server, "dana@example.com", expected), 300, "dana's clip mails"
        )
    except AssertionError as exc:
        got = [str(m["Subject"]) for m in mails_to(smtp_server, "dana@example.com")]
        raise AssertionError(f"{exc}; dana got {got}") from None
    too_old = {title for title in expected if old(title)}
    # The news is mailed; an article older than the window has no mail of its own (the new
    # list's summary of what it found already may name it, when the crawl was quicker).
    assert mailed(smtp_server, "dana@example.com", expected) >= expected - too_old
    assert not too_old & set(subjects(smtp_server, "dana@example.com"))
    assert too_old != expected  # the demo's front page has news
    dana_mails = [
        m for m in mails_to(smtp_server, "dana@example.com") if "confirm" not in text_of(m).lower()
    ]
    for mail in dana_mails:
        body = text_of(mail)
        links = re.findall(r"(?:Read the article: | — )(https?://\S+)", body)
        assert links, body
        for link in links:  # articles: the front page's and those only the site's search reaches
            assert re.search(r"/(article|archive/story|reports)/[^/?]+/$", link), (
                f"{mail['Subject']} links to {link}, not an article"
            )
        assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    if SYNONYM_ARTICLE not in too_old:
        automobile = mail_naming(dana_mails, SYNONYM_ARTICLE)
        assert "automobile" in text_of(automobile).lower()
    subsidy = "Government doubles solar subsidies for households"
    if subsidy not in too_old:
        subsidy_mail = mail_naming(dana_mails, subsidy)
        assert "double the *subsidies* paid to households" in text_of(subsidy_mail)
    assert len(subjects(smtp_server, "dana@example.com")) == len(
        set(subjects(smtp_server, "dana@example.com"))
    )

    # The personal page and the Atom feed show the same clips.
    page.goto(f"{base}/clips/")
    snap(page, "my-clips")
    for title in expected:
        # Found with the page's own search: the demo's archive fills more than one page.
        page.goto(f"{base}/clips/?q={urllib.parse.quote(title)}")
        assert title in page.locator("main").inner_text()

    dana = User.objects.get(email="dana@example.com")
    feed = urllib.request.urlopen(f"{base}/feed/{dana.feed_token}/").read().decode()
    for title in expected:
        assert title in feed

    page.goto(f"{base}/dashboard/")
    snap(page, "dashboard")
    admin_page.goto(f"{base}/ops/")
    admin_page.wait_for_function("window.Chart && Object.keys(Chart.instances).length > 0")
    snap(admin_page, "operations", full_page=True)
    admin_context.close()

    # A newly published article arrives after the next revisit.
    demo.publish_next()  # "Solar subsidies drive record panel installations"
    wait_until(
        lambda: (
            "Solar subsidies drive record panel installations"
            in subjects(smtp_server, "dana@example.com")
        ),
        90,
        "the newly published article's mail",
    )

    # One-click unsubscribe (cookie-less POST) stops mail for that list at once.
    one_clip = next(m for m in dana_mails if str(m["Subject"]).startswith("[Webclip] Energy"))
    unsubscribe = re.search(r"<([^>]+)>", one_clip["List-Unsubscribe"]).group(1)
    request = urllib.request.Request(unsubscribe, data=b"List-Unsubscribe=One-Click", method="POST")
    assert urllib.request.urlopen(request).status == 200
    # Mail of that list is told by its subject, "[Webclip] <list>: <title>"; dana's other lists
    # may still bring late clips of the demo's archive, and those are not its business.
    unsubscribed = str(one_clip["Subject"]).split(": ", 1)[0]

    def list_mails() -> list[str]:
        return [
            str(m["Subject"])
            for m in mails_to(smtp_server, "dana@example.com")
            if str(m["Subject"]).split(": ", 1)[0] == unsubscribed
        ]

    # A mail of that list already being sent when the POST came (its match claimed, its
    # list checked) still arrives; every match claimed from now on is skipped.
    list_name = unsubscribed.removeprefix("[Webclip] ")
    wait_until(
        lambda: (
            not Match.objects.filter(
                owner=dana, keyword_list__name=list_name, claimed_at__isnull=False
            ).exists()
        ),
        30,
        "mails of the list already being sent",
    )
    before = list_mails()
    demo.publish_next()  # "Drivers union calls second rail strike": erin's list
    demo.publish_next()  # "Car sharing grows in the suburbs": dana's list, now unsubscribed
    wait_until(
        lambda: Clip.objects.filter(title="Car sharing grows in the suburbs").exists(),
        90,
        "the car-sharing clip",
    )
    second_strike = "Drivers union calls second rail strike"
    wait_until(
        lambda: Match.objects.filter(
            owner__email="erin@example.com", clip__title=second_strike
        ).exists(),
        90,
        "erin's match for the second strike",
    )
    wait_until(
        lambda: (
            not Match.objects.undelivered()
            .filter(owner=dana)
            .exclude(mail_status=Match.MailStatus.SKIPPED)
            .exists()
        ),
        30,
        "dana's matches to settle",
    )
    assert list_mails() == before
    car_sharing = Match.objects.get(owner=dana, clip__title="Car sharing grows in the suburbs")
    assert car_sharing.mail_status == Match.MailStatus.SKIPPED

    # The digest reader got nothing one by one, and exactly one digest with all her matches.
    assert mails_to(smtp_server, "erin@example.com")[1:] == []
    from clipping import digests
    from clipping.tasks import deliver_digest

    # What is news to her: her matches published within her window (older ones stay on My
    # clips); a live story's updates are one item of the digest.
    erin_titles = set(
        Match.objects.filter(owner__email="erin@example.com", old=False).values_list(
            "clip__title", flat=True
        )
    )
    for digest_id in digests.plan_digests(timezone.now() + timedelta(days=1)):
        deliver_digest.delay(digest_id)
    digest_mail = wait_until(
        lambda: mails_to(smtp_server, "erin@example.com")[1:], 60, "erin's digest"
    )
    assert len(digest_mail) == 1
    found = set(
        Match.objects.filter(owner__email="erin@example.com").values_list("clip__title", flat=True)
    )
    assert found >= RAIL_ARTICLES | {second_strike}
    digest_text = text_of(digest_mail[0])
    for title in erin_titles:
        assert title in digest_text or re.search(r"update \d+$", title), title
    assert CrawlRun.objects.filter(site=site).count() >= 2
    digest_context.close()


def test_a_worker_killed_mid_crawl_loses_and_doubles_nothing(
    page, live_server, smtp_server, services, news_site
):
    base = live_server.url
    root_url, _ = news_site
    services.worker("publish", "publish,celery")
    sign_up_and_verify(page, base, smtp_server, "dana@example.com")
    create_list(page, "Energy", "subsidy")
    Site.objects.create(
        name="Demo",
        root_url=root_url,
        allow_private_network=True,
        crawl_delay=0.4,
        page_budget=80,
        revisit_interval=timedelta(seconds=3),
        min_page_revisit=timedelta(seconds=3),
    )
    services.worker("crawl", "crawl,render")
    services.beat()
    wait_until(
        lambda: CrawlRun.objects.filter(finished_at__isnull=True, fetched__gte=3).exists(),
        60,
        "a crawl under way",
    )
    services.kill("crawl")
    services.worker("crawl-restarted", "crawl,render")
    # Each subsidy article is mailed, or kept on My clips when published before Dana's news
    # window: none is lost with the killed worker.
    wait_until(
        lambda: told(smtp_server, "dana@example.com", SUBSIDY_ARTICLES),
        150,
        "every subsidy article's mail or old match",
    )
    wait_until(
        lambda: CrawlRun.objects.filter(finished_at__isnull=False).exists(),
        60,
        "a finished crawl run",
    )
    assert mailed(smtp_server, "dana@example.com", SUBSIDY_ARTICLES)  # the recent ones
    titles = subjects(smtp_server, "dana@example.com")[1:]  # after the verification mail
    assert sorted(titles) == sorted(set(titles)), f"a clip was mailed twice: {titles}"
    for title in SUBSIDY_ARTICLES:
        assert Match.objects.filter(owner__email="dana@example.com", clip__title=title).count() == 1
