"""Language names in the page's language and counts with their plural forms."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import make_list, make_user

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "name", "english"),
    [("de", "Englisch", "auf English"), ("fr", "Anglais", "en English")],
)
def test_a_lists_language_is_named_in_the_page_language(client, language, name, english):
    alice = make_user("alice@example.com", language=language)
    energy = make_list(alice, "Energie", "subsidy", language="en")
    client.force_login(alice)

    detail = client.get(reverse("list_detail", args=[energy.pk])).content.decode()
    index = client.get(reverse("list_index")).content.decode()
    form = client.get(reverse("list_edit", args=[energy.pk])).content.decode()

    for page in (detail, index, form):
        assert name in page
    assert english not in detail and "<td>English</td>" not in index


def test_one_site_allowed_is_said_in_the_singular(client, settings):
    settings.CRAWLER_USER_SITES_MAX = 1
    alice = make_user("alice@example.com")
    client.force_login(alice)

    page = client.get(reverse("site_index")).content.decode()

    assert "You follow 0 of at most 1 site." in page
    assert "1 sites" not in page
