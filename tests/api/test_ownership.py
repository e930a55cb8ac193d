"""Every endpoint: no token gets 401; someone else's object gets 404 and stays as it was."""

from __future__ import annotations

import pytest

from clipping.models import Delivery, KeywordList, Match
from tests.factories import make_list, make_match, make_site

pytestmark = pytest.mark.django_db


@pytest.fixture
def alices(alice):
    """Alice's list, clip (matched, unread) and delivery; their ids by name."""
    energy = make_list(alice, "Energy", "car\nsubsidies")
    match = make_match(energy, site=make_site())
    delivery = Delivery.objects.create(
        user=alice, kind=Delivery.Kind.INSTANT, match=match, address=alice.email
    )
    return {"list": energy.pk, "clip": match.clip_id, "delivery": delivery.pk}


LIST_BODY = {"name": "Mine now", "terms": ["x"], "language": "en"}
# (method, path, body): every endpoint that names one object.
OBJECT_ENDPOINTS = [
    ("GET", "/api/lists/{list}", None),
    ("PUT", "/api/lists/{list}", LIST_BODY),
    ("PATCH", "/api/lists/{list}", {"name": "Mine now"}),
    ("DELETE", "/api/lists/{list}", None),
    ("GET", "/api/lists/{list}/terms", None),
    ("PUT", "/api/lists/{list}/synonyms", {"term": "car", "synonyms": False}),
    ("GET", "/api/clips/{clip}", None),
    ("POST", "/api/clips/{clip}/read", None),
    ("POST", "/api/clips/{clip}/unread", None),
    ("GET", "/api/clips?list={list}", None),
    ("GET", "/api/deliveries/{delivery}", None),
]
INDEX_ENDPOINTS = [
    ("GET", "/api/lists", None),
    ("POST", "/api/lists", LIST_BODY),
    ("GET", "/api/clips", None),
    ("GET", "/api/deliveries", None),
    ("GET", "/api/sites", None),
    ("GET", "/api/sites/1", None),
    ("POST", "/api/sites", {"url": "https://news.example.com/"}),
    ("DELETE", "/api/sites/1", None),
]


@pytest.mark.parametrize(("method", "path", "body"), OBJECT_ENDPOINTS)
def test_someone_elses_object_gets_404_and_is_left_alone(bob_api, alices, method, path, body):
    before = _state(alices)

    response = bob_api.send(method, path.format(**alices), body)

    assert response.status_code == 404
    assert _state(alices) == before


@pytest.mark.parametrize(("method", "path", "body"), OBJECT_ENDPOINTS + INDEX_ENDPOINTS)
def test_no_token_gets_401_and_changes_nothing(anonymous_api, alices, method, path, body):
    before = _state(alices)

    response = anonymous_api.send(method, path.format(**alices), body)

    assert response.status_code == 401
    assert _state(alices) == before


@pytest.mark.parametrize(("method", "path", "body"), OBJECT_ENDPOINTS)
def test_the_owner_reaches_every_object_endpoint(alice_api, alices, method, path, body):
    response = alice_api.send(method, path.format(**alices), body)

    assert response.status_code in {200, 204}


def test_indexes_show_only_my_own(bob_api, alices, bob):
    make_list(bob, "Bob's", "solar")

    assert [item["name"] for item in bob_api.get("/api/lists").json()["items"]] == ["Bob's"]
    assert bob_api.get("/api/clips").json()["items"] == []
    assert bob_api.get("/api/deliveries").json()["items"] == []


def _state(ids: dict[str, int]) -> tuple:
    keyword_list = KeywordList.objects.filter(pk=ids["list"]).values().first()
    reads = list(Match.objects.filter(clip_id=ids["clip"]).values_list("read_at", flat=True))
    return keyword_list, reads, Delivery.objects.filter(pk=ids["delivery"]).exists()
