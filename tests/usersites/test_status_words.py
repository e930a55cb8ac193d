"""A site's status in true words: watches counted, misses apart from errors, plurals, no
library text in any error a person reads."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from crawler.fetch import ErrorKind, FetchError, FetchResult
from crawler.fetch.words import error_words, stored_error_words
from crawler.models import CrawlRun, Page, Site
from crawler.run import step
from crawler.usersites.preview import refusal_words
from crawler.usersites.status import describe
from tests.factories import make_run

pytestmark = pytest.mark.django_db

DNS_FAILURE = (
    "ClientConnectorDNSError: Cannot connect to host news.nowhere.invalid:443 ssl:default "
    "[Name or service not known]"
)


@pytest.fixture
def gazette(alice):
    site = Site.objects.create(
        name="Gazette", root_url="https://gazette.example.org/", added_by=alice
    )
    site.subscribers.add(alice)
    return site


def test_pages_a_watch_fetched_after_the_run_are_counted(client, alice, gazette):
    run = make_run(gazette, hours_ago=1, fetched=0)
    after = run.finished_at + timedelta(minutes=20)
    Page.objects.create(
        site=gazette,
        url="https://gazette.example.org/feed.xml",
        first_seen_at=run.started_at,
        last_fetched_at=after,
    )
    Page.objects.create(
        site=gazette,
        url="https://gazette.example.org/news/rail-strike",
        first_seen_at=after,
        last_fetched_at=after,
    )
    Page.objects.create(site=gazette, url="https://gazette.example.org/old", first_seen_at=after)
    client.force_login(alice)

    page = client.get(reverse("site_index")).content.decode()

    assert "Last crawled 1\xa0hour ago: 0 pages fetched, 0 new, 0 changed, 0 errors." in page
    assert "Since then, watching its news: 2 pages fetched, 1 new." in page


def test_one_error_is_singular_and_missing_pages_are_not_errors(gazette):
    run = make_run(gazette, hours_ago=1, fetched=5, new=4, errors=1, misses=1)

    words = describe(gazette, run, timezone.now())

    assert "5 pages fetched, 4 new, 0 changed, 1 page not found (no harm), 1 error." in words
    assert "errors" not in words


def test_a_missing_page_counts_as_a_miss_and_a_server_error_as_an_error(gazette):
    page = Page.objects.create(site=gazette, url="https://gazette.example.org/sitemap.xml")
    counts = {}
    for status in (404, 500):
        result = FetchResult(url=page.url, final_url=page.url, status=status)
        error = FetchError(ErrorKind.HTTP, f"HTTP {status}")
        counts[status] = step._failed(page, result, error, now=timezone.now()).counts
    assert counts == {404: {"fetched": 1, "misses": 1}, 500: {"fetched": 1, "errors": 1}}


def test_a_failed_run_says_why_in_words_not_library_text(gazette):
    run = make_run(gazette, hours_ago=1)
    CrawlRun.objects.filter(id=run.id).update(
        status=CrawlRun.Status.FAILED, error=f"connection: {DNS_FAILURE}"
    )
    run.refresh_from_db()
    words = describe(gazette, run, timezone.now())
    assert "The site's name could not be found (DNS)." in words
    assert "ClientConnector" not in words and "Cannot connect" not in words
    CrawlRun.objects.filter(id=run.id).update(error="Traceback: KeyError('x')")
    run.refresh_from_db()
    assert "KeyError" not in describe(gazette, run, timezone.now())


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (
            FetchError(ErrorKind.CONNECTION, DNS_FAILURE),
            "The site's name could not be found (DNS).",
        ),
        (
            FetchError(ErrorKind.CONNECTION, "ClientConnectorError: Connect call failed"),
            "The site could not be reached. Try again later.",
        ),
        (FetchError(ErrorKind.HTTP, "HTTP 404"), "The page does not exist (HTTP 404)."),
        (
            FetchError(ErrorKind.HTTP, "HTTP 503"),
            "The site had an error (HTTP 503). Try again later.",
        ),
        (
            FetchError(ErrorKind.DECODING, "zlib.error: Error -3 while decompressing data"),
            "The page's compression could not be read.",
        ),
        (
            FetchError(ErrorKind.URL, "invalid URL: ValueError('bad port')"),
            "This address cannot be fetched: it is not a valid web address.",
        ),
    ],
)
def test_every_error_is_said_by_one_mapping_without_library_text(error, words):
    assert error_words(error) == words
    assert refusal_words(error) == words  # the preview's words are the same mapping
    assert stored_error_words(str(error)) == words  # and so are a page's stored errors
