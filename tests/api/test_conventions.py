"""One API: one error shape everywhere, one paging style with a total and `Link` headers on
every list, `Location` on every 201, clip search, and the schema saying all of it."""

from __future__ import annotations

import re

import pytest

from clipping.models import Channel, Delivery
from tests.api.clients import ApiClient, token_for
from tests.factories import make_list, make_match, make_site

pytestmark = pytest.mark.django_db


def links(response) -> dict[str, str]:
    """The `Link` header as rel -> URL."""
    found = re.findall(r'<([^>]+)>; rel="(\w+)"', response.headers.get("Link", ""))
    return {rel: url for url, rel in found}


def assert_error_shape(response, status: int) -> dict:
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"detail", "errors"}
    assert isinstance(body["detail"], str) and body["detail"]
    assert isinstance(body["errors"], dict)
    assert all(
        isinstance(v, list) and all(isinstance(m, str) for m in v) for v in body["errors"].values()
    )
    return body


def test_form_pydantic_missing_token_and_unknown_answers_share_one_shape(
    alice_api, anonymous_api, alice, settings
):
    settings.DEBUG = True  # even so, a 404 names no model
    form = assert_error_shape(alice_api.send("POST", "/api/lists", {"name": "x", "terms": []}), 422)
    assert "terms" in form["errors"]

    typed = alice_api.send("POST", "/api/lists", {"name": "x", "terms": "not a list"})
    assert "terms" in assert_error_shape(typed, 422)["errors"]

    missing = alice_api.send("POST", "/api/lists", {"terms": ["solar"]})
    assert "name" in assert_error_shape(missing, 422)["errors"]

    paging = alice_api.get("/api/lists", {"limit": 0})
    assert "limit" in assert_error_shape(paging, 422)["errors"]

    gone = assert_error_shape(alice_api.get("/api/lists/999999"), 404)
    assert gone == {"detail": "Not found.", "errors": {}}
    assert "KeywordList" not in alice_api.get("/api/clips/999999").content.decode()

    assert_error_shape(alice_api.get("/api/no-such-thing"), 404)
    assert_error_shape(anonymous_api.get("/api/lists"), 401)


def test_a_rate_limited_answer_has_the_same_shape(alice_api, settings):
    settings.WEBCLIP_API_RATE_LIMIT = 1
    settings.WEBCLIP_API_RATE_WINDOW = 3600
    alice_api.get("/api/lists")

    assert_error_shape(alice_api.get("/api/lists"), 429)


def test_a_list_endpoint_pages_with_a_total_and_link_headers(alice_api, alice):
    for name in "abcde":
        make_list(alice, f"List {name}", "solar")

    middle = alice_api.get("/api/lists", {"limit": 2, "offset": 2})

    body = middle.json()
    assert [item["name"] for item in body["items"]] == ["List c", "List d"]
    assert (body["count"], body["limit"], body["offset"], body["next_offset"]) == (5, 2, 2, 4)
    rels = links(middle)
    assert set(rels) == {"first", "prev", "next", "last"}
    assert rels["next"].startswith("http://testserver/api/lists?")
    assert "offset=4" in rels["next"] and "offset=0" in rels["prev"] and "offset=4" in rels["last"]
    last = alice_api.get(rels["last"].removeprefix("http://testserver"))
    assert [item["name"] for item in last.json()["items"]] == ["List e"]
    assert last.json()["next_offset"] is None and "next" not in links(last)


def test_every_list_endpoint_has_the_same_paging_and_keeps_its_filters(alice_api, alice):
    energy = make_list(alice, "Energy", "subsidies")
    site = make_site("Daily", "https://daily.example/")
    for number in range(3):
        make_match(
            energy, site=site, title=f"Solar {number}", url=f"https://daily.example/{number}"
        )
    site.subscribers.add(alice)
    Delivery.objects.create(user=alice, address="alice@example.com")
    Channel.objects.create(owner=alice, name="Desk", shown_url="json://desk.example/")

    for path, params in [
        ("/api/lists", {}),
        ("/api/clips", {"list": energy.pk}),
        ("/api/clips/search", {"q": "solar"}),
        ("/api/deliveries", {}),
        ("/api/sites", {"scope": "mine"}),
        ("/api/channels", {}),
    ]:
        response = alice_api.get(path, {**params, "limit": 1})
        body = response.json()
        assert response.status_code == 200, path
        assert set(body) == {"items", "count", "limit", "offset", "next_offset"}, path
        assert len(body["items"]) == 1 and body["count"] >= 1, path
        for key, value in params.items():
            assert f"{key}={value}" in links(response)["first"], path


def test_clip_search_finds_my_clips_by_words_and_needs_a_query(alice_api, alice, bob):
    energy = make_list(alice, "Energy", "subsidies")
    text = "Households get subsidies."
    make_match(energy, title="Solar subsidies grow", url="https://n.example/a", summary=text)
    make_match(energy, title="Wind farms expand", url="https://n.example/b", summary=text)
    bobs = make_list(bob, "Bob's", "subsidies")
    make_match(bobs, title="Solar for Bob", url="https://b.example/", summary=text)

    found = alice_api.get("/api/clips/search", {"q": "solar"}).json()

    assert [item["title"] for item in found["items"]] == ["Solar subsidies grow"]
    assert found["count"] == 1
    assert "q" in assert_error_shape(alice_api.get("/api/clips/search"), 422)["errors"]


def test_every_201_names_the_new_object_in_location(alice_api):
    created = alice_api.send("POST", "/api/lists", {"name": "Energy", "terms": ["solar"]})

    assert created.status_code == 201
    location = created.headers["Location"]
    assert location == f"http://testserver/api/lists/{created.json()['id']}"
    assert alice_api.get(location.removeprefix("http://testserver")).json() == created.json()


def test_the_schema_documents_the_error_shape_on_every_operation(client, db):
    schema = client.get("/api/openapi.json").json()

    error = schema["components"]["schemas"]["ErrorOut"]
    assert set(error["properties"]) == {"detail", "errors"}
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            for status in ("401", "404", "422", "429"):
                answer = operation["responses"][status]["content"]["application/json"]["schema"]
                assert answer == {"$ref": "#/components/schemas/ErrorOut"}, (method, path, status)
    for name in ("ListPage", "ClipPage", "DeliveryPage", "SitePage", "ChannelPage"):
        assert "count" in schema["components"]["schemas"][name]["required"]


def test_someone_elses_token_sees_none_of_my_channels(client, alice, bob):
    Channel.objects.create(owner=alice, name="Desk", shown_url="json://desk.example/")
    bob_api = ApiClient(client, token_for(bob))

    assert bob_api.get("/api/channels").json()["count"] == 0
    desk = Channel.objects.get(owner=alice)
    assert_error_shape(bob_api.get(f"/api/channels/{desk.pk}"), 404)
    assert_error_shape(bob_api.send("DELETE", f"/api/channels/{desk.pk}"), 404)
    assert Channel.objects.filter(pk=desk.pk).exists()
