"""Hidden-web searching on real local sites: keywords as written, phrases, list walks, POST.

Two sites on 127.0.0.1: the demo news site (its archive reachable only by a GET phrase
search and a POST advanced search in a table with opaque field names, and a login and a
newsletter form beside them), and a small search whose result lists run over many pages and
end in results that no longer hold the query.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote_plus, urlsplit

import pytest

from crawler.fetch.result import FetchResult
from crawler.hiddenweb.runner import search_now
from crawler.models import Page, PageVersion, Site
from crawler.models.hiddenweb import RunSearch
from crawler.models.sitesearch import SiteSearch
from crawler.run.frontier import Frontier
from crawler.run.step import process
from crawler.topic import Topic
from demo import archive
from demo.server import serve

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo() -> Iterator[str]:
    server, _ = serve()
    archive.WRITES.update(dict.fromkeys(archive.WRITES, 0))
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def make_site(root: str, **values) -> Site:
    fields = {"name": "Local", "root_url": root, "allow_private_network": True, "crawl_delay": 0}
    return Site.objects.create(**(fields | {"page_budget": 2000} | values))


def stored(site: Site) -> set[str]:
    return set(Page.objects.filter(site=site, versions__isnull=False).values_list("url", flat=True))


def keywords(*words: str) -> Topic:
    return Topic(terms={"x": 1.0}, queries=dict.fromkeys(words, 1.0))


@pytest.mark.slow
def test_phrases_are_searched_quoted_and_inflections_find_what_the_site_does_not_stem(demo):
    site = make_site(demo + "/")
    report = search_now(site, topic=keywords("rail strike", "wildfire"), rng=random.Random(1))
    (outcome,) = [f for f in report.forms if f.action == demo + "/archive/search"]
    typed = [(s.query, s.form) for s in outcome.searches]
    assert ('"rail strike"', "quoted") in typed and ("wildfire", "typed") in typed
    assert ("wildfires", "inflected") in typed  # the archive matches words as written
    words = {word for query, _ in typed for word in query.strip('"').split()}
    assert not words & {"wildfir", "strik"}  # never our stems
    assert "quotes work" in outcome.style and "stemming no" in outcome.style
    pages = stored(site)
    for story in archive.ARCHIVE:
        holds = "rail strike" in story.text.lower() or "wildfire" in story.text.lower()
        if story.kind == "archive" and holds:
            assert demo + story.url in pages, story.title
    # The words apart are no phrase: the quoted search never brought that story.
    decoy = next(s for s in archive.ARCHIVE if s.title == "Notes from the rail depot")
    assert demo + decoy.url not in pages


@pytest.mark.slow
def test_the_post_advanced_search_is_read_from_its_table_submitted_and_its_pages_walked(demo):
    site = make_site(demo + "/archive/advanced")
    report = search_now(site, topic=keywords("rail strike", "drought"), rng=random.Random(2))
    form = SiteSearch.objects.get(site=site, action=demo + "/archive/advanced/results")
    assert form.status == SiteSearch.Status.SEARCH and form.method == "POST"
    assert form.labels == {
        "f1": "All of these words",
        "f2": "Exact phrase",
        "f3": "Section",
        "f4": "Published after",
    }
    assert form.query_arg == "f1"
    (outcome,) = [f for f in report.forms if f.action == form.action]
    # Quotes are characters to this search: the quoted phrase found nothing, the words did.
    phrase = [(s.query, s.had_results) for s in outcome.searches if s.keyword == "rail strike"]
    assert phrase[:2] == [('"rail strike"', False), ("rail strike", True)]
    assert "quotes ignored" in outcome.style
    walked = next(s for s in outcome.searches if s.query == "rail strike")
    assert walked.pages == 2  # 4 reports, 3 a page: the "Next" POST form was submitted
    pages = stored(site)
    for story in archive.ARCHIVE:
        if story.kind == "report" and ("rail strike" in story.text or "drought" in story.text):
            assert demo + story.url in pages, story.title


@pytest.mark.slow
def test_no_writing_form_is_ever_submitted_and_every_search_is_recorded(demo):
    site = make_site(demo + "/")
    report = search_now(site, topic=keywords(*archive.KEYWORDS[:4]), rng=random.Random(3))
    assert archive.WRITES == {"/account/login": 0, "/newsletter": 0}
    refused = dict(
        SiteSearch.objects.filter(site=site, status=SiteSearch.Status.REFUSED).values_list(
            "action", "reason"
        )
    )
    assert refused == {demo + "/account/login": "login", demo + "/newsletter": "newsletter"}
    rows = RunSearch.objects.filter(site=site)
    assert rows.count() == sum(len(f.searches) for f in report.forms)
    best = rows.get(form__action=demo + "/archive/search", query='"solar subsidies"')
    assert best.had_results and best.pages == 2 and best.results == best.new_articles == 6


class PagedSearch(BaseHTTPRequestHandler):
    """A search over 40 stories, 5 a page: 12 hold "glacier", the rest come after them."""

    pages_served: list[int]
    titles_only = False  # results shown by title alone, never the words that matched

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        return

    def do_GET(self) -> None:  # noqa: N802
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/":
            body = (
                '<form action="/find" role="search"><input name="q"><button>Search</button></form>'
            )
            return self.reply(f"<h1>Home</h1>{body}<p>Welcome.</p>")
        if parts.path.startswith("/story/"):
            number = int(parts.path.rsplit("/", 1)[-1])
            word = "glacier" if number < 12 else "harbour"
            return self.reply(f"<h1>Story {number}</h1><p>A story about the {word}.</p>")
        if parts.path == "/find":
            q = query.get("q", "")
            if q != "glacier":
                return self.reply("<h1>Search</h1><p>Nothing found.</p>")
            page = int(query.get("page", "1"))
            self.pages_served.append(page)
            numbers = range((page - 1) * 5, min(page * 5, 40))
            items = "".join(
                f'<li><a href="/story/{n}">Story {n}</a>'
                + ("" if self.titles_only else f" about the {'glacier' if n < 12 else 'harbour'}")
                + "</li>"
                for n in numbers
            )
            link = f"/find?q={quote_plus(q)}&amp;page="
            pager = "".join(f'<a href="{link}{n}">{n}</a> ' for n in range(1, 9))
            return self.reply(f"<h1>Results</h1><ul>{items}</ul><nav>{pager}</nav>")
        self.send_error(404)

    def reply(self, body: str) -> None:
        data = f"<html><body>{body}</body></html>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def paged(request) -> Iterator[tuple[str, list[int]]]:
    served: list[int] = []
    titles_only = getattr(request, "param", False)
    handler = type("Handler", (PagedSearch,), {"pages_served": served, "titles_only": titles_only})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", served
    finally:
        server.shutdown()


def test_a_result_list_is_walked_page_by_page_until_its_results_stop_holding_the_query(
    paged, settings
):
    settings.DEEPWEB_RESULT_PAGES = 20
    root, served = paged
    site = make_site(root + "/")
    report = search_now(site, topic=keywords("glacier"), rng=random.Random(4))
    (search,) = [s for f in report.forms for s in f.searches if s.query == "glacier"]
    # Pages 1-3 hold "glacier" (stories 0-11 and 12-14); page 4 is harbour stories only.
    assert served == [1, 2, 3, 4]
    assert search.pages == 4 and search.stopped == "no match"
    pages = stored(site)
    assert {f"{root}/story/{n}" for n in range(12)} <= pages


@pytest.mark.parametrize("paged", [True], indirect=True)
def test_a_list_showing_titles_alone_is_walked_to_its_last_page(paged, settings):
    settings.DEEPWEB_RESULT_PAGES = 20
    root, served = paged
    report = search_now(make_site(root + "/"), topic=keywords("glacier"), rng=random.Random(4))
    (search,) = [s for f in report.forms for s in f.searches if s.query == "glacier"]
    assert served == list(range(1, 9)) and search.stopped == "last page"


def test_a_walk_stops_at_the_page_limit(paged, settings):
    settings.DEEPWEB_RESULT_PAGES = 2
    root, served = paged
    report = search_now(make_site(root + "/"), topic=keywords("glacier"), rng=random.Random(4))
    (search,) = [s for f in report.forms for s in f.searches if s.query == "glacier"]
    assert served == [1, 2] and search.stopped == "page limit"


def test_a_stored_result_page_is_a_hub_and_never_handed_on_for_clipping(paged):
    root, _ = paged
    site = make_site(root + "/")
    search_now(site, topic=keywords("glacier"), rng=random.Random(4))
    assert SiteSearch.objects.get(site=site, action=root + "/find").query_arg == "q"
    # The links crawl meets the search's own URL: it is stored as a hub, not as information.
    frontier = Frontier(site)
    url = root + "/find?q=glacier&page=1"
    frontier.add([url], depth=1)
    page = Page.objects.get(site=site, url=url)
    body = "<html><body><h1>Results</h1>" + "<p>A long story about the glacier.</p>" * 40
    fetched = FetchResult(url, url, 200, (body + "</body></html>").encode(), "text/html", "utf-8")
    process(frontier, None, page, fetched)
    version = PageVersion.objects.get(page=page)
    assert version.kind == Page.Kind.HUB and not version.has_information
    assert Page.objects.get(id=page.id).kind == Page.Kind.HUB
    # The same text elsewhere is an article.
    other = root + "/story/99"
    frontier.add([other], depth=1)
    article = Page.objects.get(site=site, url=other)
    process(
        frontier, None, article, FetchResult(other, other, 200, fetched.body, "text/html", "utf-8")
    )
    assert PageVersion.objects.get(page=article).has_information
