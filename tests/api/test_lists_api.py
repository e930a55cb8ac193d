"""Keyword lists over the API: create, read, change, delete, and synonyms per term."""

from __future__ import annotations

import pytest

from clipping.models import KeywordList
from tests.factories import make_list

pytestmark = pytest.mark.django_db


def test_a_list_is_created_read_changed_and_deleted(
    alice_api, alice, django_capture_on_commit_callbacks
):
    body = {"name": "Energy", "terms": ["solar", '"wind farm"', "-coal"], "language": "en"}

    with django_capture_on_commit_callbacks(execute=False) as queued:
        created = alice_api.send("POST", "/api/lists", body)

    assert created.status_code == 201
    data = created.json()
    assert data["terms"] == ["solar", '"wind farm"', "-coal"]
    assert data["use_synonyms"] and data["active"] and not data["match_all"]
    assert "/feed/list/" in data["feed_url"]
    assert len(queued) == 1  # the backfill of a new list, queued after commit
    keyword_list = KeywordList.objects.get(owner=alice)
    assert keyword_list.terms == 'solar\n"wind farm"\n-coal'

    url = f"/api/lists/{data['id']}"
    assert alice_api.get(url).json() == data
    patched = alice_api.send("PATCH", url, {"match_all": True, "name": "Power"}).json()
    assert patched["match_all"] and patched["name"] == "Power"
    assert patched["terms"] == data["terms"]
    replaced = alice_api.send("PUT", url, {"name": "Power", "terms": ["tidal"]}).json()
    assert replaced["terms"] == ["tidal"] and not replaced["match_all"]

    assert alice_api.send("DELETE", url).status_code == 204
    assert not KeywordList.objects.filter(owner=alice).exists()
    assert alice_api.get(url).status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "Bad", "terms": ["solar"], "language": "xx"}, "language"),
        ({"name": "Bad", "terms": ['"unclosed']}, "terms"),
        ({"name": "Bad", "terms": []}, "terms"),
        ({"name": "energy", "terms": ["solar"]}, "name"),  # Alice has "Energy" already
    ],
)
def test_an_invalid_list_gets_422_naming_the_field(alice_api, alice, body, field):
    make_list(alice, "Energy", "wind")

    response = alice_api.send("POST", "/api/lists", body)

    assert response.status_code == 422
    assert field in response.json()["errors"]
    assert KeywordList.objects.filter(owner=alice).count() == 1


def test_a_body_of_the_wrong_shape_gets_422(alice_api):
    response = alice_api.send("POST", "/api/lists", {"name": "No terms"})

    assert response.status_code == 422


def test_the_terms_show_their_senses_and_synonym_switches(alice_api, alice):
    cars = make_list(alice, "Cars", "car\n-truck\nsite:example.com")

    terms = alice_api.get(f"/api/lists/{cars.pk}/terms").json()

    assert [term["text"] for term in terms] == ["car", "-truck"]
    car, truck = terms
    assert car["synonyms"] is True
    sense = next(s for s in car["senses"] if s["key"] == "car|car.n.01")
    assert sense["on"] and sense["default"]
    assert {"name": "automobile", "key": "car|car.n.01|automobile", "on": True} in sense["synonyms"]
    assert truck["synonyms"] is False and truck["senses"] == [] and "exclusion" in truck["note"]


def test_a_terms_synonyms_are_turned_off_and_back_on(alice_api, alice):
    cars = make_list(alice, "Cars", "car\nstrike")
    url = f"/api/lists/{cars.pk}/synonyms"

    off = alice_api.send("PUT", url, {"term": "car", "synonyms": False})

    assert off.status_code == 200 and off.json()["synonyms"] is False
    cars.refresh_from_db()
    assert set(cars.synonym_choices) == {"car"}
    assert all(on is False for on in cars.synonym_choices["car"].values())
    strike = next(
        t for t in alice_api.get(f"/api/lists/{cars.pk}/terms").json() if t["text"] == "strike"
    )
    assert strike["synonyms"] is True  # the other term keeps its own

    on = alice_api.send("PUT", url, {"term": "car", "synonyms": True})

    assert on.json()["synonyms"] is True
    cars.refresh_from_db()
    assert cars.synonym_choices == {}


def test_single_synonyms_are_switched_like_on_the_list_page(alice_api, alice):
    cars = make_list(alice, "Cars", "car")
    url = f"/api/lists/{cars.pk}/synonyms"

    response = alice_api.send(
        "PUT", url, {"term": "car", "switches": {"car|car.n.01|automobile": False}}
    )

    assert response.status_code == 200
    cars.refresh_from_db()
    assert cars.synonym_choices == {"car": {"car|car.n.01|automobile": False}}


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"term": "bus", "synonyms": False}, 404),
        ({"term": "car", "switches": {"car|nonsense.n.09": True}}, 422),
        ({"term": "-truck", "synonyms": False}, 422),
    ],
)
def test_switching_an_unknown_term_or_key_is_refused(alice_api, alice, body, status):
    cars = make_list(alice, "Cars", "car\n-truck")

    response = alice_api.send("PUT", f"/api/lists/{cars.pk}/synonyms", body)

    assert response.status_code == status
    cars.refresh_from_db()
    assert cars.synonym_choices == {}


def test_a_list_with_synonyms_off_has_none_to_switch(alice_api, alice):
    cars = make_list(alice, "Cars", "car", use_synonyms=False)

    terms = alice_api.get(f"/api/lists/{cars.pk}/terms").json()
    response = alice_api.send(
        "PUT", f"/api/lists/{cars.pk}/synonyms", {"term": "car", "synonyms": True}
    )

    assert terms[0]["synonyms"] is False and "off for this list" in terms[0]["note"]
    assert response.status_code == 422
