"""URL canonicalisation and trap checks."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from crawler.canonical import BadURL, canonicalize, excluded, is_trap, same_site

NEXT_YEAR = datetime.now(UTC).year + 1


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("HTTP://WWW.Example.COM/", "http://www.example.com/"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443", "https://example.com/"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("http://example.com/a#section-2", "http://example.com/a"),
        ("http://example.com/?b=2&a=1&c=", "http://example.com/?a=1&b=2&c="),
        ("http://example.com/a/./b/../c", "http://example.com/a/c"),
        ("http://example.com/%7euser", "http://example.com/~user"),
        ("http://example.com./a", "http://example.com/a"),
        ("http://user:secret@example.com/a", "http://example.com/a"),
        ("http://bücher.de/", "http://xn--bcher-kva.de/"),
        ("  http://example.com/a  ", "http://example.com/a"),
        ("http://[::1]:8000/x", "http://[::1]:8000/x"),
    ],
)
def test_canonicalize_gives_one_spelling(url, canonical):
    assert canonicalize(url) == canonical


@pytest.mark.parametrize(
    "query",
    [
        "utm_source=news&utm_medium=email&utm_campaign=x",
        "fbclid=IwAR0abc",
        "gclid=abc",
        "mc_cid=1&mc_eid=2",
        "msclkid=1&_ga=2",
        "PHPSESSID=abc",
        "jsessionid=abc",
    ],
)
def test_canonicalize_drops_tracking_and_session_parameters(query):
    assert canonicalize(f"http://example.com/a?id=7&{query}") == "http://example.com/a?id=7"


def test_canonicalize_keeps_parameters_that_name_content():
    url = "http://example.com/search?q=utm&page=2&source_id=4&id=9"

    assert canonicalize(url) == "http://example.com/search?id=9&page=2&q=utm&source_id=4"


def test_canonicalize_drops_path_session_ids():
    assert canonicalize("http://e.com/a;jsessionid=0A1B?x=1") == "http://e.com/a?x=1"
    assert canonicalize("http://e.com/(S(lit3py55t21z5v55))/p.aspx") == "http://e.com/p.aspx"


def test_canonicalize_is_idempotent():
    url = "HTTP://Ex.com:80/b/../a?z=1&utm_source=x&a=%7e#f"

    once = canonicalize(url)

    assert canonicalize(once) == once


@pytest.mark.parametrize(
    "url", ["mailto:a@b.c", "ftp://example.com/", "http:///path", "http://e.com:x/"]
)
def test_canonicalize_refuses_what_is_not_a_crawlable_url(url):
    with pytest.raises(BadURL):
        canonicalize(url)


@pytest.mark.parametrize(
    ("url", "depth", "reason"),
    [
        ("http://e.com/a", 9, "depth"),
        ("http://e.com/" + "x" * 2084, 0, "too_long"),
        ("http://e.com/a/a/a", 0, "repeated_segments"),
        ("http://e.com/x/y/x/y/x/y", 0, "repeated_segments"),
        ("http://e.com/" + "/".join(f"s{n}" for n in range(31)), 0, "path_depth"),
        ("http://e.com/p?sid=abc", 0, "session_id"),
        ("http://e.com/p;jsessionid=abc", 0, "session_id"),
        ("http://e.com/(S(abc))/p.aspx", 0, "session_id"),
        (f"http://e.com/calendar/{NEXT_YEAR + 5}/01/", 0, "calendar"),
        (f"http://e.com/calendar?year={NEXT_YEAR + 5}&month=3", 0, "calendar"),
        ("http://e.com/events?date=1970-01-01", 0, "calendar"),
    ],
)
def test_is_trap_names_the_trap(url, depth, reason):
    assert is_trap(url, depth, max_depth=8) == reason


@pytest.mark.parametrize(
    "url",
    [
        "http://e.com/news/2024/05/17/story",
        f"http://e.com/calendar?year={NEXT_YEAR}",
        "http://e.com/a/b/a/b",
        "http://e.com/" + "x" * 2060,
        "http://e.com/search?q=session",
    ],
)
def test_is_trap_lets_ordinary_urls_through(url):
    assert is_trap(url, depth=8, max_depth=8) is None


@pytest.mark.parametrize(
    ("url", "hosts", "expected"),
    [
        ("http://example.com/a", ["example.com"], True),
        ("http://EXAMPLE.com./a", ["example.com"], True),
        ("http://www.example.com/a", ["example.com"], False),
        ("http://www.example.com/a", ["*.example.com"], True),
        ("http://example.com/a", [".example.com"], True),
        ("http://badexample.com/a", ["*.example.com"], False),
        ("http://127.0.0.1:8100/", ["127.0.0.1:8100"], True),
        ("http://127.0.0.1:8101/", ["127.0.0.1:8100"], False),
        ("http://127.0.0.1:8101/", ["127.0.0.1"], True),
        ("https://example.com/", ["example.com:443"], True),
        ("http://[::1]:8000/", ["[::1]:8000"], True),
        ("http://example.com.evil.test/", ["example.com"], False),
        ("mailto:a@example.com", ["example.com"], False),
    ],
)
def test_same_site_matches_hosts_ports_and_subdomain_wildcards(url, hosts, expected):
    assert same_site(url, hosts) is expected


def test_excluded_takes_regular_expressions_and_globs():
    patterns = [r"/private/", "glob:*.pdf", r"\?print=1$"]

    assert excluded("http://e.com/private/x", patterns) == r"/private/"
    assert excluded("http://e.com/files/report.pdf", patterns) == "glob:*.pdf"
    assert excluded("http://e.com/a?print=1", patterns) == r"\?print=1$"
    assert excluded("http://e.com/public/report.html", patterns) is None
