"""Keyword lists out and back in as JSON and CSV, through the pages' links and upload."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from clipping import exchange
from clipping.models import KeywordList
from tests.factories import make_list

pytestmark = pytest.mark.django_db


@pytest.fixture
def alices_lists(alice):
    """Lists using every setting and term form, names and terms a spreadsheet would mangle."""
    make_list(
        alice,
        'Energy, "green" & more',
        'solar\n"wind farm"\n-coal\nsite:news.example.com\n=SUM(A1)\n@home\n+plus\n\'quoted',
        use_synonyms=False,
        match_all=True,
        mail_enabled=False,
    )
    make_list(
        alice,
        "Cars",
        "car\nstrike",
        synonym_choices={"car": {"car|car.n.01|automobile": False, "car|car.n.02": True}},
    )
    make_list(alice, "Εκλογές", "εκλογές\nβουλή", language="el", active=False)
    return list(KeywordList.objects.owned_by(alice))


def records(user) -> list[exchange.ListRecord]:
    return [exchange.ListRecord.of(item) for item in KeywordList.objects.owned_by(user)]


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_lists_exported_and_imported_by_someone_else_come_back_the_same(
    client, alice, bob, alices_lists, fmt
):
    client.force_login(alice)
    exported = client.get(reverse("lists_export", args=[fmt]))
    assert exported.status_code == 200
    assert f'filename="keyword-lists.{fmt}"' in exported["Content-Disposition"]

    client.force_login(bob)
    upload = SimpleUploadedFile(f"lists.{fmt}", exported.content)
    response = client.post(reverse("lists_import"), {"file": upload}, follow=True)

    assert "3 created, 0 updated, 0 unchanged" in response.content.decode()
    assert records(bob) == records(alice)
    client.force_login(bob)
    assert client.get(reverse("lists_export", args=[fmt])).content == exported.content


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_importing_my_own_export_changes_nothing(client, alice, alices_lists, fmt):
    client.force_login(alice)
    exported = client.get(reverse("lists_export", args=[fmt])).content
    before = list(KeywordList.objects.owned_by(alice).values())

    response = client.post(
        reverse("lists_import"), {"file": SimpleUploadedFile(f"x.{fmt}", exported)}, follow=True
    )

    assert "0 created, 0 updated, 3 unchanged" in response.content.decode()
    assert list(KeywordList.objects.owned_by(alice).values()) == before


def test_the_csv_has_one_row_per_term_and_defuses_formulas(alice, alices_lists):
    rows = list(csv.DictReader(io.StringIO(exchange.lists_csv(alices_lists))))

    assert list(rows[0]) == list(exchange.CSV_COLUMNS)
    assert len(rows) == 8 + 2 + 2
    cars = [row for row in rows if row["list"] == "Cars"]
    assert [row["term"] for row in cars] == ["car", "strike"]
    assert cars[0]["synonyms"] == "yes" and cars[1]["synonym_switches"] == ""
    assert json.loads(cars[0]["synonym_switches"]) == {
        "car|car.n.01|automobile": False,
        "car|car.n.02": True,
    }
    terms = {row["term"] for row in rows}
    assert {"'-coal", "'=SUM(A1)", "'@home", "'+plus", "''quoted"} <= terms
    assert not any(term.startswith(("=", "+", "-", "@")) for term in terms)


def test_an_import_updates_a_list_of_the_same_name_and_reports_what_failed(client, alice):
    make_list(alice, "Energy", "solar")
    document = {
        "lists": [
            {"name": "energy", "language": "en", "terms": ["solar", "wind"]},
            {"name": "Broken", "language": "en", "terms": ['"unclosed']},
            {"name": "Unknown language", "language": "xx", "terms": ["a"]},
        ]
    }
    client.force_login(alice)

    response = client.post(
        reverse("lists_import"),
        {"file": SimpleUploadedFile("lists.json", json.dumps(document).encode())},
        follow=True,
    )

    body = response.content.decode()
    assert "0 created, 1 updated, 0 unchanged" in body
    assert "“Broken” was not imported" in body and "“Unknown language” was not imported" in body
    assert KeywordList.objects.get(owner=alice).terms == "solar\nwind"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe not text", "not UTF-8"),
        (b"{not json", "Not JSON"),
        (b'{"lists": 3}', "lists"),
        (b"name,words\nx,y\n", "header lacks"),
        (b"list,term,synonyms\nA,x,perhaps\n", "not yes or no"),
        (b"list,term,language\nA,x,en\nA,y,fr\n", "other settings"),
    ],
)
def test_a_file_that_cannot_be_read_imports_nothing_and_says_why(client, alice, content, message):
    client.force_login(alice)

    response = client.post(
        reverse("lists_import"), {"file": SimpleUploadedFile("lists", content)}, follow=True
    )

    assert "Nothing was imported" in response.content.decode()
    assert message in response.content.decode()
    assert not KeywordList.objects.filter(owner=alice).exists()


def test_the_lists_page_links_the_downloads_and_the_uploads(client, alice):
    client.force_login(alice)

    body = client.get(reverse("list_index")).content.decode()

    for name in ["lists_export", "lists_export"]:
        assert reverse(name, args=["json"]) in body and reverse(name, args=["csv"]) in body
    assert reverse("sites_export") in body
    assert reverse("lists_import") in body and reverse("sites_import") in body


def test_exports_and_imports_need_a_login(client, db):
    assert client.get(reverse("lists_export", args=["json"])).status_code == 302
    assert client.post(reverse("lists_import")).status_code == 302
    assert client.get(reverse("account_export")).status_code == 302
