"""manage.py crawl and manage.py fetch."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from crawler.models import CrawlRun, Page
from tests.crawler.servers import SiteServer
from tests.crawler.sites import make_site, news_site

pytestmark = pytest.mark.django_db


def test_crawl_runs_a_site_with_a_page_limit_and_prints_a_summary():
    out, err = StringIO(), StringIO()
    with SiteServer() as server:
        news_site(server, articles=6)
        site = make_site(server, name="Harbour news")
        call_command(
            "crawl", str(site.pk), "--max-pages", "4", "--strategy", "bfs", stdout=out, stderr=err
        )
    run = CrawlRun.objects.get(site=site)
    assert run.fetched == 4 and run.stop_reason == "budget"
    summary = out.getvalue()
    assert f"Run {run.pk} of Harbour news (bfs): finished, stopped: budget" in summary
    assert "fetched 4" in summary and "robots-skipped 0" in summary


def test_crawl_finds_a_site_by_name_or_url_and_refuses_unknown_ones():
    with SiteServer() as server:
        news_site(server, articles=1)
        site = make_site(server, name="Harbour news")
        call_command(
            "crawl", "harbour news", "--max-pages", "1", stdout=StringIO(), stderr=StringIO()
        )
        call_command(
            "crawl", site.root_url, "--max-pages", "1", stdout=StringIO(), stderr=StringIO()
        )
    assert CrawlRun.objects.filter(site=site).count() == 2
    with pytest.raises(CommandError, match="No single site"):
        call_command("crawl", "nowhere")
    with pytest.raises(CommandError, match="No crawl strategy named 'zigzag'"):
        call_command("crawl", str(site.pk), "--strategy", "zigzag")
    assert CrawlRun.objects.filter(site=site).count() == 2  # an unknown strategy claims nothing


def test_fetch_shows_what_the_fetcher_and_analyzer_make_of_a_page():
    out = StringIO()
    with SiteServer() as server:
        news_site(server, articles=2)
        make_site(server)
        call_command("fetch", server.url("/news/0"), stdout=out)
    text = out.getvalue()
    assert "Status:       200" in text
    assert "Kind:         information" in text
    assert "Title:        Story /news/0" in text
    assert "informational" in text
    assert Page.objects.count() == 0  # nothing is stored


def test_fetch_reports_a_refused_url_as_an_error():
    out = StringIO()
    with pytest.raises(CommandError, match="ssrf"):
        call_command(
            "fetch", "http://127.0.0.1:9/", stdout=out
        )  # no site allows this private address


class Terminal(StringIO):
    """Captured stderr that says it is a terminal, as an operator's shell is."""

    def isatty(self) -> bool:
        return True


def test_crawl_shows_a_progress_bar_on_a_terminal():
    err = Terminal()
    with SiteServer() as server:
        news_site(server, articles=6)
        site = make_site(server)
        call_command("crawl", str(site.pk), "--max-pages", "5", stdout=StringIO(), stderr=err)
    bar = err.getvalue()
    assert "5/5" in bar and "page" in bar


def test_fetch_picks_the_site_by_origin_not_by_host_name():
    out = StringIO()
    with SiteServer() as first, SiteServer() as second:
        news_site(first, articles=1)
        news_site(second, articles=1)
        make_site(first, name="First port")
        make_site(second, name="Second port")
        call_command("fetch", second.url("/news/0"), stdout=out)
    assert "Site rules:   Second port" in out.getvalue()


def test_fetch_does_not_borrow_another_ports_private_network_permission():
    with SiteServer() as flagged, SiteServer() as unlisted:
        news_site(unlisted, articles=1)
        make_site(flagged, name="Flagged")
        out = StringIO()
        with pytest.raises(CommandError, match="ssrf"):
            call_command("fetch", unlisted.url("/news/0"), stdout=out)
    assert "defaults (no matching site)" in out.getvalue()
    assert unlisted.connections == 0


def test_fetch_refuses_an_origin_that_belongs_to_several_sites():
    with SiteServer() as server:
        make_site(server, name="Front")
        make_site(server, name="Archive", root_url=server.url("/archive/"))
        with pytest.raises(CommandError, match="several sites .*Front.*choose one with --site"):
            call_command("fetch", server.url("/news/0"), stdout=StringIO())
        assert server.connections == 0
