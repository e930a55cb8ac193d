"""Real sites as they are: a mirror naming its originals elsewhere, a script-built entry page,
a search form on a listing page."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlsplit

import lxml.html
import pytest
from django.urls import reverse

from analyzer.text import stems
from crawler.models import Page
from crawler.run.loop import crawl
from crawler.strategies import base as strategies_base
from crawler.strategies.base import PageObservation, Strategy
from crawler.topic import Topic, register_topic_provider
from tests.crawler.servers import Response, SiteServer
from tests.crawler.sites import article, hub, make_site

pytestmark = pytest.mark.django_db

HARBOUR = Topic(terms={stem: 1.0 for stem in stems(["harbour"])}, queries={"harbour": 1.0})


@pytest.fixture(autouse=True)
def _no_hidden_web(settings):
    settings.DEEPWEB_ENABLED = False


@pytest.fixture
def harbour_topic():
    register_topic_provider(lambda site: HARBOUR)
    yield HARBOUR
    register_topic_provider(None)


# --- A mirror: every article names its original on another website ---------------------------


def mirror(server: SiteServer, articles: int = 12) -> set[str]:
    """Serve an encyclopedia mirror whose articles link on to each other; return their paths."""
    paths = [f"/wiki/A/Town_{i}" for i in range(articles)]
    server.html("/", hub("Mirror", [(paths[0], "Town 0")]))
    for i, path in enumerate(paths):
        original = f'<link rel="canonical" href="https://en.encyclopedia.example/wiki/Town_{i}">'
        onward = [(p, p.rsplit("/", 1)[-1]) for p in paths[i + 1 : i + 3]]
        server.html(path, article(f"Town {i}", "A harbour town by the sea.", onward, original))
    return set(paths)


def test_a_mirror_whose_articles_name_originals_elsewhere_is_crawled_whole(staff_client):
    with SiteServer() as server:
        paths = mirror(server)
        site = make_site(server)
        run = crawl(site, strategy="bfs", render_shells="off")
        requested = set(server.paths())
    assert paths <= requested, (run.stop_reason, run.learned)
    assert run.learned["copy_shapes"] == [] and run.duplicate_fetches == 0
    assert run.learned["foreign_canonical_count"] == len(paths)
    assert [server.url("/wiki/A/Town_0"), "https://en.encyclopedia.example/wiki/Town_0"] in (
        run.learned["foreign_canonicals"]
    )
    html = staff_client.get(reverse("admin:crawler_crawlrun_change", args=[run.pk])).content
    document = lxml.html.document_fromstring(html.decode())
    shapes = document.xpath("string(//div[contains(@class, 'field-judged_shapes')])")
    assert f"{len(paths)}: " in shapes and "en.encyclopedia.example/wiki/Town_0" in shapes


def test_a_canonical_on_the_sites_own_origin_still_makes_a_copy():
    with SiteServer() as server:
        paths = mirror(server)
        for i in range(12):
            own = f'<link rel="canonical" href="{server.url(f"/wiki/Town_{i}")}">'
            server.html(f"/wiki/A/Town_{i}", article(f"Town {i}", "A copy.", [], own))
        server.html("/", hub("Mirror", [(p, p) for p in sorted(paths)]))
        site = make_site(server)
        run = crawl(site, strategy="bfs", render_shells="off")
    assert run.learned["copy_shapes"] == ["/wiki/*/*"]
    assert run.learned["foreign_canonical_count"] == 0


# --- A script-built entry page ----------------------------------------------------------------

# Like an offline library's home page: a script reads the catalogue, lists its books, and
# gives the page a new address (its filter settings) as it does.
CATALOGUE_SHELL = """<!doctype html><html><head><title>Library</title></head><body>
<div id="books"></div>
<script>
  history.replaceState(null, "", "/?lang=eng");
  fetch("/catalog.json").then(r => r.json()).then(books => {
    const list = document.getElementById("books");
    for (const book of books) {
      const a = document.createElement("a");
      a.href = book.href; a.textContent = book.title;
      list.appendChild(a);
    }
  });
