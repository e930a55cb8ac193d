"""Time zones: current IANA zones only in the menu, the browser's zone taken once."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.forms import PreferencesForm
from accounts.timezones import canonical_time_zone, current_time_zones
from tests.factories import make_user


def test_the_menu_offers_current_zones_and_no_legacy_aliases():
    zones = current_time_zones()
    assert {"UTC", "Europe/Berlin", "Asia/Kolkata", "America/Argentina/Buenos_Aires"} <= zones
    legacy = {"US/Eastern", "Etc/GMT+5", "EST5EDT", "Asia/Calcutta", "Europe/Kiev", "GB", "UCT"}
    assert not legacy & zones
    assert all("/" in zone for zone in zones - {"UTC"})
    assert not [z for z in zones if z.startswith(("Etc/", "SystemV/", "US/", "Canada/"))]
    assert 300 < len(zones) < 500


def test_aliases_are_read_as_the_zone_they_name():
    assert canonical_time_zone("Asia/Calcutta") == "Asia/Kolkata"
    assert canonical_time_zone("US/Eastern") == "America/New_York"
    assert canonical_time_zone("Etc/UTC") == "UTC"
    assert canonical_time_zone("Mars/Olympus_Mons") is None


@pytest.mark.django_db
def test_the_settings_menu_is_grouped_by_region_and_shows_an_old_alias_as_its_zone():
    alice = make_user("alice@example.com", time_zone="US/Eastern")
    form = PreferencesForm(instance=alice)
    html = str(form["time_zone"])
    assert '<optgroup label="Europe">' in html and ">Berlin</option>" in html
    assert 'value="America/New_York" selected' in html
    assert "US/Eastern" not in html


@pytest.mark.django_db
def test_the_browser_zone_is_taken_once_and_never_over_a_chosen_one(client):
    alice = make_user("alice@example.com")
    client.force_login(alice)
    assert 'data-time-zone-url="/account/time-zone/"' in client.get("/dashboard/").content.decode()

    assert (
        client.post(reverse("account_time_zone"), {"time_zone": "Asia/Calcutta"}).status_code == 204
    )
    alice.refresh_from_db()
    assert (alice.time_zone, alice.time_zone_confirmed) == ("Asia/Kolkata", True)
    assert "data-time-zone-url" not in client.get("/dashboard/").content.decode()

    client.post(reverse("account_time_zone"), {"time_zone": "Europe/Paris"})
    alice.refresh_from_db()
    assert alice.time_zone == "Asia/Kolkata"
    assert client.post(reverse("account_time_zone"), {"time_zone": "Nowhere/X"}).status_code == 400


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("eager_celery")
def test_an_account_made_after_the_report_starts_in_that_zone_and_language(client, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    client.post(reverse("account_time_zone"), {"time_zone": "America/Sao_Paulo"})
    client.post(
        reverse("account_signup"),
        {
            "email": "dana@example.com",
            "password1": "x-Correct-9-horse",
            "password2": "x-Correct-9-horse",
        },
        HTTP_ACCEPT_LANGUAGE="fr",
    )
    from accounts.models import User

    dana = User.objects.get(email="dana@example.com")
    assert (dana.time_zone, dana.time_zone_confirmed, dana.language) == (
        "America/Sao_Paulo",
        True,
        "fr",
    )


@pytest.mark.django_db
def test_digest_fields_are_a_labelled_group_and_weekdays_are_named(client):
    client.force_login(make_user("alice@example.com"))
    page = client.get("/account/settings/").content.decode()
    assert 'data-shown-for="daily weekly"' in page and "<legend>" in page
    assert '<option value="0" selected>Monday</option>' in page
    assert "0 = Monday" not in page
    # Every aria-describedby names an element of the page.
    import re

    ids = set(re.findall(r'id="([^"]+)"', page))
    described = re.findall(r'aria-describedby="([^"]+)"', page)
    assert described and all(name in ids for value in described for name in value.split())
