"""German and French: every catalogue entry translated, every page and mail in the language asked.

A page rendered in German or French may show no English text of the catalogue: each msgid
the English page shows (long enough not to be a word of both languages; a placeholder matches
whatever fills it) must be gone from the translated page. Text built in Python and never put
in the catalogue is caught too: no sentence of the English page may stay the same in the
translated one, unless it is the data on show (names, titles, addresses).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import polib
import pytest
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from accounts.models import ApiToken
from accounts.timezones import time_zone_choices
from clipping import channels, emails, exchange, tasks
from clipping.models import Channel, Clip, KeywordList, ListChannel, Match
from clipping.publisher import Outcome
from crawler.models import CrawlRun, Site
from tests.crawler.servers import SiteServer
from tests.factories import make_list, make_match, make_run, make_site, make_user
from tests.servers import free_port
from tests.ui.pages import READER, STAFF, populate
from tests.usersites.sites import TITLES, serve_news

LOCALE = Path(__file__).resolve().parents[2] / "locale"
LANGUAGES = ("de", "fr")
TAGS = re.compile(r"<[^>]+>")
PLACEHOLDER = re.compile(r"%\(\w+\)[sdr]")
# Text between tags, scripts and styles left out: what a reader sees, piece by piece.
SEGMENTS = re.compile(r"<(?P<tag>script|style)\b.*?</(?P=tag)>|<[^>]+>", re.S)
WORD = re.compile(r"[^\W\d_]{2,}")
ADDRESS = re.compile(r"\S+://\S*|\S+@\S+")


def catalogue(language: str) -> polib.POFile:
    return polib.pofile(str(LOCALE / language / "LC_MESSAGES" / "django.po"))


def plain(text: str) -> str:
    """Return a page's or a msgid's text: tags dropped, entities decoded, spaces squeezed."""
    return " ".join(html.unescape(TAGS.sub(" ", text)).split())


@dataclass(frozen=True)
class Phrase:
    """A msgid as a page shows it; its placeholders match whatever text fills them."""

    text: str
    pattern: re.Pattern[str]

    def on(self, page_text: str) -> bool:
        return self.pattern.search(page_text) is not None


def english_phrases(language: str) -> list[Phrase]:
    """Return the msgids worth looking for: whole phrases whose translation differs.

    Each singular and plural form counts; a msgid needs 12 characters outside its placeholders,
    else it could be a word of both languages. A phrase "translated" as itself counts too: only
    a single word may be the same in both languages.
    """
    phrases = []
    for entry in catalogue(language):
        if entry.obsolete:
            continue
        forms = [(entry.msgid, entry.msgstr)]
        if entry.msgid_plural:
            plural = entry.msgstr_plural
            forms = [(entry.msgid, plural.get(0, "")), (entry.msgid_plural, plural.get(1, ""))]
        for english, translated in forms:
            text = plain(english)
            pieces = [piece for piece in PLACEHOLDER.split(text)]
            if len("".join(pieces).strip()) < 12 or (text == plain(translated) and " " not in text):
                continue
            pattern = ".{0,300}?".join(re.escape(piece) for piece in pieces if piece.strip())
            phrases.append(Phrase(text, re.compile(pattern)))
    return phrases


def segments(page: str) -> set[str]:
    """Return the pieces of text a page shows, each squeezed, that hold three words or more."""
    pieces = (" ".join(html.unescape(s).split()) for s in SEGMENTS.sub("\0", page).split("\0"))
    return {piece for piece in pieces if len(WORD.findall(piece)) >= 3}


def english_left(english: str, translated: str, data: list[str]) -> list[str]:
    """Return the sentences of the English page that the translated page shows unchanged.

    The data on show is taken out first; what stays must have three words to count.
    """
    left = []
    for piece in segments(english) & segments(translated):
        if any(piece in value for value in data):  # a part of a summary, around a <mark>
            continue
        rest = ADDRESS.sub(" ", piece)
        for value in data:
            rest = rest.replace(value, " ")
        if len(WORD.findall(rest)) >= 3:
            left.append(piece)
    return sorted(left)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_catalogue_entry_is_translated(language):
    entries = list(catalogue(language))
    assert len(entries) > 300
    untranslated = [
        e.msgid
        for e in entries
        if e.obsolete is False
        and (
            "fuzzy" in e.flags
            or not (all(e.msgstr_plural.values()) if e.msgid_plural else e.msgstr)
        )
    ]
    assert untranslated == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_placeholders_survive_translation(language):
    for entry in catalogue(language):
        wanted = sorted(re.findall(r"%\(\w+\)[sdr]", entry.msgid))
        for text in [entry.msgstr] if not entry.msgid_plural else entry.msgstr_plural.values():
            assert sorted(re.findall(r"%\(\w+\)[sdr]", text)) == wanted, entry.msgid


VISITOR = ["/", "/accounts/login/", "/accounts/signup/", "/accounts/password/reset/"]
READER_PATHS = [
    "/dashboard/",
    "/clips/",
    "/lists/",
    "/lists/{list}/",
    "/lists/{list}/edit/",
    "/lists/new/",
    "/account/settings/",
    "/account/delete/",
    "/sites/",
    "/sites/{site}/",
]
STAFF_PATHS = ["/ops/"]
# Pages with text built in Python: each sentence on them is checked, in the catalogue or not.
PYTHON_TEXT = ("/sites/", "/account/settings/", "/channels/", "/lists/import/")


@dataclass(frozen=True)
class Owned:
    """What alice has besides lists and clips: sites, channels, a token; and the news site."""

    list_id: int
    site_id: int
    channel_id: int
    news_url: str
    followed_feed: str
    declined_feed: str
    data: list[str]  # names, titles and addresses the pages show as they are


# Alice's own sites leave room in her pages a day: a preview can plan one more.
SMALL = {"page_budget": 20, "revisit_interval": timedelta(days=1)}


def own_sites_channels_and_token(list_id: int, news: SiteServer) -> Owned:
    """Give alice sites in each crawl state, two channels with routes, and an API token."""
    alice = _user(READER)
    now = timezone.now()
    gazette = Site.objects.create(
        name="Gazette of the Harbour",
        root_url="https://gazette.example.org/",
        added_by=alice,
        visibility=Site.Visibility.PRIVATE,
        next_crawl_at=now + timedelta(hours=1),
        **SMALL,
    )
    make_run(gazette, hours_ago=2, fetched=12, new=3, changed=1, errors=0)
    pending = Site.objects.create(
        name="Pending Post",
        root_url="https://pending.example.org/",
        added_by=alice,
        visibility=Site.Visibility.PRIVATE,
        approval=Site.Approval.PENDING,
        **SMALL,
    )
    broken = Site.objects.create(name="Broken Bugle", root_url="https://bugle.example.org/")
    failed = make_run(broken, hours_ago=5, fetched=2)
    CrawlRun.objects.filter(id=failed.id).update(status=CrawlRun.Status.FAILED, error="HTTP 503")
    stopped = Site.objects.create(name="Stopped Star", root_url="https://star.example.org/")
    interrupted = make_run(stopped, hours_ago=3, fetched=1, new=1)
    CrawlRun.objects.filter(id=interrupted.id).update(status=CrawlRun.Status.INTERRUPTED)
    for site in (gazette, pending, broken, stopped):
        site.subscribers.add(alice)
    Site.objects.create(
        name="Declined Daily",
        root_url="https://declined.example.org/",
        approval=Site.Approval.DENIED,
    )
    # A URL Apprise no longer knows: its test message fails without a connection.
    phone = Channel(owner=alice, name="Phone")
    phone.set_url("retired://phone.example.org/", "retired://phone.example.org/", "")
    phone.save()
    desk = Channel(owner=alice, name="Desk", paused_at=now, paused_reason="HTTP 503")
    desk.set_url("json://desk.example.org/", "json://desk.example.org/", "JSON")
    desk.save()
    ListChannel.objects.create(keyword_list_id=list_id, channel=phone, mode="instant")
    ListChannel.objects.create(keyword_list_id=list_id, channel=desk, mode="digest")
    ApiToken.issue(alice, "Script")
    data = [
        *Site.objects.values_list("name", flat=True),
        *KeywordList.objects.values_list("name", flat=True),
        *Clip.objects.values_list("title", flat=True),
        *Match.objects.values_list("summary", flat=True),
        *ApiToken.objects.values_list("prefix", flat=True),
        *(term for kl in KeywordList.objects.all() for term in kl.term_lines()),
        *(
            label
            for _, zones in time_zone_choices()
            if isinstance(zones, list)
            for _, label in zones
        ),
        *TITLES,
        "Harbour Gazette",
        "Latest news",
    ]
    return Owned(
        list_id=list_id,
        site_id=gazette.id,
        channel_id=phone.id,
        news_url=news.url("/"),
        followed_feed="https://gazette.example.org/feed.xml",
        declined_feed="https://declined.example.org/rss",
        data=sorted(set(data), key=len, reverse=True),
    )


def opml(*feeds: str) -> bytes:
    outlines = "".join(f'<outline type="rss" text="{url}" xmlUrl="{url}"/>' for url in feeds)
    return (
        f'<?xml version="1.0"?><opml version="2.0"><head><title>Reader</title></head>'
        f"<body>{outlines}</body></opml>"
    ).encode()


def upload(name: str, content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content)


Payload = Callable[[Owned], dict[str, Any]]


def lists_file(owned: Owned) -> dict[str, Any]:
    """A JSON file of alice's Energy list as it is, and a list that cannot be imported."""
    energy = exchange.lists_json(KeywordList.objects.filter(id=owned.list_id))
    broken = energy.replace('"lists": [', '"lists": [{"name": "", "terms": []},')
    return {"file": upload("lists.json", broken.encode())}


