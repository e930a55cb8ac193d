"""Rendering in real Chromium: JS-built menus, dialogs, blocked requests, the SSRF guard."""

from __future__ import annotations

import asyncio
import time

import pytest

from crawler.fetch import FetchPolicy, FetchResult, SiteRules
from crawler.render import HOST, Renderer, needs_rendering, open_renderer, render_url
from crawler.render.host import BrowserError
from tests.crawler.servers import Response, SiteServer

pytestmark = pytest.mark.browser

LOCAL = SiteRules(crawl_delay=0, obey_robots=False, allow_private_network=True)
POLICY = FetchPolicy(render_timeout=10.0, render_settle=1.0)

SHELL = """<!doctype html><html><head><title>Shop</title>
<script>
fetch('/menu.json').then(r => r.json()).then(items => {
  const nav = document.getElementById('menu');
  for (const item of items) {
    const a = document.createElement('a');
    a.href = item.href; a.textContent = item.label;
    nav.appendChild(a);
  }
  document.body.dataset.ready = 'yes';
});
</script></head>
<body><nav id="menu"></nav><noscript>Please enable JavaScript.</noscript></body></html>"""
MENU = (
    '[{"href": "/news/first", "label": "First story"},'
    ' {"href": "/news/second", "label": "Second story"}]'
)


@pytest.fixture
def site():
    with SiteServer() as server:
        yield server


def render(url, rules=LOCAL, hosts=(), **options):
    renderer = Renderer(options.pop("policy", POLICY), **options)
    return asyncio.run(renderer.render(url, rules, hosts))


def test_a_menu_built_by_javascript_is_in_the_rendered_html(site):
    site.html("/", SHELL)
    site.route("/menu.json", Response(MENU, headers={"Content-Type": "application/json"}))

    page = render(site.url("/"))

    assert page.error is None, page.error
    assert page.status == 200
    assert page.final_url == site.url("/")
    assert 'href="/news/first"' in page.html and "Second story" in page.html
    assert page.script_urls == [site.url("/menu.json")]
    assert "/menu.json" in site.paths()


def test_the_raw_shell_needs_rendering_and_an_article_does_not():
    article = "<html><body><article>" + "<p>Plenty of real text here.</p>" * 20
    article += "<script src='/analytics.js'></script></article></body></html>"

    assert needs_rendering(SHELL)
    assert needs_rendering(SHELL.encode())
    assert not needs_rendering(article)


@pytest.mark.parametrize(
    "html",
    [
        "",
        "<html><body><p>Short static page.</p></body></html>",  # little text but no script
        "<?xml version='1.0' encoding='utf-8'?><html><body><p>hi</p></body></html>",
        b"\x00\x01",
    ],
)
def test_pages_without_scripts_never_need_rendering(html):
    assert not needs_rendering(html)


def test_a_short_scripted_page_needs_rendering_below_the_threshold():
    page = "<html><body><div id='app'>Loading…</div><script>boot()</script></body></html>"

    assert needs_rendering(page)
    assert not needs_rendering(page, min_text=5)


def test_dialogs_are_dismissed_and_the_page_goes_on(site):
    site.html(
        "/",
        "<html><body><p id=out>start</p><script>"
        "alert('hello'); const ok = confirm('sure?'); const name = prompt('name?');"
        "document.getElementById('out').textContent = 'confirm=' + ok + ' prompt=' + name;"
        "</script></body></html>",
    )

    page = render(site.url("/"))

    assert page.error is None
    assert page.dialogs == ["alert: hello", "confirm: sure?", "prompt: name?"]
    assert "confirm=false prompt=null" in page.html


