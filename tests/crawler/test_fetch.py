"""The fetcher against real local servers: answers, redirects, conditional GET, types."""

from __future__ import annotations

import asyncio
import gzip
import zlib

import brotli
import pytest

from crawler.fetch import Fetcher, FetchPolicy, SiteRules, fetch_url, policy_from_settings
from tests.crawler.servers import LOCAL, Response, SiteServer, fetch_once

PAGE = "<html><head><title>Hi</title></head><body><p>Hello</p></body></html>"


@pytest.fixture
def site():
    with SiteServer() as server:
        yield server


def test_it_fetches_a_page_with_our_user_agent_and_reports_its_headers(site):
    site.html("/", PAGE, ETag='"v1"', **{"Last-Modified": "Wed, 01 May 2024 10:00:00 GMT"})

    result = fetch_once(site.url("/"))

    assert result.error is None
    assert result.ok and result.status == 200
    assert result.body == PAGE.encode()
    assert result.kind == "html"
    assert result.etag == '"v1"'
    assert result.last_modified == "Wed, 01 May 2024 10:00:00 GMT"
    assert result.final_url == site.url("/")
    page_request = next(r for r in site.requests if r.path == "/")
    assert page_request.headers["user-agent"].startswith("WebclipBot/")
    assert "+http" in page_request.headers["user-agent"]  # a contact URL


def test_it_reads_the_charset_from_the_content_type(site):
    site.route("/", Response(PAGE, headers={"Content-Type": "text/html; charset=ISO-8859-7"}))

    result = fetch_once(site.url("/"))

    assert (result.content_type, result.charset) == ("text/html", "ISO-8859-7")


def test_a_conditional_get_answered_304_is_not_modified_and_sends_both_validators(site):
    site.route("/", Response(b"", status=304, headers={"ETag": '"v1"'}))

    result = _fetch_conditional(site.url("/"), '"v1"', "Wed, 01 May 2024 10:00:00 GMT")

    assert result.error is None
    assert result.not_modified and result.status == 304
    assert result.body == b""
    page_request = next(r for r in site.requests if r.path == "/")
    assert page_request.headers["if-none-match"] == '"v1"'
    assert page_request.headers["if-modified-since"] == "Wed, 01 May 2024 10:00:00 GMT"


def test_a_changed_page_answers_200_to_the_conditional_get(site):
    site.html("/", PAGE, ETag='"v2"')

    result = _fetch_conditional(site.url("/"), '"v1"', None)

    assert not result.not_modified
    assert result.status == 200 and result.etag == '"v2"'


def _fetch_conditional(url, etag, last_modified):
    async def run():
        async with Fetcher() as fetcher:
            return await fetcher.fetch(url, LOCAL, etag=etag, last_modified=last_modified)

    return asyncio.run(run())


@pytest.mark.parametrize(
    ("content_type", "body", "kind"),
    [
        ("application/xhtml+xml", "<?xml version='1.0'?><html><body/></html>", "html"),
        ("application/rss+xml", "<rss><channel/></rss>", "feed"),
        ("application/atom+xml", "<feed xmlns='http://www.w3.org/2005/Atom'/>", "feed"),
        ("application/xml", "<?xml version='1.0'?><rss version='2.0'/>", "feed"),
        ("text/xml", "<?xml version='1.0'?>\n<!-- x --><urlset/>", "sitemap"),
        ("application/xml", "<sitemapindex/>", "sitemap"),
    ],
)
def test_it_accepts_html_feeds_and_sitemaps(site, content_type, body, kind):
    site.route("/doc", Response(body, headers={"Content-Type": content_type}))

    result = fetch_once(site.url("/doc"))

    assert result.error is None
    assert result.kind == kind


@pytest.mark.parametrize(
    "content_type", ["image/png", "application/pdf", "application/json", "text/plain"]
)
def test_it_refuses_other_content_types_with_a_clear_error(site, content_type):
    site.route("/doc", Response(b"\x89PNG....", headers={"Content-Type": content_type}))

    result = fetch_once(site.url("/doc"))

    assert result.error is not None and result.error.kind == "content_type"
    assert content_type in result.error.message
    assert result.body == b""


def test_an_untyped_body_is_taken_only_when_it_is_markup(site):
    site.route("/page", Response("<!doctype html><p>hi", headers={}))
    site.route("/blob", Response(b"\x00\x01binary", headers={}))

    assert fetch_once(site.url("/page")).kind == "html"
    assert fetch_once(site.url("/blob")).error.kind == "content_type"


def test_a_gzip_file_sitemap_is_inflated(site):
    sitemap = b"<?xml version='1.0'?><urlset><url><loc>http://x/</loc></url></urlset>"
    site.route(
        "/sitemap.xml.gz",
        Response(gzip.compress(sitemap), headers={"Content-Type": "application/x-gzip"}),
    )

    result = fetch_once(site.url("/sitemap.xml.gz"))

    assert result.error is None
    assert result.body == sitemap and result.kind == "sitemap"


@pytest.mark.parametrize(
    ("encoding", "compress"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda data: zlib.compress(data)[2:-4]),  # raw deflate, as some servers send
        ("br", brotli.compress),
    ],
)
def test_it_decodes_each_supported_content_encoding(site, encoding, compress):
    site.route(
        "/",
        Response(
            compress(PAGE.encode()),
            headers={"Content-Type": "text/html", "Content-Encoding": encoding},
        ),
    )

    result = fetch_once(site.url("/"))

    assert result.error is None
    assert result.body == PAGE.encode()


