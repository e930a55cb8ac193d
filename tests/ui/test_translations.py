"""German and French: every catalogue entry translated, every page and mail in the language asked.

A page rendered in German or French may show no English text of the catalogue: each msgid
the English page shows (long enough not to be a word of both languages) must be gone from
the translated page.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import polib
import pytest
from django.core import mail
from django.urls import reverse

from clipping import emails
from tests.factories import make_list, make_match, make_site, make_user
from tests.ui.pages import READER, STAFF, populate

LOCALE = Path(__file__).resolve().parents[2] / "locale"
LANGUAGES = ("de", "fr")
TAGS = re.compile(r"<[^>]+>")


def catalogue(language: str) -> polib.POFile:
    return polib.pofile(str(LOCALE / language / "LC_MESSAGES" / "django.po"))


def plain(text: str) -> str:
    """Return a page's or a msgid's text: tags dropped, entities decoded, spaces squeezed."""
    return " ".join(html.unescape(TAGS.sub(" ", text)).split())


def english_phrases(language: str) -> list[str]:
    """Return the msgids worth looking for: whole phrases whose translation differs."""
    phrases = []
    for entry in catalogue(language):
        text = plain(entry.msgid)
        if "%(" in text or len(text) < 12 or entry.msgstr == entry.msgid:
            continue
        phrases.append(text)
    return phrases


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
]
STAFF_PATHS = ["/ops/"]


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_no_page_shows_english_text_of_the_catalogue(client, settings, tmp_path, language):
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    data = populate(clips=3)
    phrases = english_phrases(language)
    leftovers: dict[str, list[str]] = {}
    for who, paths in ((None, VISITOR), (READER, READER_PATHS), (STAFF, STAFF_PATHS)):
        client.logout()
        if who:
            client.force_login(_user(who))
        for path in paths:
            url = path.format(list=data.list_id)
            english = plain(client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode())
            shown = [p for p in phrases if p in english]
            assert shown, f"{url} shows none of the catalogue in English"
            page = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
            assert page.status_code == 200
            assert f'<html lang="{language}"' in page.content.decode()
            translated = plain(page.content.decode())
            if left := [p for p in shown if p in translated]:
                leftovers[url] = left
    assert leftovers == {}


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
