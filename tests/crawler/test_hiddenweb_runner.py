"""The hidden-web pass on a real local site: found articles, Smax, POST, browser, robots."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from datetime import timedelta
from urllib.parse import parse_qsl

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from crawler import topic as topic_module
from crawler.canonical import canonicalize
from crawler.conf import deepweb_settings
from crawler.hiddenweb.runner import search_now
from crawler.models import Page, Site
from crawler.models.hiddenweb import FormQuery
from crawler.models.sitesearch import SiteSearch
from crawler.run.loop import crawl
from crawler.topic import Topic, register_topic_provider
from tests.crawler.hiddenweb_site import DeepWebSite, build_stories

pytestmark = pytest.mark.django_db

TERMS = ["election", "vaccine", "orchestra"]


def topic_of(terms: list[str]) -> Topic:
    return Topic(terms={t: 1.0 for t in terms}, queries={t: 1.0 for t in terms})


def make_site(web: DeepWebSite, **values) -> Site:
    fields = {
        "name": "Archive",
        "root_url": web.url("/"),
        "allow_private_network": True,
        "crawl_delay": 0,
        "page_budget": 500,
    }
    return Site.objects.create(**(fields | values))


def fetched_urls(site: Site) -> set[str]:
    return set(Page.objects.filter(site=site, versions__isnull=False).values_list("url", flat=True))


def found(web: DeepWebSite, site: Site, terms: list[str]) -> tuple[int, int]:
    stored = fetched_urls(site)
    matching = web.matching(terms)
    return sum(1 for s in matching if web.url(s.path) in stored), len(matching)


@pytest.mark.slow
def test_a_run_finds_and_stores_every_hidden_article_matching_the_keywords(settings):
    settings.DEEPWEB_SMAX = len(TERMS)  # the keywords as written, no inflections
    with DeepWebSite(build_stories(60)) as web:
        site = make_site(web)
        report = search_now(site, topic=topic_of(TERMS), rng=random.Random(3))
        hits, total = found(web, site, TERMS)
        assert total > 10
        assert hits == total
        get_form = SiteSearch.objects.get(action=web.url("/search"))
        assert get_form.status == SiteSearch.Status.SEARCH
        assert get_form.url_template == web.url("/search?q={query}&section=all&sort=relevance")
        assert (get_form.submissions, get_form.with_results) == (3, 3)
        assert get_form.efficiency == 1.0
        assert len(get_form.empty_signatures) == 2 and get_form.probed_at is not None
        (outcome,) = [f for f in report.forms if f.action == web.url("/search")]
        assert outcome.submissions == 3 and outcome.efficiency == 1.0
        searched = [dict(parse_qsl(r.query)).get("q") for r in web.requests if r.path == "/search"]
        assert {"election", "vaccine", "orchestra"} <= set(searched)
        # Result pages sit one link below the home page; no state was touched.
        depths = set(
            Page.objects.filter(url__contains="/articles/").values_list("depth", flat=True)
        )
        assert 1 in depths and depths <= {1, 2}  # the advanced search page is one link down
        assert web.posts("/account/login") == web.posts("/newsletter") == 0


def test_empty_answers_lower_the_submission_efficiency(settings):
    settings.DEEPWEB_SMAX = 2
    with DeepWebSite(build_stories(40)) as web:
        site = make_site(web)
        search_now(site, topic=topic_of(["election", "zeppelin"]), rng=random.Random(1))
        form = SiteSearch.objects.get(action=web.url("/search"))
        assert (form.submissions, form.with_results) == (2, 1)
        assert form.efficiency == 0.5
        assert FormQuery.objects.get(form=form, keyword="zeppelin").last_had_results is False
        assert FormQuery.objects.get(form=form, keyword="election").last_had_results is True


@pytest.mark.slow
def test_smax_caps_submissions_and_the_next_run_tries_the_others_first(settings):
    settings.DEEPWEB_SMAX = 2
    with DeepWebSite(build_stories(40)) as web:
        site = make_site(web)
        first = search_now(site, topic=topic_of(TERMS))
        assert [f.submissions for f in first.forms if f.action == web.url("/search")] == [2]
        form = SiteSearch.objects.get(action=web.url("/search"))
        tried = set(FormQuery.objects.filter(form=form).values_list("keyword", flat=True))
        assert len(tried) == 2
        search_now(site, topic=topic_of(TERMS))
        queries = FormQuery.objects.filter(form=form)
        assert set(queries.values_list("keyword", flat=True)) == set(TERMS)
        assert sorted(queries.values_list("submissions", flat=True)) == [1, 1, 2]


def test_a_keyword_that_keeps_bringing_no_results_falls_behind_the_productive_ones(settings):
    keywords = ["election", "vaccine", "qqzzvv"]
    with DeepWebSite(build_stories(40)) as web:
        site = make_site(web)
        search_now(site, topic=topic_of(keywords))
        form = SiteSearch.objects.get(action=web.url("/search"))
        # Its record so far: three "no results" answers, and the stalest of the three.
        empty = FormQuery.objects.get(form=form, keyword="qqzzvv")
        assert empty.with_results == 0
        FormQuery.objects.filter(id=empty.id).update(
            submissions=3, last_submitted_at=empty.last_submitted_at - timedelta(days=2)
        )
        settings.DEEPWEB_SMAX = 2
        search_now(site, topic=topic_of(keywords))
        sent = FormQuery.objects.filter(form=form, keyword__in=keywords)
        queries = dict(sent.values_list("keyword", "submissions"))
    assert queries == {"election": 2, "vaccine": 2, "qqzzvv": 3}


@pytest.mark.browser
def test_the_advanced_post_form_is_labelled_visually_and_submitted_by_post():
    with DeepWebSite(build_stories(40)) as web:
        site = make_site(web, root_url=web.url("/search/advanced"))
        report = search_now(site, topic=topic_of(["vaccine"]), rng=random.Random(2))
        form = SiteSearch.objects.get(action=web.url("/search/advanced"))
        assert form.labels == {"w": "Words", "sec": "Section", "order": "Order"}
        assert form.method == "POST" and form.query_arg == "w"
        bodies = [dict(parse_qsl(r.body)) for r in web.requests if r.method == "POST"]
        assert {"w": "vaccine", "sec": "any", "order": "best"} in bodies
        assert form.with_results == 1
        hits, total = found(web, site, ["vaccine"])
        assert hits == total > 0
        assert report.requests >= 4  # the page, two probes, the submission


@pytest.mark.browser
def test_a_post_form_that_needs_its_script_is_submitted_in_chromium(settings):
    settings.DEEPWEB_RESULT_DEPTH = 0  # rendering every found article is the crawl's job
    settings.DEEPWEB_SMAX = 1  # the keyword as written, no other forms of it
    with DeepWebSite(build_stories(12), js_token=True) as web:
        plain = make_site(web, root_url=web.url("/search/advanced"))
        search_now(plain, topic=topic_of(["vaccine"]), rng=random.Random(2))
        by_http = SiteSearch.objects.get(site=plain, action=web.url("/search/advanced"))
        assert (by_http.submissions, by_http.with_results) == (1, 0)  # 403: no token

        browser = make_site(
            web, name="Archive (browser)", root_url=web.url("/search/advanced?"), needs_browser=True
        )
        search_now(browser, topic=topic_of(["vaccine"]), rng=random.Random(2))
        by_browser = SiteSearch.objects.get(site=browser, action=web.url("/search/advanced"))
        assert by_browser.uses_browser
        assert by_browser.with_results == 1
        tokens = [dict(parse_qsl(r.body)).get("token") for r in web.requests if r.method == "POST"]
        assert "js-42" in tokens


def test_robots_txt_that_forbids_search_is_obeyed():
    with DeepWebSite(build_stories(20), robots="User-agent: *\nDisallow: /search\n") as web:
        site = make_site(web)
        report = search_now(site, topic=topic_of(TERMS))
        assert web.hits("/search") == 0
        assert report.with_results == 0


def test_an_unreadable_home_page_is_skipped_without_error():
    with DeepWebSite(build_stories(5)) as web:
        site = make_site(web, root_url=web.url("/missing"))
        report = search_now(site, topic=topic_of(TERMS))
        assert report.forms == [] and report.result_urls == []


@pytest.mark.slow
def test_second_level_urls_are_filtered_by_the_keyword_argument_then_deduplicated(settings):
    settings.DEEPWEB_SMAX = len(TERMS)
    with DeepWebSite(build_stories(60)) as web:
        site = make_site(web)
        report = search_now(site, topic=topic_of(TERMS), rng=random.Random(4))
        (outcome,) = [f for f in report.forms if f.action == web.url("/search")]
        assert outcome.second_level_found > outcome.second_level_kept > outcome.second_level_deduped
        asked = [dict(parse_qsl(r.query)) for r in web.requests if r.path == "/search"]
        related = [r for r in asked if r.get("ref") == "related"]
        # What is left are other queries (related searches), fetched once each: sort orders,
        # pages and the tracking argument of the same query were duplicates, and the section
        # facets (selections) only narrow lists that were read whole.
        assert len(related) == outcome.second_level_fetched == outcome.second_level_deduped
        assert len({r["q"] for r in related}) == len(related)
        assert all(r["q"] not in TERMS for r in related)
        assert not any(r.get("ref") in {"sort", "facet"} for r in asked)


@pytest.mark.slow
def test_the_facets_of_a_list_cut_short_are_selections_fetched_once_each(settings):
    settings.DEEPWEB_SMAX = len(TERMS)
    settings.DEEPWEB_RESULT_PAGES = 1  # each list read on its first page only
    with DeepWebSite(build_stories(60)) as web:
        site = make_site(web)
        report = search_now(site, topic=topic_of(TERMS), rng=random.Random(4))
        (outcome,) = [f for f in report.forms if f.action == web.url("/search")]
        asked = [dict(parse_qsl(r.query)) for r in web.requests if r.path == "/search"]
        facets = [r for r in asked if r.get("ref") == "facet"]
        # Every section of a keyword shows on its result page with a count that moves with
        # the keyword: each facet selects other records, and reaches those past the cut.
        assert facets
        assert len({(r["q"], r["section"]) for r in facets}) == len(facets)
        assert all(r["q"] in TERMS and r["section"] != "all" for r in facets)
        assert not any(r.get("ref") == "sort" for r in asked)
        assert outcome.second_level_fetched == outcome.second_level_deduped


@pytest.fixture
def provider():
    """Let a test install a topic provider, putting back the one clipping registered."""
    saved = topic_module._provider
    yield register_topic_provider
    register_topic_provider(saved)


def test_the_keywords_come_from_the_topic_provider_and_nothing_happens_without_any(
    provider, settings
):
    settings.DEEPWEB_SMAX = 1
    with DeepWebSite(build_stories(20)) as web:
        site = make_site(web)
        provider(lambda s: topic_of(["election"]))
        report = search_now(site)
        assert [s.query for f in report.forms for s in f.searches] == ["election", "election"]
        provider(None)
        requests = len(web.requests)
        report = search_now(site)  # no provider: an empty topic, no keywords to search
        assert report.skipped == "no keywords" and report.submissions == 0
        assert len(web.requests) == requests


def test_the_pass_stops_sending_at_its_deadline(settings):
    settings.CRAWLER_RUN_SECONDS = 0  # the pass gets half of nothing
    with DeepWebSite(build_stories(20)) as web:
        report = search_now(make_site(web), topic=topic_of(TERMS))
        assert web.requests == [] and report.requests == 0
        assert report.submissions == 0 and report.followed == 0


def test_a_crawl_run_searches_the_forms_and_stores_the_hidden_articles(provider):
    with DeepWebSite(build_stories(40)) as web:
        site = make_site(web)
        provider(lambda s: topic_of(["election"]))
        run = crawl(site, render_shells="off")
        hits, total = found(web, site, ["election"])
        assert hits == total > 0
        assert run.fetched >= total


def test_the_pass_can_be_switched_off(settings):
    settings.DEEPWEB_ENABLED = False
    with DeepWebSite(build_stories(5)) as web:
        report = search_now(make_site(web), topic=topic_of(TERMS))
        assert report.skipped == "disabled" and web.requests == []


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEEPWEB_RANKING", "median"),
        ("DEEPWEB_EMPTY_THRESHOLD", 1.5),
        ("DEEPWEB_SMAX", 0),
        ("DEEPWEB_TIME_SHARE", 0.0),
    ],
)
def test_unworkable_settings_are_refused_clearly(settings, name, value):
    setattr(settings, name, value)
    with pytest.raises(ImproperlyConfigured, match=name):
        deepweb_settings()


def test_the_pass_stops_sending_when_its_time_runs_out_midway():
    with DeepWebSite(build_stories(40)) as web:
        site = make_site(web)

        def clock() -> float:  # time is up once the site has answered one real search
            return 1.0 if any("q=election" in r.query for r in web.requests) else 0.0

        report = search_now(site, topic=topic_of(TERMS), deadline=0.5, clock=clock)
        searches = [dict(parse_qsl(r.query)).get("q") for r in web.requests if r.path == "/search"]
        assert len(searches) == 3 and searches[-1] == "election"  # two probes, one submission
        assert report.submissions == 1 and report.with_results == 1
        assert report.followed == 0
        assert not any(r.path.startswith("/articles/") for r in web.requests)
        # What the one submission found waits in the frontier for the crawl to fetch.
        waiting = Page.objects.filter(site=site, url__in=report.result_urls)
        assert report.result_urls and waiting.count() == len(report.result_urls)
        assert not waiting.exclude(last_fetched_at=None).exists()


def test_a_crawl_run_with_no_keywords_sends_nothing_to_any_form(provider):
    with DeepWebSite(build_stories(20)) as web:
        site = make_site(web)
        provider(lambda s: Topic())  # no keyword list at all
        crawl(site, render_shells="off")
        # The links crawl may read the advanced search page; nothing is ever submitted.
        submitted = [r for r in web.requests if r.query or r.method == "POST"]
        assert submitted == []
        assert not SiteSearch.objects.filter(site=site).exists()
        assert web.hits("/") >= 1  # the crawl itself went on


def test_a_run_searches_its_own_keywords_even_when_another_run_rewrites_the_users_row():
    from crawler.hiddenweb.runner import search_site
    from crawler.hiddenweb.store import sync_keywords
    from crawler.run.fetching import open_backend
    from crawler.run.frontier import Frontier

    with DeepWebSite(build_stories(40)) as web:
        site = make_site(web)
        loop = asyncio.new_event_loop()
        backend = loop.run_until_complete(open_backend(site))
        calls = []

        def call(coroutine):
            calls.append(1)
            if len(calls) == 1:  # another site's run, on another worker, syncs its keywords
                sync_keywords({"marathon": 1.0, "tennis": 1.0})
            return loop.run_until_complete(coroutine)

        try:
            report = search_site(
                site, Frontier(site), call=call, backend=backend, topic=topic_of(["vaccine"])
            )
        finally:
            loop.run_until_complete(backend.aclose())
            loop.close()
        searched = {dict(parse_qsl(r.query)).get("q") for r in web.requests if r.path == "/search"}
        assert "vaccine" in searched
        assert not searched & {"marathon", "tennis"}
        assert {s.keyword for f in report.forms for s in f.searches} == {"vaccine"}


def test_a_search_the_pass_sent_is_not_sent_again_by_xcrawl_in_the_same_run(provider):
    with DeepWebSite(build_stories(40)) as web:
        site = make_site(web, strategy=Site.Strategy.XCRAWL)
        provider(lambda s: topic_of(["election"]))
        crawl(site, render_shells="off")
        sent = [
            canonicalize(web.url(f"{r.path}?{r.query}"))
            for r in web.requests
            if r.method == "GET" and r.path == "/search" and r.query
        ]
    # The pass searched the keyword; xCrawl's site search generates it too (its first
    # query is the topic's word) and leaves it: every search went out once.
    assert any("q=election" in url for url in sent), sent
    assert [url for url, times in Counter(sent).items() if times > 1] == []


@pytest.mark.parametrize("strategy", [Site.Strategy.BFS, Site.Strategy.XCRAWL])
def test_the_pages_the_pass_reads_for_their_forms_are_asked_once_a_run(provider, strategy):
    with DeepWebSite(build_stories(40)) as web:
        site = make_site(web, strategy=strategy)
        provider(lambda s: topic_of(["election"]))
        crawl(site, render_shells="off")
        first = Counter(f"{r.path}?{r.query}" for r in web.requests if r.method == "GET")
        Page.objects.filter(site=site).update(next_visit_at=timezone.now() - timedelta(hours=1))
        before = len(web.requests)
        crawl(site, render_shells="off")
        again = Counter(f"{r.path}?{r.query}" for r in web.requests[before:] if r.method == "GET")
    # The home page's form is read by the pass, and the run stores the page from that answer.
    assert first["/?"] == again["/?"] == 1
    assert [address for address, times in (first | again).items() if times > 1] == []
