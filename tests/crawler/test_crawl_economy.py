"""Every fetch spent once: parameters learnt from rel=canonical, shapes closed for good,
searches revisited by their change rate, rendering decided by what scripts add."""

from __future__ import annotations

from datetime import timedelta

import lxml.html
import pytest
from django.apps import apps
from django.db import models
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from analyzer.text import stems
from crawler.canonical import canonicalize, irrelevant_parameters
from crawler.hiddenweb.schedule import quiet_rounds, search_due
from crawler.models import CrawlRun, Page, Site, SiteLesson
from crawler.models.hiddenweb import RunSearch
from crawler.models.lessons import link_for_people
from crawler.models.sitesearch import SiteSearch
from crawler.render import shell
from crawler.render.shell import (
    LOAD_MORE,
    SCRIPT_NAVIGATION,
    RenderMemory,
    script_additions,
)
from crawler.run.frontier import Frontier
from crawler.run.lessons import Lessons, respelt_offer
from crawler.run.loop import crawl
from crawler.run.watch import watch
from crawler.strategies.xcrawl.querygen import QueryPlanner, topic_tokens
from crawler.topic import Topic, register_topic_provider
from tests.crawler.hiddenweb_site import DeepWebSite, build_stories
from tests.crawler.servers import Response, SiteServer
from tests.crawler.sites import DynamicRoutes, article, make_site


@pytest.fixture(autouse=True)
def _no_hidden_web(settings):
    settings.DEEPWEB_ENABLED = False


@pytest.fixture
def site(db):
    return Site.objects.create(name="Example", root_url="https://example.com/")


# --- Parameters that change nothing ----------------------------------------------------------


def test_a_parameter_the_canonical_leaves_out_changes_nothing_but_a_page_number_does():
    assert irrelevant_parameters("http://h/a/?ref=s-1-3", "http://h/a/") == {"ref"}
    assert irrelevant_parameters("http://h/a/?id=4&ref=x", "http://h/a/?id=4") == {"ref"}
    assert irrelevant_parameters("http://h/list/?page=3", "http://h/list/") == frozenset()
    assert irrelevant_parameters("http://h/a/?ref=x", "http://h/b/") == frozenset()
    assert irrelevant_parameters("http://h/a/?id=4&ref=x", "http://h/a/?id=5") == frozenset()


def test_a_parameter_is_learnt_once_pages_of_two_paths_show_it_and_never_an_id():
    lessons = Lessons()
    assert not lessons.learn_parameters("http://h/a/?ref=1", "http://h/a/")
    assert not lessons.learn_parameters("http://h/a/?ref=2", "http://h/a/")  # the same page
    assert lessons.learn_parameters("http://h/b/?ref=3", "http://h/b/")
    assert lessons.canonicalize("http://h/c/?ref=9&x=1") == "http://h/c/?x=1"
    for url in ("http://h/item?id=1", "http://h/other?id=2", "http://h/s?q=a", "http://h/t?q=b"):
        lessons.learn_parameters(url, url.split("?")[0])
    assert lessons.irrelevant == {"ref"}


def test_learnt_parameters_join_the_tracking_parameters_a_url_loses():
    url = "http://h/a/?ref=search-1-3&utm_source=x&page=2"
    assert canonicalize(url) == "http://h/a/?page=2&ref=search-1-3"
    assert canonicalize(url, frozenset({"ref"})) == "http://h/a/?page=2"


@pytest.mark.django_db
def test_a_link_people_receive_drops_the_parameters_its_site_taught(site):
    SiteLesson.objects.create(site=site, kind=SiteLesson.Kind.PARAMETER, key="ref")
    url = "https://example.com/a/?ref=search-1-3&utm_medium=mail&id=7"
    assert link_for_people(url, site.id) == "https://example.com/a/?id=7"
    assert link_for_people(url) == "https://example.com/a/?id=7&ref=search-1-3"
    SiteLesson.objects.update(reopened_at=timezone.now())
    assert link_for_people(url, site.id) == "https://example.com/a/?id=7&ref=search-1-3"
    assert link_for_people("not a url", site.id) == "not a url"


def results_site(server: SiteServer, stories: int = 6) -> None:
    """A home page linking a results page whose links carry ?ref=; articles name their
    clean URL in rel=canonical."""

    def build(path: str) -> Response | None:
        if path == "/":
            return Response(article("Home", "Welcome to the paper.", [("/results/", "Results")]))
        if path == "/results/":
            links = [(f"/story/s{i}/?ref=results-1-{i}", f"Story {i}") for i in range(stories)]
            return Response(article("Results", "What we found for you.", links))
        if path.startswith("/story/s"):
            slug = path.split("?")[0].strip("/").split("/")[-1]
            canonical = f"<link rel='canonical' href='/story/{slug}/'>"
            return Response(article(f"Story {slug}", "A story worth a clip.", [], canonical))
        return None

    server.routes = DynamicRoutes(build)


