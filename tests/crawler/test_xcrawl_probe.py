"""Link probing in real Chromium: a hover menu, a "load more" list, and nothing submitted or left."""

from __future__ import annotations

import pytest

from crawler.fetch import FetchPolicy, SiteRules
from crawler.strategies.xcrawl.probe import probe_url
from tests.crawler.servers import Response, SiteServer

pytestmark = pytest.mark.browser

LOCAL = SiteRules(crawl_delay=0, obey_robots=False, allow_private_network=True)
POLICY = FetchPolicy(render_timeout=10.0, render_settle=0.5)

PAGE = """<!doctype html><html><head><title>Probe me</title></head><body>
<nav><ul><li id="products">Products<div id="mega"></div></li>
<li><a href="/plain">A plain link</a></li></ul></nav>
<main><ul id="list"><li><a href="/item/0">Item 0</a></li></ul>
<button id="more" type="button">Load more</button>
<form action="/submitted" method="post"><input name="q" value="x">
<button>Send</button></form>
<form action="/search-submitted" method="get"><input name="q" value="y"></form>
<div id="sneaky" onclick="document.forms[1].submit()">Sneaky submit</div>
<span id="go" role="button" onclick="location.href='/elsewhere'">Go elsewhere</span>
<span id="hi" onclick="alert('hello')">Say hello</span>
<button id="far" type="button" onclick="fetch('http://localhost:PORT/far').catch(() => 0)">Far</button>
</main>
<script>
document.getElementById('products').addEventListener('mouseenter', () => {
  document.getElementById('mega').innerHTML =
    '<a href="/menu/cameras">Cameras</a><a href="/menu/lenses">Lenses</a>';
});
let page = 0;
document.getElementById('more').addEventListener('click', async () => {
  page += 1;
  const items = await (await fetch('/api/more?page=' + page)).json();
  for (const href of items) {
    const li = document.createElement('li');
    li.innerHTML = '<a href="' + href + '">' + href + '</a>';
    document.getElementById('list').appendChild(li);
  }
  if (page >= 3) document.getElementById('more').remove();
});
</script></body></html>"""


def more(request) -> None:
    page = int(request.path.split("page=")[1])
    body = f'["/item/{page}a", "/item/{page}b"]'
    request.reply(Response(body, headers={"Content-Type": "application/json"}))


@pytest.fixture(scope="module")
def probed():
    with SiteServer() as far, SiteServer() as server:
        server.html("/", PAGE.replace("PORT", str(far.port)))
        server.route("/api/more", more)
        result = probe_url(server.url("/"), LOCAL, policy=POLICY, max_states=12, seconds=60.0)
        yield server, far, result


def test_probing_finds_the_links_of_a_menu_built_on_hover(probed):
    server, _, result = probed
    assert result.error == ""
    assert {server.url("/menu/cameras"), server.url("/menu/lenses")} <= set(result.links)
    assert server.url("/plain") not in result.links  # there from the start: not a find


def test_probing_follows_load_more_depth_first_until_the_list_ends(probed):
    server, _, result = probed
    expected = {server.url(f"/item/{n}{x}") for n in (1, 2, 3) for x in "ab"}
    assert expected <= set(result.links)
    assert server.url("/api/more?page=1") in result.script_urls
    assert result.states >= 3  # the page, after one "load more", after two


def test_probing_never_submits_a_form_nor_leaves_the_page_nor_the_site(probed):
    server, far, result = probed
    assert server.url("/elsewhere") in result.navigations  # recorded, then aborted
    requested = server.paths()
    assert not [p for p in requested if p.startswith(("/elsewhere", "/submitted", "/search"))]
    assert result.submits_blocked >= 1  # the sneaky div tried
    assert not [r for r in result.refused if not r.startswith("http")]  # no POST even tried
    assert far.paths() == []  # the script's request to another host was refused
    assert any("localhost" in r for r in result.refused)
    assert any("hello" in d for d in result.dialogs)  # the alert was dismissed


HOME = """<!doctype html><html lang="en"><head><title>Camera news</title></head><body>
<nav><ul><li id="reviews">Reviews<div id="sub"></div></li></ul></nav>
<main><h1>Welcome</h1><p>News from the photo world, every week.</p></main>
<script>
document.getElementById('reviews').addEventListener('mouseenter', () => {
  document.getElementById('sub').innerHTML = '<a href="/review/1">Our review</a>';
});
</script></body></html>"""
REVIEW = """<!doctype html><html lang="en"><head><title>A camera review</title></head><body>
<main><article><h1>A camera review</h1>
<p>The camera pairs a large sensor with a bright zoom lens of good quality.</p>
<p>At twenty megapixel the sensor resolves fine detail, and the zoom is sharp.</p>
<p>We tested the lens at every focal length on charts and in the street.</p>
</article></main></body></html>"""


@pytest.mark.django_db
def test_an_xcrawl_run_on_a_browser_site_probes_the_seed_and_follows_a_hover_menu():
    from analyzer.text import stems
    from crawler.models import Page
    from crawler.models.xcrawl import PageVerdict
    from crawler.run.loop import crawl
    from crawler.topic import Topic, register_topic_provider
    from tests.crawler.sites import make_site

    words = ["camera", "sensor", "zoom", "lens", "megapixel"]
    register_topic_provider(lambda site: Topic(terms=dict.fromkeys(stems(words), 1.0)))
    try:
        with SiteServer() as server:
            server.html("/", HOME)
            server.html("/review/1", REVIEW)
            site = make_site(server, strategy="xcrawl", needs_browser=True, page_budget=10)
            crawl(site, seed=1)
    finally:
        register_topic_provider(None)
    review = Page.objects.get(site=site, url=server.url("/review/1"))
    assert review.last_fetched_at is not None
    assert PageVerdict.objects.get(page=review).accepted
