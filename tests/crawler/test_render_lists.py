"""Rendering in real Chromium: the fetched document served once, lists grown, JSON read."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import parse_qs, urlsplit

import pytest

from crawler.fetch import FetchPolicy, SiteRules
from crawler.models import Site
from crawler.run.fetching import FetchBackend
from crawler.run.step import fetch_page
from tests.crawler.servers import RequestHandler, Response, SiteServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

POLICY = FetchPolicy(render_timeout=20.0, render_settle=1.0)
TOTAL = 14  # stories behind the list, 4 a page

LIST_SCRIPT = """
<script>
(function () {
  var list = document.getElementById('list'), page = 0, done = false, busy = false;
  function more() {
    if (busy || done) return;
    busy = true;
    fetch('/api/items?page=' + (page + 1)).then(r => r.json()).then(data => {
      page += 1;
      for (const item of data.items) {
        const li = document.createElement('li');
        li.style.minHeight = '300px';
        if (LINKED) { const a = document.createElement('a'); a.href = item.url; a.textContent = item.title; li.appendChild(a); }
        else { li.textContent = item.title; li.dataset.id = item.url; }
        list.appendChild(li);
      }
      done = !data.next; busy = false;
      const button = document.getElementById('more');
      if (done && button) button.remove();
    });
  }
  const button = document.getElementById('more');
  if (button) button.addEventListener('click', more);
  else new IntersectionObserver(e => { if (e.some(x => x.isIntersecting)) more(); })
         .observe(document.getElementById('sentinel'));
  more();
})();
</script>"""


def items(request: RequestHandler) -> None:
    page = int(parse_qs(urlsplit(request.path).query).get("page", ["1"])[0])
    numbers = range((page - 1) * 4, min(page * 4, TOTAL))
    body = {
        "items": [{"title": f"Story {n}", "url": f"/story/{n}"} for n in numbers],
        "next": page * 4 < TOTAL,
    }
    request.reply(Response(json.dumps(body), headers={"Content-Type": "application/json"}))


def list_page(control: str, linked: bool = True) -> str:
    script = LIST_SCRIPT.replace("LINKED", "true" if linked else "false")
    return (
        "<!doctype html><html><head><title>Desk</title></head><body><h1>The desk</h1>"
        f"<p>{'Latest stories from the desk, updated all day and night. ' * 5}</p>"
        f"<ul id='list'></ul>{control}"
        f"{script}</body></html>"
    )


@pytest.fixture
def site():
    with SiteServer() as server:
        server.route("/api/items", items)
        yield server


def render(server: SiteServer, path: str):
    """Fetch `path` as a crawl run would on a site that needs a browser; return the result."""
    record = Site(
        name="Desk", root_url=server.url("/"), needs_browser=True, allow_private_network=True
    )

    async def go():
        backend = FetchBackend(record)
        backend.rules = SiteRules(crawl_delay=0, obey_robots=False, allow_private_network=True)
        backend.fetcher.policy = POLICY
        try:
            return await fetch_page(
                backend,
                server.url(path),
                etag="",
                last_modified="",
                needs_browser=True,
                render_shells="off",
            )
        finally:
            await backend.aclose()

    return asyncio.run(go())


def story_links(body: bytes) -> set[str]:
    return {n for n in range(TOTAL) if f'/story/{n}"'.encode() in body}


def test_a_rendered_page_is_asked_of_the_site_once(site):
    site.html("/desk", list_page('<button type="button" id="more">Load more</button>'))
    result = render(site, "/desk")
    assert result.rendered and result.error is None
    assert site.paths().count("/desk") == 1  # fetched once, then served to Chromium
    assert result.render_notes["document_requests"] == 0
    assert result.render_notes["reason"] == "load more"


def test_load_more_is_clicked_until_the_list_ends(site):
    site.html("/desk", list_page('<button type="button" id="more">Load more</button>'))
    result = render(site, "/desk")
    assert story_links(result.body) == set(range(TOTAL))
    assert result.render_notes["expanded"] == 3  # pages 2, 3 and 4 of the list
    assert [p for p in site.paths() if p.startswith("/api/")] == [
        f"/api/items?page={n}" for n in (1, 2, 3, 4)
    ]


def test_an_infinite_list_is_scrolled_until_no_new_items_come(site):
    site.html("/desk", list_page('<div id="sentinel" style="height:10px"></div>'))
    result = render(site, "/desk")
    assert story_links(result.body) == set(range(TOTAL))


def test_links_only_the_json_api_carries_are_added_to_the_rendered_page(site):
    unlinked = list_page('<button type="button" id="more">Load more</button>', linked=False)
    site.html("/desk", unlinked)
    result = render(site, "/desk")
    assert b'data-webclip="api-links"' in result.body
    assert story_links(result.body) == set(range(TOTAL))
    assert result.render_notes["api_links"] == TOTAL


def test_a_more_button_that_navigates_away_leaves_the_page_where_it_is(site):
    away = (
        "<button type='button' id='more' onclick=\"location.href='/elsewhere'\">Show more</button>"
    )
    site.html("/desk", list_page(away).replace("button.remove()", "0"))
    site.html("/elsewhere", "<html><body><p>Elsewhere</p></body></html>")
    result = render(site, "/desk")
    assert result.error is None and result.final_url == site.url("/desk")
    assert "/elsewhere" not in site.paths()


def test_a_page_that_needs_no_browser_is_not_rendered_on_a_site_that_needs_one(site):
    text = "<p>" + "The council met on Tuesday to discuss the new ferry timetable. " * 6 + "</p>"
    site.html("/plain", f"<html><body><h1>Ferry</h1>{text}<script>track()</script></body></html>")
    result = render(site, "/plain")
    assert not result.rendered
    assert site.paths().count("/plain") == 1