@pytest.mark.django_db
def test_result_links_with_a_tracking_parameter_are_stored_and_fetched_clean():
    with SiteServer() as server:
        results_site(server)
        site = make_site(server, page_budget=40)
        run = crawl(site, strategy="bfs", render_shells="off")
        requested = server.paths()
    tracked = [p for p in requested if "ref=" in p]
    assert 1 <= len(tracked) <= 2, requested  # the pages that proved the parameter
    assert len([p for p in requested if p.startswith("/story/")]) == 6  # each story once
    stored = Page.objects.filter(site=site, versions__isnull=False).values_list("url", flat=True)
    assert {server.url(f"/story/s{i}/") for i in range(6)} <= set(stored)
    assert not [url for url in stored if "ref=" in url]
    assert SiteLesson.objects.keys(site.id, SiteLesson.Kind.PARAMETER) == {"ref"}
    assert list(run.learned["irrelevant_parameters"]) == ["ref"]
    assert run.duplicate_fetches == 0


@pytest.mark.django_db
def test_a_url_spelt_with_a_learnt_parameter_is_never_handed_out_again():
    with SiteServer() as server:
        results_site(server)
        site = make_site(server, page_budget=40)
        SiteLesson.objects.create(site=site, kind=SiteLesson.Kind.PARAMETER, key="ref")
        crawl(site, strategy="bfs", render_shells="off")
        requested = server.paths()
    assert not [p for p in requested if "ref=" in p]
    assert not Page.objects.filter(site=site, url__contains="ref=").exists()


# --- Traps closed for good -------------------------------------------------------------------


def calendar_site(server: SiteServer) -> None:
    def build(path: str) -> Response | None:
        if path == "/":
            return Response(
                article("Home", "News.", [("/events/?day=1", "Events"), ("/story/a/", "A")])
            )
        if path.startswith("/events/"):
            day = int(path.split("day=")[1])
            return Response(
                "<!doctype html><html><body><h1>Events</h1><p>Nothing on this day.</p>"
                f"<a href='/events/?day={day + 1}'>Next day</a></body></html>"
            )
        if path == "/story/a/":
            return Response(article("A", "A story."))
        return None

    server.routes = DynamicRoutes(build)


def time_passes(site, by: timedelta = timedelta(minutes=20)) -> None:
    """Make the site's pages as old as if `by` had passed: every revisit is due."""
    Page.objects.filter(site=site).exclude(last_fetched_at=None).update(
        last_fetched_at=F("last_fetched_at") - by, next_visit_at=F("next_visit_at") - by
    )


@pytest.mark.django_db
def test_a_trap_shape_stays_closed_in_later_runs_until_an_admin_reopens_it(settings):
    settings.CRAWLER_RUN_CONCURRENCY = 1
    with SiteServer() as server:
        calendar_site(server)
        site = make_site(server, page_budget=60)
        first = crawl(site, strategy="bfs", render_shells="off")
        assert first.learned["closed_shapes"] == ["/events/?day=*"]
        assert SiteLesson.objects.keys(site.id, SiteLesson.Kind.TRAP) == {"/events/?day=*"}
        before = len(server.paths())
        time_passes(site)
        crawl(site, strategy="bfs", render_shells="off")
        again = server.paths()[before:]
        assert again and not [p for p in again if p.startswith("/events/")], again
        SiteLesson.objects.filter(site=site).update(reopened_at=timezone.now())
        before = len(server.paths())
        time_passes(site)
        crawl(site, strategy="bfs", render_shells="off")
        reopened = server.paths()[before:]
    assert [p for p in reopened if p.startswith("/events/")]


@pytest.mark.django_db
def test_a_watch_never_asks_a_closed_shape(settings):
    settings.CRAWLER_RUN_CONCURRENCY = 1
    with SiteServer() as server:
        calendar_site(server)
        site = make_site(server, page_budget=60)
        crawl(site, strategy="bfs", render_shells="off")
        events = Page.objects.filter(site=site, url__contains="/events/").exclude(
            last_fetched_at=None
        )
        Page.objects.filter(id__in=events.values("id")).update(kind=Page.Kind.HUB)
        time_passes(site)
        before = len(server.paths())
        result = watch(site.id)
        asked = server.paths()[before:]
    assert result.hubs > 0 and asked
    assert not [p for p in asked if p.startswith("/events/")], asked


