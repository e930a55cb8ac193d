"""Rendering in the crawl: sites that need a browser, and script shells on other sites."""

from __future__ import annotations

import pytest

from crawler.models import Page, PageVersion
from crawler.models.hiddenweb import RunRender
from crawler.run.loop import crawl, render_stored_page
from crawler.tasks import crawl_site
from tests.crawler.servers import SiteServer
from tests.crawler.sites import Published, article, make_site

pytestmark = pytest.mark.django_db

MENU_SCRIPT = """
<script>
  document.addEventListener("DOMContentLoaded", () => {
    const menu = document.getElementById("menu");
    for (const [href, label] of [["/js/one", "One"], ["/js/two", "Two"]]) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = href;
      link.textContent = label;
      item.appendChild(link);
      menu.appendChild(item);
    }
  });
</script>
"""

SHELL = """<!doctype html><html><head><title>Shell</title></head><body><div id="app"></div>
<script>
  document.getElementById("app").innerHTML =
    "<article><h1>Built by script</h1>" +
    "<p>The harbour council met on Tuesday to discuss the new ferry timetable and moorings.</p>".repeat(8) +
    "</article>";
</script></body></html>"""


def js_menu_site(server: SiteServer) -> None:
    home = (
        "<!doctype html><html><head><title>Home</title></head><body>"
        "<nav><ul id='menu'></ul></nav><p>Welcome. The menu is built by JavaScript.</p>"
        f"{MENU_SCRIPT}</body></html>"
    )
    server.html("/", home)
    server.html("/js/one", article("One", "Only the rendered menu links here."))
    server.html("/js/two", article("Two", "Only the rendered menu links here too."))


@pytest.mark.browser
def test_a_javascript_built_menu_is_crawled_when_the_site_needs_a_browser():
    with SiteServer() as server:
        js_menu_site(server)
        site = make_site(server, needs_browser=True)
        run = crawl(site)
    crawled = set(
        Page.objects.filter(site=site, versions__isnull=False).values_list("url", flat=True)
    )
    assert {server.url("/js/one"), server.url("/js/two")} <= crawled
    # Only the page whose menu is built by its script needs the browser, once.
    assert run.rendered == 1
    home = Page.objects.get(site=site, url=server.url("/")).latest_version()
    assert home.rendered and b'href="/js/one"' in home.raw_body()
    article_version = Page.objects.get(site=site, url=server.url("/js/one")).latest_version()
    assert not article_version.rendered
    assert [r.path for r in server.requests].count("/") == 1  # the home page asked for once
    (render,) = RunRender.objects.filter(run=run)
    assert (render.url, render.reason, render.document_requests) == (
        server.url("/"),
        "script shell",  # a few words and a script: the page is what its script builds
        0,
    )


def test_without_a_browser_the_javascript_menu_stays_unseen():
    with SiteServer() as server:
        js_menu_site(server)
        site = make_site(server)
        crawl(site, render_shells="off")
    assert not Page.objects.filter(site=site, url__contains="/js/").exists()


@pytest.mark.browser
def test_a_script_shell_is_rendered_inline_and_stored_once():
    with SiteServer() as server:
        server.html("/", SHELL)
        site = make_site(server)
        run = crawl(site)
        assert run.rendered == 1
        version = Page.objects.get(site=site, url=server.url("/")).latest_version()
        assert version.rendered and version.source_hash and version.has_information
        assert b"Built by script" in version.raw_body()
        Page.objects.filter(site=site).update(next_visit_at=version.fetched_at)
        again = crawl(site, render_shells="off")
    assert again.unchanged == 1  # the same shell as served matches the version rendered from it
    assert PageVersion.objects.filter(page__site=site, page__url=server.url("/")).count() == 1


@pytest.mark.browser
def test_a_script_shell_found_by_a_crawl_worker_is_rendered_on_the_render_queue(
    django_capture_on_commit_callbacks,
):
    with SiteServer() as server:
        server.html("/", SHELL)
        site = make_site(server)
        with Published() as published, django_capture_on_commit_callbacks(execute=True):
            crawl_site(site.id)
        page = Page.objects.get(site=site, url=server.url("/"))
        assert published == [("crawler.tasks.render_page", "render")]
        assert not page.latest_version().rendered
        shell = page.latest_version()
        version_id = render_stored_page(page.id)
        assert render_stored_page(page.id) is None  # the task ran twice: rendered once
        # The render worker gave Chromium the stored shell: the site was asked once.
        assert [r.path for r in server.requests].count("/") == 1
        rendered = PageVersion.objects.get(id=version_id)
        assert rendered.rendered and b"Built by script" in rendered.raw_body()
        assert rendered.source_hash == shell.content_hash
        # The next crawl finds the same shell: unchanged, neither stored nor rendered again.
        Page.objects.filter(id=page.id).update(next_visit_at=rendered.fetched_at)
        with Published() as again, django_capture_on_commit_callbacks(execute=True):
            crawl_site(site.id)
    assert again == []
    assert page.versions.count() == 2


def test_a_deferring_crawl_returns_its_script_shells_and_queues_nothing(
    django_capture_on_commit_callbacks,
):
    shells: list[int] = []
    with SiteServer() as server:
        server.html("/", SHELL)
        server.html("/plain", article("Plain", "Words the server sends as they are."))
        site = make_site(server, seed_urls=server.url("/plain"))
        with Published() as published, django_capture_on_commit_callbacks(execute=True):
            run = crawl(site, render_shells="defer", to_render=shells)
    assert not [task for task, _queue in published if task.startswith("crawler.tasks.")]
    assert run.rendered == 0
    assert shells == [Page.objects.get(site=site, url=server.url("/")).id]