def test_requests_off_the_site_are_refused_and_never_made(site):
    with SiteServer("127.0.0.2") as other:
        other.route("/track", Response("{}", headers={"Content-Type": "application/json"}))
        other.route(
            "/lib.js", Response("window.lib = 1", headers={"Content-Type": "text/javascript"})
        )
        site.html(
            "/",
            f"<html><body><p>hi</p><script src='{other.url('/lib.js')}'></script>"
            f"<script>fetch('{other.url('/track')}').catch(() => {{}});</script></body></html>",
        )

        page = render(site.url("/"), hosts=[f"127.0.0.1:{site.port}"])

        assert page.error is None
        refused = {r.url: r.refused for r in page.blocked}
        assert refused.keys() == {other.url("/lib.js"), other.url("/track")}
        assert all(reason.startswith("offsite") for reason in refused.values())
        assert other.connections == 0


def test_images_media_and_fonts_are_not_loaded(site):
    site.html(
        "/",
        "<html><head><style>@font-face{font-family:F;src:url(/f.woff2)}"
        "body{font-family:F}</style></head><body><p>text</p>"
        "<img src='/logo.png'><video src='/clip.mp4' autoplay></video></body></html>",
    )

    page = render(site.url("/"))

    assert page.error is None
    blocked = {r.url: r.resource_type for r in page.blocked}
    assert blocked[site.url("/logo.png")] == "image"
    assert not {"/logo.png", "/clip.mp4", "/f.woff2"} & set(site.paths())


def test_websockets_are_refused(site):
    site.html(
        "/",
        f"<html><body><p>x</p><script>new WebSocket('ws://127.0.0.1:{site.port}/live');"
        "</script></body></html>",
    )

    page = render(site.url("/"))

    assert [r.refused for r in page.requests if r.resource_type == "websocket"] == [
        "websocket blocked"
    ]
    assert "/live" not in site.paths()


# --- The SSRF guard applies to every request the page makes ------------------------------------


@pytest.fixture
def inside():
    """A listener on 127.0.0.2 standing for the internal network."""
    with SiteServer("127.0.0.2") as server:
        server.html("/", "<p>internal secret</p>")
        server.route(
            "/secret", Response('{"key": 1}', headers={"Content-Type": "application/json"})
        )
        yield server


async def stand_in_resolver(host):
    return {"internal.example": ["127.0.0.2"]}.get(host, ["127.0.0.1"])


# 127.0.0.1 stands in for the public web; everything else private stays refused.
STAND_IN = SiteRules(crawl_delay=0, obey_robots=False, allowed_networks=("127.0.0.1/32",))


def test_a_script_request_to_an_internal_address_is_refused_even_on_an_allowed_host(site, inside):
    site.html(
        "/",
        "<html><body><p>x</p><script>"
        f"fetch('http://internal.example:{inside.port}/secret').catch(() => {{}});"
        f"fetch('http://127.0.0.2:{inside.port}/secret').catch(() => {{}});"
        "</script></body></html>",
    )
    hosts = [f"public.example:{site.port}", "internal.example", "127.0.0.2"]

    page = render(
        f"http://public.example:{site.port}/", STAND_IN, hosts, resolver=stand_in_resolver
    )

    assert page.error is None
    reasons = [r.refused for r in page.blocked]
    assert len(reasons) == 2 and all(reason.startswith("ssrf") for reason in reasons)
    assert inside.connections == 0


def test_a_redirect_of_the_page_to_an_internal_address_is_refused(site, inside):
    site.redirect("/go", f"http://internal.example:{inside.port}/")
    hosts = [f"public.example:{site.port}", f"internal.example:{inside.port}"]

    page = render(
        f"http://public.example:{site.port}/go", STAND_IN, hosts, resolver=stand_in_resolver
    )

    assert page.error is not None and page.error.kind == "ssrf", page.error
    assert page.final_url == f"http://internal.example:{inside.port}/"
    assert page.html == ""
    assert inside.connections == 0