@pytest.mark.django_db
def test_the_admin_shows_a_runs_lessons_and_reopens_them(staff_client):
    with SiteServer() as server:
        calendar_site(server)
        site = make_site(server, page_budget=60)
        run = crawl(site, strategy="bfs", render_shells="off")
    html = staff_client.get(reverse("admin:crawler_crawlrun_change", args=[run.pk])).content
    document = lxml.html.document_fromstring(html.decode())
    economy = document.xpath("string(//div[contains(@class, 'field-economy')])")
    assert "URL shapes closed: /events/?day=*" in " ".join(economy.split())
    listing = staff_client.get(reverse("admin:crawler_sitelesson_changelist")).content.decode()
    assert "/events/?day=*" in listing
    lesson = SiteLesson.objects.get(site=site, kind=SiteLesson.Kind.TRAP)
    staff_client.post(
        reverse("admin:crawler_sitelesson_changelist"),
        {"action": "reopen", "_selected_action": [lesson.pk]},
    )
    lesson.refresh_from_db()
    assert lesson.reopened_at is not None
    assert SiteLesson.objects.keys(site.id, SiteLesson.Kind.TRAP) == frozenset()


# --- Searches revisited by their change rate -------------------------------------------------


@pytest.mark.django_db
def test_a_search_that_found_nothing_new_is_left_alone_longer_each_time(site):
    form = SiteSearch.objects.create(site=site, action="https://example.com/search")
    now = timezone.now()
    form.last_submitted_at = now - timedelta(minutes=15)
    assert search_due(form, site, now)  # searched once: the site's minimum interval
    for new in (5, 0, 0):
        run = CrawlRun.objects.create(site=site, strategy="bfs", finished_at=now)
        RunSearch.objects.create(site=site, run=run, form=form, query="q", new_articles=new)
    assert quiet_rounds(form) == 2
    assert site.min_page_revisit * 4 > timedelta(minutes=15)
    assert not search_due(form, site, now)
    run = CrawlRun.objects.create(site=site, strategy="bfs", finished_at=now)
    RunSearch.objects.create(site=site, run=run, form=form, query="q", new_articles=1)
    assert quiet_rounds(form) == 0 and search_due(form, site, now)


def all_moments_older(by: timedelta) -> None:
    """Make every stored moment of the crawler older by `by`, as if that time had passed."""
    for model in apps.get_app_config("crawler").get_models():
        for field in model._meta.get_fields():
            if isinstance(field, models.DateTimeField) and not field.auto_now:
                model.objects.filter(**{f"{field.name}__isnull": False}).update(
                    **{field.name: F(field.name) - by}
                )


def searches_asked(requests) -> list[str]:
    """Return the searches among requests: queries and posts to the search pages."""
    return [
        r.path
        for r in requests
        if r.path.startswith("/search") and ("?" in r.path or r.method == "POST")
    ]


@pytest.mark.django_db
def test_a_revisit_with_nothing_published_asks_each_search_one_keyword_then_none(settings):
    settings.DEEPWEB_ENABLED = True
    terms = ["election", "vaccine", "orchestra"]
    register_topic_provider(
        lambda s: Topic(terms=dict.fromkeys(terms, 1.0), queries=dict.fromkeys(terms, 1.0))
    )
    with DeepWebSite(build_stories(30)) as web:
        site = Site.objects.create(
            name="Archive", root_url=web.url("/"), allow_private_network=True, crawl_delay=0,
            page_budget=300, min_page_revisit=timedelta(minutes=10),
        )  # fmt: skip
        first = crawl(site, render_shells="off")
        searched = RunSearch.objects.filter(run=first).count()
        assert searched >= len(terms)
        all_moments_older(timedelta(minutes=15))
        asked = len(web.requests)
        second = crawl(site, render_shells="off")
        rows = RunSearch.objects.filter(run=second)
        forms = set(rows.values_list("form_id", flat=True))
        assert forms and rows.count() == len(forms)  # one keyword per form
        assert rows.filter(new_articles__gt=0).count() == 0
        revisit = searches_asked(web.requests[asked:])
        assert 0 < len(revisit) < searched
        asked = len(web.requests)
        third = crawl(site, render_shells="off")  # nothing new last time: not due yet
        assert not RunSearch.objects.filter(run=third).exists()
        assert not searches_asked(web.requests[asked:])


def test_unrelated_keywords_never_share_a_query():
    queries = {"heat pumps": 1.0, "wildfire": 1.0, "rail strike": 1.0}
    terms = {stem: 1.0 for q in queries for stem in stems(q.split())}
    tokens = topic_tokens(Topic(terms=terms, queries=queries), [])
    planner = QueryPlanner(tokens, max_length=3, measure=False)
    sent = []
    while (query := planner.next_query()) is not None:
        sent.append(query.text)
    groups = [set(stems(q.split())) for q in queries]
    for text in sent:
        words = set(stems(text.replace('"', "").split()))
        assert any(words <= group for group in groups), text
    assert "wildfire" in sent and "heat pumps" in sent


