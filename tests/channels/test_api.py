"""Channels over the API: add one (checked as the account page checks it), test it against a
real endpoint on 127.0.0.1, route lists to it, resume and delete it; secrets never answered."""

from __future__ import annotations

import pytest

from clipping.models import Channel, ListChannel
from tests.api.clients import ApiClient, token_for
from tests.factories import make_list

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_api(client, alice):
    return ApiClient(client, token_for(alice))


def test_a_script_adds_tests_routes_and_deletes_a_channel(alice_api, alice, bob, notify_server):
    energy, cars = make_list(alice, "Energy", "solar"), make_list(alice, "Cars", "car")
    secret = f"json://bot:Tok3n-9f@127.0.0.1:{notify_server.port}/hook"

    created = alice_api.send("POST", "/api/channels", {"name": "Desk", "url": secret})

    assert created.status_code == 201
    channel = created.json()
    assert created.headers["Location"].endswith(f"/api/channels/{channel['id']}")
    assert "Tok3n-9f" not in created.content.decode()
    assert channel["url"].startswith("json://bot:****@127.0.0.1") and channel["routes"] == []

    tested = alice_api.send("POST", f"/api/channels/{channel['id']}/test").json()
    assert tested["sent"] is True and tested["error"] == ""
    assert [m.payload["title"] for m in notify_server.messages] == ["Webclip test message"]

    routes = {"routes": {str(energy.pk): "digest", str(cars.pk): "instant"}}
    routed = alice_api.send("PUT", f"/api/channels/{channel['id']}/routes", routes).json()
    assert routed["routes"] == [
        {"list_id": energy.pk, "mode": "digest"},
        {"list_id": cars.pk, "mode": "instant"},
    ]
    off = {"routes": {str(energy.pk): "off"}}
    alice_api.send("PUT", f"/api/channels/{channel['id']}/routes", off)
    assert list(ListChannel.objects.values_list("keyword_list", "mode")) == [(cars.pk, "instant")]

    assert alice_api.send("DELETE", f"/api/channels/{channel['id']}").status_code == 204
    assert not Channel.objects.exists()


def test_a_channel_is_refused_as_the_account_page_refuses_it(alice_api, alice, settings):
    settings.CLIPPING_CHANNEL_NETWORKS = ""  # no private target allowed
    make_list(alice, "Energy", "solar")

    private = alice_api.send("POST", "/api/channels", {"name": "Lan", "url": "json://10.0.0.5/x"})
    unknown = alice_api.send("POST", "/api/channels", {"name": "Odd", "url": "nosuch://x"})

    for response in (private, unknown):
        assert response.status_code == 422
        assert set(response.json()) == {"detail", "errors"} and "url" in response.json()["errors"]
    assert not Channel.objects.exists()


def test_routes_name_only_my_own_lists(alice_api, alice, bob, notify_server):
    url = f"json://127.0.0.1:{notify_server.port}/hook"
    channel = alice_api.send("POST", "/api/channels", {"name": "Desk", "url": url}).json()
    bobs = make_list(bob, "Bob's", "solar")

    response = alice_api.send(
        "PUT", f"/api/channels/{channel['id']}/routes", {"routes": {str(bobs.pk): "instant"}}
    )

    assert response.status_code == 422 and response.json()["errors"] == {"routes": [str(bobs.pk)]}
    assert not ListChannel.objects.exists()


def test_a_failed_test_says_why_and_resume_clears_the_pause(alice_api, alice, notify_server):
    url = f"json://127.0.0.1:{notify_server.port}/hook"
    channel = alice_api.send("POST", "/api/channels", {"name": "Desk", "url": url}).json()
    notify_server.endpoint.failing.extend([500] * 5)

    tested = alice_api.send("POST", f"/api/channels/{channel['id']}/test").json()

    assert tested["sent"] is False and tested["error"]
    Channel.objects.filter(pk=channel["id"]).update(failures=3, paused_reason="Failing")
    resumed = alice_api.send("POST", f"/api/channels/{channel['id']}/resume").json()
    assert resumed["failures"] == 0 and resumed["paused"] is False
