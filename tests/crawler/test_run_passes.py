"""Run passes: work registered with the run loop, which itself knows no pass by name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from crawler.hiddenweb.pageforms import forms_pass
from crawler.hiddenweb.runner import search_pass
from crawler.models import CrawlRun
from crawler.run.loop import crawl
from crawler.run.passes import (
    RunContext,
    page_passes,
    register_page_pass,
    register_run_pass,
    run_passes,
    unregister_page_pass,
    unregister_run_pass,
)
from tests.crawler.servers import SiteServer
from tests.crawler.sites import make_site, news_site

CRAWLER = Path(__file__).resolve().parents[2] / "crawler"


@pytest.fixture
def server():
    with SiteServer() as site:
        yield site


@pytest.fixture
def registered():
    """Register passes for one test, then remove them."""
    names: list[str] = []

    def register(name, run_pass):
        names.append(name)
        register_run_pass(name, run_pass)

    yield register
    for name in names:
        unregister_run_pass(name)


def test_the_crawler_registers_the_hidden_web_pass():
    assert ("hidden-web", search_pass) in run_passes()
    assert ("hidden-web", forms_pass) in page_passes()


@pytest.mark.django_db
def test_a_page_pass_sees_every_stored_page_once_and_keeps_its_state_for_the_run(
    server, settings, caplog
):
    settings.DEEPWEB_ENABLED = False
    paths = news_site(server)
    seen: list[str] = []

    def spy(context: RunContext, observation) -> None:
        context.state.setdefault("spy", []).append(observation.url)
        seen[:] = context.state["spy"]

    def broken(context: RunContext, observation) -> None:
        raise ValueError("broken page pass")

    register_page_pass("broken", broken)
    register_page_pass("spy", spy)
    try:
        run = crawl(make_site(server), render_shells="off")
    finally:
        unregister_page_pass("broken")
        unregister_page_pass("spy")
    assert run.status == CrawlRun.Status.FINISHED
    assert sorted(seen) == sorted({server.url(p) for p in ["/", "/world", "/sport", *paths]})
    assert "Page pass broken failed" in caplog.text


@pytest.mark.django_db
def test_a_registered_pass_runs_once_per_run_before_the_links_crawl(server, registered, settings):
    settings.DEEPWEB_ENABLED = False
    news_site(server)
    site = make_site(server)
    seen: list[tuple[RunContext, int, list[str]]] = []
    registered(
        "spy", lambda context: seen.append((context, context.budget(), list(server.paths())))
    )
    run = crawl(site, max_pages=5)
    assert run.status == CrawlRun.Status.FINISHED
    ((context, budget, requested),) = seen
    assert context.site == site and budget == 5
    assert "/" not in requested  # nothing of the site was fetched yet


@pytest.mark.django_db
def test_a_failing_pass_is_logged_and_the_crawl_goes_on(server, registered, settings, caplog):
    settings.DEEPWEB_ENABLED = False
    news_site(server)
    after: list[str] = []

    def broken(context: RunContext) -> None:
        raise ValueError("broken pass")

    registered("broken", broken)
    registered("next", lambda context: after.append(context.site.name))
    run = crawl(make_site(server))
    assert run.status == CrawlRun.Status.FINISHED and run.new > 1
    assert after == [run.site.name]
    assert "Run pass broken failed" in caplog.text


def imported_modules(package: str) -> set[str]:
    found = set()
    for path in (CRAWLER / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("run", ("crawler.hiddenweb",)),
        ("sitesearch", ("crawler.hiddenweb", "crawler.strategies")),
    ],
)
def test_lower_layers_never_import_the_layers_that_use_them(package, forbidden):
    wrong = {m for m in imported_modules(package) if m.startswith(forbidden)}
    assert wrong == set()