# Forms whose answer is a page of Python-made text, each with a sentence the English answer
# must show (so the test sees that text); each gives the same answer when repeated.
READER_POSTS: list[tuple[str, Payload, str]] = [
    ("/sites/preview/", lambda o: {"url": o.news_url}, "a page of links to articles"),
    ("/sites/preview/", lambda o: {"url": "ftp://news.example.com/"}, "not a web address"),
    (
        "/sites/import/",
        lambda o: {"file": upload("feeds.opml", opml(o.followed_feed, o.news_url))},
        'data-testid="opml-feeds"',
    ),
    (
        "/sites/import/follow/",
        lambda o: {"url": [o.followed_feed, o.declined_feed]},
        "An admin declined Declined Daily",
    ),
    ("/lists/import/", lists_file, "1 unchanged"),
    ("/lists/import/", lambda o: {"file": upload("lists.json", b'{"lists": 3}')}, "a &quot;lists"),
    ("/lists/import/", lambda o: {}, "Choose a file to import."),
    ("/channels/{channel}/test/", lambda o: {}, "Apprise no longer knows this URL."),
    (
        "/channels/routes/",
        lambda o: {
            f"route-{route.keyword_list_id}-{route.channel_id}": route.mode
            for route in ListChannel.objects.all()
        },
        "Your channel choices are saved.",
    ),
]
# What the pages of Python-made text must show in English, for the test to see it.
READER_SHOWS = {
    "/sites/": "Last crawled 2",
    "/sites/{site}/": "Last crawled 2",
    "/account/settings/": "Each clip",
}


