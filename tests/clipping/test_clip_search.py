"""Searching "My clips": every word, as a word prefix, in titles and summaries; any input is safe."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import make_list, make_match

pytestmark = pytest.mark.django_db


def titles(client, query: str) -> list[str]:
    response = client.get(reverse("clip_index"), {"q": query})
    assert response.status_code == 200
    return [clip.title for clip in response.context["page"].object_list]


@pytest.fixture
def searchable(client, alice, bob):
    energy = make_list(alice, "Energy", "subsidy")
    make_match(
        energy,
        title="Council backs solar subsidies",
        url="https://news.example.com/1",
        summary="The council gives households solar subsidies. Wind farms wait until 2027.",
    )
    make_match(
        energy,
        title="Harbour ferry strike",
        url="https://news.example.com/2",
        summary="Ferry crews stopped work over subsidies for the new harbour.",
    )
    make_match(make_list(bob, "Bob's", "subsidy"), title="Bob's solar story")
    client.force_login(alice)
    return client


def test_a_word_prefix_finds_the_longer_word_in_any_case(searchable):
    assert titles(searchable, "SUBSID") == ["Harbour ferry strike", "Council backs solar subsidies"]
    assert titles(searchable, "harb") == ["Harbour ferry strike"]


@pytest.mark.postgres
def test_every_word_must_appear_in_the_title_or_the_summary(searchable):
    assert titles(searchable, "solar wind") == ["Council backs solar subsidies"]
    assert titles(searchable, "solar ferry") == []
    assert titles(searchable, "2027") == ["Council backs solar subsidies"]


def test_only_my_clips_are_searched(searchable):
    assert titles(searchable, "bob") == []


@pytest.mark.parametrize(
    "query", ["'; DROP TABLE clipping_clip; --", "solar & | ! ( ) : * <-> ferry", "!!!", "a_b"]
)
def test_operators_and_quotes_are_plain_text(searchable, query):
    assert titles(searchable, query) == []  # no clip has all those words; nothing broke
    assert titles(searchable, "solar") == ["Council backs solar subsidies"]