# --- Rendering decided by what scripts add ---------------------------------------------------

MENU = (
    "<nav><ul id='menu'><li><a href='/a/'>A</a></li><li><a href='/b/'>B</a></li></ul></nav>"
    "<script>document.addEventListener('DOMContentLoaded', function () {"
    " var li = document.createElement('li'); li.innerHTML = '<a href=\"/js/\">JS</a>';"
    " document.getElementById('menu').appendChild(li); });</script>"
)


def test_a_script_extending_a_menu_that_holds_links_may_add_links():
    html = article("Home", "Plenty of text here.") + MENU
    reason, key = script_additions(html)
    assert reason == SCRIPT_NAVIGATION and key
    tracking = article("Home", "Text.", [("/a/", "A")]) + "<script>window.dataLayer = [];</script>"
    assert script_additions(tracking) == ("", "")
    more = article("List", "Text.") + "<button>Load more</button><script src='/l.js'></script>"
    assert script_additions(more) == (LOAD_MORE, "")


def test_a_huge_or_scriptless_page_is_never_parsed_to_probe_it(monkeypatch):
    """The probe runs in the crawl's thread, outside the analysers' caps: a hostile page of
    a million attributes must cost no parse at all."""
    parsed: list[int] = []
    real = shell._parse
    monkeypatch.setattr(shell, "_parse", lambda html: parsed.append(len(html)) or real(html))
    hostile = "<html><body><div" + " a=v" * 1_000_000 + ">x</div>" + MENU + "</body></html>"

    assert script_additions(hostile) == ("", "")
    assert script_additions(article("Home", "Plain text.", [("/a/", "A")])) == ("", "")
    assert parsed == []
    assert script_additions(article("Home", "Plenty of text here.") + MENU)[0]
    assert len(parsed) == 1


def test_a_shape_is_learnt_when_its_scripts_add_links_of_its_own_and_a_menu_once():
    memory = RenderMemory(budget=3)
    home = (article("Home", "Text.") + MENU).encode()
    assert memory.probe("http://h/", home) == SCRIPT_NAVIGATION
    assert memory.probe("http://h/about/", home) == ""  # the same menu script
    memory.compare(
        "http://h/", home, home.replace(b"</ul>", b"<li><a href='/js/'>JS</a></li></ul>")
    )
    assert memory.learnt == {}  # a menu on every page: rendered once a run, no shape
    desk = article("Desk", "Text.") + "<button>Load more</button><script src='/l.js'></script>"
    assert memory.probe("http://h/desk/climate/", desk.encode()) == LOAD_MORE
    grown = desk.replace("</article>", "<a href='/desk/story/1/'>1</a></article>")
    assert memory.compare("http://h/desk/climate/", desk.encode(), grown.encode()) == {
        "http://h/desk/story/1/"
    }
    assert list(memory.learnt) == ["/desk/*/"]
    assert memory.probe("http://h/desk/markets/", desk.encode()) == "shape learnt to need it"
    assert memory.probe("http://h/other/x-1/", desk.encode()) == LOAD_MORE
    assert memory.probe("http://h/third/y-2/", desk.encode()) == ""  # the budget is spent


@pytest.mark.django_db
@pytest.mark.browser
def test_sections_a_script_adds_to_a_full_menu_are_crawled_without_marking_the_site():
    home = (
        "<!doctype html><html><head><title>Home</title></head><body>"
        + MENU
        + "<main><p>Welcome. Plenty of words on the home page of this small paper.</p></main>"
        "</body></html>"
    )
    with SiteServer() as server:
        server.html("/", home)
        for path in ("/a/", "/b/", "/js/"):
            server.html(path, article(path, "A section page with its own words."))
        site = make_site(server)
        run = crawl(site, strategy="bfs")
    crawled = set(
        Page.objects.filter(site=site, versions__isnull=False).values_list("url", flat=True)
    )
    assert server.url("/js/") in crawled
    assert 1 <= run.rendered <= 2


@pytest.mark.django_db
def test_a_candidate_offered_before_its_parameter_was_learnt_is_fetched_clean(site):
    frontier = Frontier(site)
    offered = "https://example.com/story/a/?ref=search-1-1"
    frontier.add([offered], depth=2)
    frontier.lessons.irrelevant = frozenset({"ref"})  # learnt meanwhile
    assert respelt_offer(frontier, [offered, offered]) == ["https://example.com/story/a/"]
    assert Page.objects.get(site=site, url="https://example.com/story/a/").depth == 2
    assert offered in frontier.taken
    frontier.take(["https://example.com/story/a/"])
    assert respelt_offer(frontier, [offered]) == []  # fetched once in a run