@pytest.fixture
def news(settings) -> Iterator[SiteServer]:
    """The local news site, which people's sites may reach in this test only."""
    settings.CRAWLER_USER_SITE_NETWORKS = "127.0.0.1/32"
    settings.CRAWLER_USER_SITE_PREVIEW_PAGES = 1
    with SiteServer() as server:
        serve_news(server)
        yield server


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_no_page_shows_english_text_of_the_catalogue(client, settings, tmp_path, news, language):
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    populated = populate(clips=3)
    owned = own_sites_channels_and_token(populated.list_id, news)
    phrases = english_phrases(language)
    leftovers: dict[str, list[str]] = {}
    for who, path, payload, expected in [
        *((None, path, None, "") for path in VISITOR),
        *((READER, path, None, READER_SHOWS.get(path, "")) for path in READER_PATHS),
        *((READER, path, payload, expected) for path, payload, expected in READER_POSTS),
        *((STAFF, path, None, "") for path in STAFF_PATHS),
    ]:
        client.logout()
        if who:
            client.force_login(_user(who))
        url = path.format(list=owned.list_id, site=owned.site_id, channel=owned.channel_id)
        english = _page(client, url, payload, owned, "en")
        assert expected in english, url
        shown = [p for p in phrases if p.on(plain(english))]
        assert shown, f"{url} shows none of the catalogue in English"
        page = _page(client, url, payload, owned, language)
        assert f'<html lang="{language}"' in page
        translated = plain(page)
        left = [p.text for p in shown if p.on(translated)]
        if path.startswith(PYTHON_TEXT):
            left += english_left(english, page, owned.data)
        if left:
            leftovers[f"{'POST ' if payload else ''}{url}"] = left
    assert leftovers == {}


