"""Every body has a size and a depth: API bodies, list and OPML imports and ESP webhooks
answer a clear 4xx when over them, never a server error."""

from __future__ import annotations

import base64

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from base.bodies import MAX_JSON_DEPTH, json_depth
from clipping.models import KeywordList
from crawler.models import Site

pytestmark = pytest.mark.django_db

WEBHOOK = "/webhooks/anymail/postmark/tracking/"
SECRET = "hook:s3cret-value"


def test_json_depth_counts_arrays_and_objects_not_brackets_in_strings():
    assert json_depth('{"a": [1, {"b": "[[[{{{"}]}') == 3
    assert json_depth("[" * 1500 + "]" * 1500) == 1500
    assert json_depth('"just a string"') == 0


def test_an_api_body_over_the_size_limit_is_413_in_the_apis_shape(alice_api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    response = alice_api.send("POST", "/api/lists", {"name": "x" * 20_000, "terms": ["a"]})

    assert response.status_code == 413
    assert response.json() == {
        "detail": "The request body is larger than 10000 bytes.",
        "errors": {},
    }
    assert not KeywordList.objects.exists()


@pytest.mark.parametrize("path", ["/api/lists", "/api/sites"])
def test_an_api_body_nested_too_deep_is_400(alice_api, path):
    response = alice_api.client.post(
        path,
        '{"name": ' + "[" * 1500 + "]" * 1500 + "}",
        content_type="application/json",
        headers=alice_api._headers(),
    )

    assert response.status_code == 400
    assert "detail" in response.json()


def test_a_list_import_nested_too_deep_says_why(client, alice):
    client.force_login(alice)
    nested = '{"lists": [' + "[" * 1500 + "]" * 1500 + "]}"
    upload = SimpleUploadedFile("lists.json", nested.encode())

    response = client.post(reverse("lists_import"), {"file": upload}, follow=True)

    assert response.status_code == 200
    assert f"nests deeper than {MAX_JSON_DEPTH} levels" in response.content.decode()


def test_a_csv_field_over_the_csv_limit_says_why(client, alice):
    client.force_login(alice)
    text = "list,term\r\nEnergy," + "x" * 200_000 + "\r\n"

    response = client.post(
        reverse("lists_import"),
        {"file": SimpleUploadedFile("lists.csv", text.encode())},
        follow=True,
    )

    assert response.status_code == 200
    assert "Nothing was imported: Line" in response.content.decode()
    assert not KeywordList.objects.exists()


def test_an_opml_file_naming_too_many_feeds_is_refused_before_any_lookup(client, alice):
    client.force_login(alice)
    outlines = "".join(
        f'<outline type="rss" xmlUrl="https://f{n}.example/rss"/>' for n in range(600)
    )
    opml = f'<opml version="2.0"><head/><body>{outlines}</body></opml>'

    response = client.post(
        reverse("sites_import"),
        {"file": SimpleUploadedFile("feeds.opml", opml.encode())},
        follow=True,
    )

    assert response.status_code == 200
    assert "At most 500 feeds per file" in response.content.decode()
    assert not Site.objects.exists()


@pytest.fixture
def webhook_secret(settings):
    settings.ANYMAIL = {**settings.ANYMAIL, "WEBHOOK_SECRET": SECRET}


def post_webhook(body: bytes | str):
    auth = base64.b64encode(SECRET.encode()).decode()
    return Client().post(
        WEBHOOK, body, content_type="application/json", HTTP_AUTHORIZATION=f"Basic {auth}"
    )


@pytest.mark.parametrize(
    "body",
    [
        "[" * 1500 + "]" * 1500,
        "{not json",
        '{"RecordType": "Bounce", "BouncedAt": "yesterday", "Email": 7}',
        '["a list", "not an event"]',
        b"\xff\xfe\x00",
    ],
)
def test_a_malformed_webhook_body_is_a_4xx(webhook_secret, body):
    assert 400 <= post_webhook(body).status_code < 500


def test_a_webhook_body_over_its_limit_is_413(webhook_secret):
    assert post_webhook(b'{"x": "' + b"a" * (1024 * 1024 + 10) + b'"}').status_code == 413
