"""Keyword list pages: create, edit, delete, validation, and nobody sees another's lists."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from clipping.matching import compile_text
from clipping.models import KeywordList

pytestmark = pytest.mark.django_db


def form_data(**overrides: str) -> dict[str, str]:
    data = {
        "name": "Energy",
        "terms": 'solar subsidies\n"feed-in tariff"\n-sports',
        "language": "en",
        "use_synonyms": "on",
        "active": "on",
    }
    data.update(overrides)
    return data


def test_a_list_is_created_and_shown_on_the_dashboard(client, alice):
    client.force_login(alice)
    response = client.post(reverse("list_create"), form_data())
    keyword_list = KeywordList.objects.get(owner=alice)
    assert response["Location"] == keyword_list.get_absolute_url()
    assert keyword_list.term_lines() == ["solar subsidies", '"feed-in tariff"', "-sports"]
    assert keyword_list.use_synonyms and keyword_list.active and not keyword_list.match_all
    assert "Energy" in client.get(reverse("dashboard")).content.decode()


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"terms": "  \n  "}, "terms", "required"),
        ({"terms": "\n".join(f"word{i}" for i in range(101))}, "terms", "100"),
        ({"terms": "x" * 101}, "terms", "100"),
        ({"language": "tlh"}, "language", "Unknown language"),
        ({"terms": '"an unclosed phrase'}, "terms", "quote"),
    ],
)
def test_invalid_lists_are_refused_inline(client, alice, overrides, field, message):
    client.force_login(alice)
    response = client.post(reverse("list_create"), form_data(**overrides))
    assert response.status_code == 200
    errors = " ".join(response.context["form"].errors[field])
    assert message.lower() in errors.lower()
    assert not KeywordList.objects.exists()


def test_a_list_name_is_unique_per_owner_only(client, alice, bob):
    KeywordList.objects.create(owner=bob, name="Energy", terms="solar")
    client.force_login(alice)
    assert client.post(reverse("list_create"), form_data()).status_code == 302
    response = client.post(reverse("list_create"), form_data())
    assert "already have a list" in " ".join(response.context["form"].errors["name"])


def test_a_list_is_edited(client, alice):
    keyword_list = KeywordList.objects.create(owner=alice, name="Energy", terms="solar")
    client.force_login(alice)
    client.post(
        reverse("list_edit", args=[keyword_list.pk]),
        form_data(name="Power", terms="wind", active=""),
    )
    keyword_list.refresh_from_db()
    assert (keyword_list.name, keyword_list.terms, keyword_list.active) == ("Power", "wind", False)


def test_delete_asks_for_confirmation_and_deletes_on_post(client, alice):
    keyword_list = KeywordList.objects.create(owner=alice, name="Energy", terms="solar")
    client.force_login(alice)
    url = reverse("list_delete", args=[keyword_list.pk])
    assert client.get(url).status_code == 200
    assert KeywordList.objects.filter(pk=keyword_list.pk).exists()
    client.post(url)
    assert not KeywordList.objects.filter(pk=keyword_list.pk).exists()


def test_the_list_page_shows_what_each_term_expands_to(client, alice):
    keyword_list = KeywordList.objects.create(
        owner=alice, name="Cars", terms="car", use_synonyms=True
    )
    client.force_login(alice)
    body = client.get(keyword_list.get_absolute_url()).content.decode()
    assert "automobile" in body


@pytest.mark.parametrize("route", ["list_detail", "list_edit", "list_delete"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_another_users_list_urls_give_404_and_change_nothing(
    client, alice, bob, charlie, route, method
):
    keyword_list = KeywordList.objects.create(owner=alice, name="Energy", terms="solar")
    for intruder in (bob, charlie):
        client.force_login(intruder)
        response = getattr(client, method)(
            reverse(route, args=[keyword_list.pk]), form_data(name="Hacked", terms="x")
        )
        assert response.status_code == 404
    keyword_list.refresh_from_db()
    assert (keyword_list.name, keyword_list.terms) == ("Energy", "solar")
    client.force_login(bob)
    assert "Energy" not in client.get(reverse("list_index")).content.decode()


def test_anonymous_visitors_are_sent_to_log_in(client, alice):
    keyword_list = KeywordList.objects.create(owner=alice, name="Energy", terms="solar")
    response = client.get(reverse("list_detail", args=[keyword_list.pk]))
    assert response.status_code == 302
    assert reverse("account_login") in response["Location"]


POST_VIEWS = [
    ("list_create", False),
    ("list_edit", True),
    ("list_synonyms", True),
    ("list_delete", True),
    ("account_settings", False),
    ("account_rotate_feed_token", False),
    ("account_delete", False),
    ("account_logout", False),
    ("account_email", False),
    ("account_change_password", False),
]


@pytest.mark.parametrize(("route", "needs_list"), POST_VIEWS)
def test_every_post_view_enforces_csrf(alice, route, needs_list):
    keyword_list = KeywordList.objects.create(owner=alice, name="Energy", terms="solar")
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    url = reverse(route, args=[keyword_list.pk] if needs_list else [])
    response = client.post(url, form_data(name="Changed"))
    assert response.status_code == 403
    keyword_list.refresh_from_db()
    assert keyword_list.name == "Energy"


@pytest.mark.parametrize("route", ["account_login", "account_signup", "account_reset_password"])
def test_anonymous_post_views_enforce_csrf(route):
    client = Client(enforce_csrf_checks=True)
    assert client.post(reverse(route), {"email": "x@example.com"}).status_code == 403


def test_the_list_page_says_what_each_term_matches_and_that_phrases_are_exact(client, alice):
    terms = 'car\n"car park"\nindiana'
    keyword_list = KeywordList.objects.create(
        owner=alice, name="Cars", terms=terms, use_synonyms=True
    )
    client.force_login(alice)
    body = client.get(keyword_list.get_absolute_url()).content.decode()
    car = body[body.index("<code>car</code>") : body.index("<code>&quot;car park&quot;</code>")]
    assert "a motor vehicle with four wheels" in car  # the sense, by its gloss
    for name in ("automobile", "auto", "motorcar", "railcar"):
        assert 'value="car|car.n.0' in car and f"> {name}</label>" in car
    assert 'value="car|car.n.01" checked' in car and 'value="car|car.n.02" data-role' in car
    assert "machine" not in car and "gondola" not in car
    assert '<code>&quot;car park&quot;</code> <small class="term-note">— quoted' in body
    # Indiana is a name in WordNet: no synonyms (not "Hoosier State", nor "IN").
    assert '<code>indiana</code> <small class="term-note">— no synonyms' in body
    assert "quoted phrases match exactly as written" in body


def test_the_list_form_documents_the_keyword_language(client, alice):
    client.force_login(alice)
    body = client.get(reverse("list_create")).content.decode()
    for example in (
        "<code>-sports</code>",
        "<code>site:example.com</code>",
        '<code>"Bank of England"</code>',
    ):
        assert example in body
    assert "Also match WordNet synonyms of unquoted terms" in body


def test_switching_synonyms_off_on_the_list_page_is_stored_and_used(client, alice):
    keyword_list = KeywordList.objects.create(
        owner=alice, name="Cars", terms="car\n-truck", use_synonyms=True
    )
    client.force_login(alice)
    body = client.get(keyword_list.get_absolute_url()).content.decode()
    checked = re.findall(r'name="on" value="([^"]+)" checked', body)
    assert "car|car.n.01|automobile" in checked
    kept = [key for key in checked if key != "car|car.n.01|automobile"]

    response = client.post(reverse("list_synonyms", args=[keyword_list.pk]), {"on": kept})

    assert response["Location"] == keyword_list.get_absolute_url()
    keyword_list.refresh_from_db()
    assert keyword_list.synonym_choices == {"car": {"car|car.n.01|automobile": False}}
    body = client.get(keyword_list.get_absolute_url()).content.decode()
    assert 'value="car|car.n.01|automobile" data-role' in body  # shown, unchecked
    compiled = compile_text(1, "car", "en", True, False, keyword_list.synonym_choices)
    assert ("", "automobile") not in compiled.positives[0].keys
    assert ("", "motorcar") in compiled.positives[0].keys


def test_editing_the_terms_drops_the_switches_of_lines_that_are_gone(client, alice):
    keyword_list = KeywordList.objects.create(
        owner=alice,
        name="Cars",
        terms="car\nstrike",
        synonym_choices={"car": {"car|car.n.01": False}, "strike": {"strike|strike.n.01": False}},
    )
    client.force_login(alice)
    client.post(reverse("list_edit", args=[keyword_list.pk]), form_data(name="Cars", terms="car"))
    keyword_list.refresh_from_db()
    assert keyword_list.synonym_choices == {"car": {"car|car.n.01": False}}


def test_a_list_in_a_language_without_a_thesaurus_says_only_word_forms_match(client, alice):
    keyword_list = KeywordList.objects.create(
        owner=alice, name="Autos", terms="Auto", language="de"
    )
    client.force_login(alice)
    body = client.get(keyword_list.get_absolute_url()).content.decode()
    assert "Only word forms are matched in German" in body
    assert 'name="on"' not in body


def test_every_snowball_language_can_be_chosen(client, alice):
    client.force_login(alice)
    response = client.post(reverse("list_create"), form_data(language="eu", terms="etxea"))
    assert response.status_code == 302
    assert KeywordList.objects.get(owner=alice).language == "eu"


def test_another_users_synonym_switches_cannot_be_changed(client, alice, bob):
    keyword_list = KeywordList.objects.create(owner=alice, name="Cars", terms="car")
    client.force_login(bob)
    response = client.post(reverse("list_synonyms", args=[keyword_list.pk]), {"on": []})
    assert response.status_code == 404
    keyword_list.refresh_from_db()
    assert keyword_list.synonym_choices == {}


def test_lists_and_the_clip_filters_are_ordered_by_name_whatever_the_case_or_accents(client, alice):
    from tests.factories import make_clip, make_list, make_match, make_site

    names = ["Zelmora", "central bank", "Éclairs", "apples"]
    lists = [make_list(alice, name, "word") for name in names]
    site_names = ["zinc Weekly", "Ärzteblatt", "Bay News", "atlas"]
    for name, keyword_list in zip(site_names, lists, strict=True):
        site = make_site(name, f"https://{keyword_list.id}.example.com/")
        make_match(keyword_list, clip=make_clip(site, url=f"https://{keyword_list.id}.example/a"))
    client.force_login(alice)

    def order(page: str, candidates: list[str]) -> list[str]:
        return sorted(candidates, key=page.index)

    expected = ["apples", "central bank", "Éclairs", "Zelmora"]
    assert order(client.get(reverse("list_index")).content.decode(), names) == expected
    dashboard = client.get(reverse("dashboard")).content.decode()
    assert order(dashboard[dashboard.index('data-testid="my-lists"') :], names) == expected
    clips_page = client.get(reverse("clip_index")).content.decode()
    filters = clips_page[clips_page.index('name="list"') :]
    assert order(filters, names) == expected
    sites = filters[filters.index('name="site"') :]
    assert order(sites, site_names) == [
        "Ärzteblatt",
        "atlas",
        "Bay News",
        "zinc Weekly",
    ]


def test_the_list_index_shows_each_lists_synonyms_and_mail(client, alice):
    KeywordList.objects.create(owner=alice, name="Energy", terms="solar", use_synonyms=True)
    KeywordList.objects.create(
        owner=alice, name="Rail", terms="strike", use_synonyms=False, mail_enabled=False
    )
    client.force_login(alice)
    rows = re.findall(r"<tr>(.*?)</tr>", client.get(reverse("list_index")).content.decode(), re.S)
    cells = [re.findall(r"<td>(.*?)</td>", row, re.S) for row in rows[1:]]
    assert [row[3:5] for row in cells] == [["on", "each clip at once"], ["off", "off"]]
    alice.delivery_mode = "daily"
    alice.save()
    page = client.get(reverse("list_index")).content.decode()
    assert "in the daily digest" in page