def _page(client, url: str, payload: Payload | None, owned: Owned, language: str) -> str:
    """Return a page in the language asked: a GET, or a form posted and its redirect followed."""
    if payload is None:
        response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    else:
        response = client.post(url, payload(owned), follow=True, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200, url
    return response.content.decode()


def _user(email: str):
    from accounts.models import User

    return User.objects.get(email=email)


@pytest.mark.django_db
def test_the_account_language_wins_over_the_browser_and_the_switcher_saves_it(client):
    alice = make_user("alice@example.com", language="fr")
    client.force_login(alice)

    page = client.get(reverse("dashboard"), HTTP_ACCEPT_LANGUAGE="de")
    assert '<html lang="fr"' in page.content.decode()
    assert "Tableau de bord" in page.content.decode()

    client.post(reverse("set_language"), {"language": "de", "next": "/dashboard/"})
    alice.refresh_from_db()
    assert alice.language == "de"
    assert "Übersicht" in client.get(reverse("dashboard")).content.decode()


@pytest.mark.django_db
def test_a_visitor_switches_the_language_with_the_footer_form(client):
    response = client.post(reverse("set_language"), {"language": "fr", "next": "/"})
    assert response.status_code == 302
    assert "Se connecter" in client.get("/").content.decode()


@pytest.mark.django_db
def test_dates_are_written_in_the_page_language(client):
    alice = make_user("alice@example.com", language="de", time_zone="Europe/Berlin")
    energy = make_list(alice, "Energie", "subsidy")
    make_match(energy, title="Solar")
    client.force_login(alice)
    page = client.get(reverse("clip_index")).content.decode()
    months = "Jan.|Feb.|März|April|Mai|Juni|Juli|Aug.|Sept.|Okt.|Nov.|Dez."
    assert re.search(rf"\d{{1,2}}\. ({months}) \d{{4}}, \d\d:\d\d</time>", page)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "subject", "phrase"),
    [
        ("de", "[Webclip] Energie: Council backs solar subsidies", "passt zu Ihrer Liste"),
        ("fr", "[Webclip] Energie: Council backs solar subsidies", "correspond à votre liste"),
        ("", "[Webclip] Energie: Council backs solar subsidies", "matched your list"),
    ],
)
def test_clip_mail_speaks_its_readers_language_and_names_list_and_site(
    settings, language, subject, phrase
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    alice = make_user("alice@example.com", language=language)
    energy = make_list(alice, "Energie", "subsidy")
    match = make_match(energy, title="Council backs solar subsidies")
    match.clip.site = make_site("The Daily Demo")
    match.clip.save()

    emails.instant_clip(match)

    sent = mail.outbox[-1]
    assert sent.subject == subject
    assert phrase in sent.body
    assert "The Daily Demo" in sent.body and "news.example.com —" not in sent.body


@pytest.mark.django_db
def test_a_channel_pauses_with_its_reason_in_its_owners_language(settings):
    settings.CLIPPING_CHANNEL_NETWORKS = "127.0.0.1/32"
    hans = make_user("hans@example.com", language="de")
    energy = make_list(hans, "Energie", "subsidy")
    checked = channels.check_url(f"json://127.0.0.1:{free_port()}/hook")  # nobody listens
    phone = Channel(owner=hans, name="Telefon")
    phone.set_url(checked.url, checked.shown, checked.service)
    phone.save()
    ListChannel.objects.create(keyword_list=energy, channel=phone)
    (notice_id,) = channels.plan_notices([make_match(energy).id])

    assert tasks.deliver_notice.apply(args=[notice_id]).get() == Outcome.FAILED

    phone.refresh_from_db()
    assert phone.paused_reason.startswith("Pausiert nach 5 fehlgeschlagenen Versänden in Folge")
