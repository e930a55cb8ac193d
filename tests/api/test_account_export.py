"""The account page's download: my lists, sites and clips as one JSON document."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from tests.factories import make_list, make_match, make_site

pytestmark = pytest.mark.django_db


def test_the_download_holds_my_lists_sites_and_clips_and_nobody_elses(client, alice, bob):
    daily = make_site("Daily", "https://daily.example/")
    energy = make_list(alice, "Energy", "subsidies")
    cars = make_list(alice, "Cars", "car")
    match = make_match(energy, site=daily, title="Solar", url="https://daily.example/solar")
    make_match(cars, match.clip)
    make_match(make_list(bob, "Bob's", "subsidies"), title="Bob's", url="https://b.example/")
    client.force_login(alice)

    page = client.get(reverse("account_settings")).content.decode()
    response = client.get(reverse("account_export"))

    assert reverse("account_export") in page
    assert 'filename="webclip-account.json"' in response["Content-Disposition"]
    document = json.loads(b"".join(response.streaming_content))
    assert document["format"] == "webclip-account" and document["account"]["email"] == alice.email
    assert [item["name"] for item in document["lists"]] == ["Cars", "Energy"]
    assert document["sites"] == [
        {"name": "Daily", "url": "https://daily.example/", "feed": "https://daily.example/"}
    ]
    assert [clip["title"] for clip in document["clips"]] == ["Solar"]
    assert sorted(m["list"] for m in document["clips"][0]["matches"]) == ["Cars", "Energy"]


def test_an_account_without_clips_downloads_valid_json(client, charlie):
    client.force_login(charlie)

    document = json.loads(b"".join(client.get(reverse("account_export")).streaming_content))

    assert document["lists"] == [] and document["clips"] == []