def test_a_redirect_of_a_script_request_to_an_internal_address_is_refused(site, inside):
    site.redirect("/api", f"http://127.0.0.2:{inside.port}/secret")
    site.html(
        "/",
        "<html><body><p id=out>none</p><script>fetch('/api').then(r => r.text())"
        ".then(t => document.getElementById('out').textContent = t)"
        ".catch(() => document.getElementById('out').textContent = 'refused');"
        "</script></body></html>",
    )
    hosts = [f"public.example:{site.port}", "127.0.0.2"]

    page = render(
        f"http://public.example:{site.port}/", STAND_IN, hosts, resolver=stand_in_resolver
    )

    assert page.error is None
    assert ">refused<" in page.html
    assert inside.connections == 0


def test_the_page_redirects_are_followed_hop_by_hop(site):
    site.redirect("/old", "/middle", 301)
    site.redirect("/middle", "/new", 302)
    site.html("/new", "<html><body><p>moved</p></body></html>")

    page = render(site.url("/old"))

    assert page.error is None
    assert page.final_url == site.url("/new")
    assert page.redirects == [site.url("/old"), site.url("/middle")]
    assert "moved" in page.html


def test_a_page_on_a_private_address_is_refused_without_the_flag(site):
    strict = SiteRules(crawl_delay=0, obey_robots=False)

    page = render(site.url("/"), strict)

    assert page.error.kind == "ssrf"
    assert site.connections == 0


# --- Limits and the shared browser --------------------------------------------------------------


def test_a_page_that_never_answers_ends_at_the_render_timeout(site):
    site.route("/", site.never_answers)
    quick = FetchPolicy(render_timeout=2.0, render_settle=0.5, read_timeout=10, total_timeout=10)

    started = time.monotonic()
    page = render(site.url("/"), policy=quick)

    assert page.error.kind == "timeout"
    assert time.monotonic() - started < 6


def test_a_download_is_not_a_page(site):
    site.route("/file.pdf", Response(b"%PDF-1.4", headers={"Content-Type": "application/pdf"}))

    page = render(site.url("/file.pdf"))

    assert page.error.kind == "content_type"


def test_an_http_error_page_is_recorded_with_its_status(site):
    page = render(site.url("/missing"))

    assert page.status == 404 and page.error.kind == "http"


def test_one_browser_serves_every_render_with_a_fresh_context_each_time(site):
    site.html(
        "/",
        "<html><body><p id=c></p><script>document.getElementById('c').textContent ="
        " 'seen=' + document.cookie; document.cookie = 'visited=1';</script></body></html>",
    )

    async def twice():
        renderer = await open_renderer(POLICY)
        first = await renderer.render(site.url("/"), LOCAL)
        browser = HOST._browser
        second = await renderer.render(site.url("/"), LOCAL)
        await renderer.close()
        return first, second, browser is HOST._browser

    first, second, same_browser = asyncio.run(twice())

    assert same_browser
    assert "seen=<" in first.html and "seen=<" in second.html  # no cookie carried over


def test_render_url_serves_synchronous_callers(site):
    site.html("/", "<html><body><p>sync</p></body></html>")

    page = render_url(site.url("/"), LOCAL, policy=POLICY)

    assert page.error is None and "sync" in page.html


def test_a_rendered_page_is_a_fetch_result_with_the_dom_as_its_utf8_body(site):
    greek = "<html><head><meta charset='iso-8859-7'></head><body><p>Καλημέρα</p></body></html>"
    site.route("/", Response(greek.encode("iso-8859-7")))

    page = render(site.url("/"))

    assert isinstance(page, FetchResult) and page.rendered and page.succeeded
    assert (page.content_type, page.charset) == ("text/html", "utf-8")
    assert "Καλημέρα".encode() in page.body and page.html == page.body.decode()


def test_a_chromium_path_that_does_not_exist_is_a_clear_browser_error():
    policy = FetchPolicy(chromium_path="/nonexistent/chromium")
    with pytest.raises(BrowserError, match="Chromium at /nonexistent/chromium did not start"):
        asyncio.run(Renderer(policy).start())