</script></body></html>"""


def library(server: SiteServer, articles: int = 8) -> set[str]:
    """Serve a script-built home page, its catalogue, one book and its articles."""
    server.html("/", CATALOGUE_SHELL)
    books = [{"href": "/book/A/Main", "title": "Atlas of towns"}]
    server.route(
        "/catalog.json", Response(json.dumps(books), headers={"Content-Type": "application/json"})
    )
    paths = {f"/book/A/Town_{i}" for i in range(articles)}
    towns = [(p, p.rsplit("/", 1)[-1]) for p in sorted(paths)]
    server.html("/book/A/Main", hub("Atlas of towns", towns))
    for path in paths:
        server.html(
            path, article(path, "A town by the sea with a market.", [("/book/A/Main", "Main")])
        )
    return paths


@pytest.mark.browser
@pytest.mark.parametrize("strategy", ["bfs", "xcrawl"])
def test_both_strategies_reach_the_content_behind_a_script_built_entry_page(
    strategy, harbour_topic
):
    with SiteServer() as server:
        paths = library(server)
        site = make_site(server)
        run = crawl(site, strategy=strategy)
        requested = set(server.paths())
    assert paths <= requested, (run.stop_reason, run.fetched, requested)
    assert run.stop_reason == "exhausted"
    assert not Page.objects.filter(site=site, last_fetched_at__isnull=True).exists()


class SeedsOnly(Strategy):
    """A strategy with nothing to rank by: it offers the seeds, then nothing."""

    name = "seeds-only"

    def next_urls(self, limit: int) -> list[str]:
        seeds = [self.frontier.canonical(url) for url in self.site.seeds()]
        return [url for url in seeds if url not in self.frontier.taken][:limit]

    def observe(self, observation: PageObservation) -> None:
        return None


def test_a_strategy_offering_nothing_never_ends_a_run_while_pages_are_known(
    monkeypatch, staff_client
):
    monkeypatch.setitem(strategies_base._REGISTRY, SeedsOnly.name, SeedsOnly)
    with SiteServer() as server:
        paths = mirror(server, articles=5)
        site = make_site(server, max_depth=3)
        run = crawl(site, strategy=SeedsOnly.name, render_shells="off")
        requested = set(server.paths())
    assert paths <= requested  # the last two are three links from the home page
    assert run.stop_reason == "exhausted" and run.learned["explored"] >= len(paths)
    html = staff_client.get(reverse("admin:crawler_crawlrun_change", args=[run.pk])).content
    spent = lxml.html.document_fromstring(html.decode()).xpath(
        "string(//div[contains(@class, 'field-fetches_spent')])"
    )
    explored = run.learned["explored"]
    assert f"taken breadth-first when the strategy offered nothing {explored}" in spent
    unfetched = Page.objects.filter(site=site, last_fetched_at__isnull=True)
    assert not unfetched.filter(depth__lte=3).exists()


# --- A search form on a listing page ----------------------------------------------------------

STORY_WORDS = ["harbour", "market", "museum"]


def stories() -> dict[str, str]:
    """Return 36 stories (slug -> headline), a third of them about the harbour."""
    return {
        f"s{i:03d}": f"The {STORY_WORDS[i % 3]} of town {i} changes its hours" for i in range(36)
    }


def listing_site(server: SiteServer) -> set[str]:
    """Serve a database front end: a home page linking its table, whose page lists the three
    newest rows and holds the only search form; return the paths of the harbour stories."""
    rows = stories()

    def table(request) -> None:
        query = dict(parse_qsl(urlsplit(request.path).query)).get("_search", "")
        shown = [s for s, t in rows.items() if query and query.lower() in t.lower()]
        shown = shown if query else list(rows)[:3]
        items = "".join(f'<li><a href="/db/stories/{s}">{rows[s]}</a></li>' for s in shown)
        request.reply(
            Response(
                "<!doctype html><html lang='en'><head><title>stories</title></head><body>"
                "<h1>stories: table</h1>"
                '<form class="core" action="/db/stories" method="get">'
                '<label for="_search">Search</label> '
                '<input id="_search" type="search" name="_search"> '
                "<label for='_sort'>Sort by</label> "
                "<select id='_sort' name='_sort'><option value='id'>id</option></select> "
                '<input type="submit" value="Apply"></form>'
                f"<p>{len(rows)} rows</p><ul>{items}</ul></body></html>"
            )
        )

    server.route("/db/stories", table)
    server.html("/", hub("Town records", [("/db/stories", "stories"), ("/about", "About")]))
    server.html("/about", article("About", "Records of the town kept since long ago."))
    for slug, title in rows.items():
        server.html(f"/db/stories/{slug}", article(title, f"{title}. The council said so."))
    return {f"/db/stories/{s}" for s, t in rows.items() if "harbour" in t}


@pytest.mark.slow
def test_breadth_first_searches_a_form_found_on_a_listing_page(settings, harbour_topic):
    settings.DEEPWEB_ENABLED = True
    with SiteServer() as server:
        hidden = listing_site(server)
        site = make_site(server)
        run = crawl(site, strategy="bfs", render_shells="off")
        requested = set(server.paths())
    assert "/db/stories?_search=harbour" in {p.replace("&_sort=id", "") for p in requested}
    assert hidden <= requested, (run.stop_reason, sorted(requested))
    assert run.stop_reason == "exhausted"