def test_it_refuses_an_unknown_or_corrupt_encoding(site):
    site.route(
        "/zstd", Response(b"xx", headers={"Content-Type": "text/html", "Content-Encoding": "zstd"})
    )
    site.route(
        "/bad",
        Response(b"not gzip", headers={"Content-Type": "text/html", "Content-Encoding": "gzip"}),
    )

    assert fetch_once(site.url("/zstd")).error.kind == "decoding"
    assert fetch_once(site.url("/bad")).error.kind == "decoding"


def test_http_errors_are_recorded_with_their_status(site):
    result = fetch_once(site.url("/missing"))

    assert result.error.kind == "http" and result.status == 404
    assert not result.ok


def test_it_follows_redirects_and_keeps_the_chain(site):
    site.redirect("/old", "/middle", 301)
    site.redirect("/middle", site.url("/new#frag"), 308)
    site.html("/new", PAGE)

    result = fetch_once(site.url("/old"))

    assert result.error is None
    assert result.url == site.url("/old")
    assert result.final_url == site.url("/new")
    assert result.redirects == [site.url("/old"), site.url("/middle")]


def test_it_stops_after_five_redirects(site):
    for n in range(7):
        site.redirect(f"/r{n}", f"/r{n + 1}")
    site.html("/r7", PAGE)

    result = fetch_once(site.url("/r0"))

    assert result.error.kind == "redirects"
    assert "5" in result.error.message
    assert "/r6" not in site.paths()  # five hops followed: r0 -> r5, r5's answer is refused


def test_exactly_five_redirects_are_followed(site):
    for n in range(5):
        site.redirect(f"/r{n}", f"/r{n + 1}")
    site.html("/r5", PAGE)

    result = fetch_once(site.url("/r0"))

    assert result.error is None and result.final_url == site.url("/r5")


def test_a_redirect_to_another_scheme_is_refused_per_hop(site):
    site.redirect("/", "ftp://example.com/file")

    result = fetch_once(site.url("/"))

    assert result.error.kind == "url"
    assert result.final_url == "ftp://example.com/file"


def test_a_redirect_without_location_is_an_error(site):
    site.route("/", Response(b"", status=302, headers={}))

    assert fetch_once(site.url("/")).error.kind == "redirects"


def test_connections_are_reused_between_fetches_of_one_host(site):
    for n in range(4):
        site.html(f"/p{n}", PAGE)

    async def run():
        async with Fetcher() as fetcher:
            return [await fetcher.fetch(site.url(f"/p{n}"), LOCAL) for n in range(4)]

    results = asyncio.run(run())

    assert all(r.error is None for r in results)
    assert len(site.requests) == 5  # robots.txt (404, drained) and four pages
    assert site.connections == 1


def test_unreachable_hosts_are_connection_errors():
    with SiteServer() as server:
        url = server.url("/")
    rules = SiteRules(crawl_delay=0, obey_robots=False, allow_private_network=True)
    result = fetch_once(url, rules)  # the server is gone: connection refused

    assert result.error.kind == "connection"


def test_a_host_whose_robots_txt_cannot_be_reached_is_backed_off_until_asked_again():
    with SiteServer() as server:
        url = server.url("/")
    policy = FetchPolicy(robots_error_ttl=600)
    result = fetch_once(url, policy=policy)  # robots.txt first: connection refused

    assert result.error.kind == "backoff"
    assert "robots.txt unreachable" in result.error.message
    assert "connection" in result.error.message
    assert 590 < result.error.retry_after <= 600


@pytest.mark.parametrize(
    "url",
    ["mailto:someone@example.com", "javascript:alert(1)", "http:///nohost", "http://x:99999/"],
)
def test_urls_that_are_not_http_are_refused_without_a_request(url):
    result = fetch_once(url)

    assert result.error.kind == "url"


def test_fetch_url_serves_synchronous_callers(site):
    site.html("/", PAGE)

    result = fetch_url(site.url("/"), LOCAL)

    assert result.body == PAGE.encode()


def test_the_policy_reads_django_settings_with_defaults(settings):
    settings.CRAWLER_USER_AGENT = "TestBot/1.0 (+https://example.invalid/contact)"
    settings.CRAWLER_TOTAL_TIMEOUT = "12"

    policy = policy_from_settings()

    assert policy.user_agent.startswith("TestBot/1.0")
    assert policy.robots_token == "TestBot"
    assert policy.total_timeout == 12.0
    assert policy.max_body_bytes == FetchPolicy().max_body_bytes


def test_the_policy_rejects_a_bad_setting(settings):
    settings.CRAWLER_CONCURRENCY = "many"

    with pytest.raises(ValueError, match="CRAWLER_CONCURRENCY"):
        policy_from_settings()


@pytest.mark.parametrize(
    "agent", ["WebclipBot/0.1", "WebclipBot/0.1 (contact: ops team)", "Mozilla/5.0", ""]
)
def test_the_user_agent_must_carry_a_contact_url(settings, agent):
    settings.CRAWLER_USER_AGENT = agent

    with pytest.raises(ValueError, match="contact URL"):
        policy_from_settings()


def test_site_rules_are_read_from_a_site_like_object():
    class Site:
        crawl_delay = 2.5
        obey_robots = False
        allow_private_network = True

    assert SiteRules.of(Site()) == SiteRules(2.5, False, True)
