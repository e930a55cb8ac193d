"""A preview is no free fetch service: each person has a few an hour, and one preview takes
a bounded time as a whole, however slowly the site answers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from crawler import usersites
from tests.crawler.servers import SiteServer
from tests.servers import free_port

pytestmark = pytest.mark.django_db


@pytest.fixture
def local(settings) -> None:
    settings.CRAWLER_USER_SITE_NETWORKS = "127.0.0.1/32"


@pytest.fixture
def trickling(settings, local) -> Iterator[SiteServer]:
    """A site whose pages come one byte at a time, for minutes."""
    with SiteServer() as server:
        server.robots("", status=404)
        server.route("/", server.trickle(interval=0.05, size=100_000))
        yield server


@pytest.mark.slow  # each refused connection is tried again once
def test_previews_are_counted_per_person_and_refused_past_the_hourly_allowance(
    alice, bob, local, settings
):
    settings.CRAWLER_USER_PREVIEWS_PER_HOUR = 2
    closed = f"http://127.0.0.1:{free_port()}/"  # nobody listens: each preview fails fast

    first, second, third = (usersites.preview_site(alice, closed) for _ in range(3))

    assert "could not be reached" in first.error and "could not be reached" in second.error
    assert "2 previews within the hour" in third.error
    assert "could not be reached" in usersites.preview_site(bob, closed).error


def test_a_slow_trickle_cannot_hold_a_preview_past_its_time(alice, trickling, settings):
    settings.CRAWLER_USER_PREVIEW_SECONDS = 0.5

    preview = usersites.preview_site(alice, trickling.url("/"))

    assert preview.error == "The site answered too slowly: a preview may take 0.5 s."
    assert preview.plan is None


def test_a_connection_failure_names_no_address_and_no_port_state(alice, local):
    preview = usersites.preview_site(alice, f"http://localhost:{free_port()}/")

    assert preview.error == "The site could not be reached. Try again later."
