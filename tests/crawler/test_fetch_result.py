"""One result type for fetched and rendered pages, with a typed error stored as text once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from crawler.fetch import ErrorKind, FetchError, FetchResult, failure
from crawler.models import Page, Site
from crawler.store.pages import error_text, record_failure, record_skip


def test_an_error_kind_given_by_its_word_is_typed_and_an_unknown_word_refused():
    error = FetchError("timeout", "server silent for 5 s")
    assert error.kind is ErrorKind.TIMEOUT
    assert str(error) == "timeout: server silent for 5 s"
    with pytest.raises(ValueError):
        FetchError("slow", "no such kind")


def test_errors_match_by_kind_as_the_crawl_step_reads_them():
    def verdict(result: FetchResult) -> str:
        match result.error:
            case FetchError(kind=ErrorKind.BACKOFF):
                return "deferred"
            case FetchError(kind=ErrorKind.ROBOTS | ErrorKind.SSRF | ErrorKind.URL):
                return "skipped"
            case FetchError():
                return "failed"
            case None:
                return "answered"

    url = "http://example.test/"
    assert verdict(failure(url, FetchError(ErrorKind.BACKOFF, "wait", retry_after=60))) == (
        "deferred"
    )
    assert verdict(failure(url, FetchError(ErrorKind.SSRF, "loopback"))) == "skipped"
    assert verdict(failure(url, FetchError(ErrorKind.HTTP, "HTTP 500"), status=500)) == "failed"
    assert verdict(FetchResult(url, url, status=200, body=b"<p>x</p>")) == "answered"


def test_a_result_tells_a_body_from_a_not_modified_answer_and_a_redirect():
    url = "http://example.test/a"
    answered = FetchResult(url, "http://example.test/b", status=200, body=b"<p>x</p>")
    unchanged = FetchResult(url, url, status=304)
    assert answered.succeeded and answered.redirected and not answered.not_modified
    assert unchanged.ok and unchanged.not_modified and not unchanged.succeeded
    assert not unchanged.redirected


@pytest.mark.django_db
def test_a_typed_error_is_stored_as_kind_and_message_cut_to_the_column():
    site = Site.objects.create(
        name="Example",
        root_url="http://example.test/",
        min_page_revisit=timedelta(minutes=10),
        max_page_revisit=timedelta(days=7),
    )
    page = Page.objects.create(site=site, url="http://example.test/p")
    long = FetchError(ErrorKind.CONNECTION, "reset " * 100, retry_after=3600)
    record_failure(page, long, status=None)
    page.refresh_from_db()
    assert page.error == error_text(long) == f"connection: {'reset ' * 100}"[:300]
    # The host's Retry-After outlasts the usual first backoff.
    assert page.next_visit_at >= timezone.now() + timedelta(minutes=59)
    record_skip(page, FetchError(ErrorKind.ROBOTS, "disallowed by robots.txt"))
    page.refresh_from_db()
    assert page.error == "robots: disallowed by robots.txt"
