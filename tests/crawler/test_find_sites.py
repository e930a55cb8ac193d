"""Finding new sites: a SearxNG-like engine on 127.0.0.1 answers, found pages are validated.

Accepted pages propose their sites (ProposedSite rows); nothing is crawled before approval.
The admins' action runs the same search as a Celery task on a worker.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.urls import reverse

from analyzer.text import stems
from crawler.fetch import SiteRules
from crawler.models import Page, Site
from crawler.models.xcrawl import ProposedSite, SearchEngine
from crawler.strategies.xcrawl.discover import find_sites, find_sites_with
from crawler.topic import Topic, register_topic_provider
from tests.crawler.servers import FakeSearxng, Response, SiteServer
from tests.crawler.sites import article
from tests.servers import queue_worker

LOCAL = SiteRules(crawl_delay=0, allow_private_network=True)
TOPIC_WORDS = ["solar", "subsidy", "household", "panel"]
SOLAR = "Households get a solar subsidy for every panel on the roof."


@dataclass
class Web:
    """The engine and the sites its results point to, all on 127.0.0.1."""

    engine: FakeSearxng
    energy: SiteServer  # two articles on the topic: proposed
    cooking: SiteServer  # a page off the topic: not proposed
    monitored: SiteServer  # on the topic, but already a Site: not proposed

    def hits(self) -> list[dict[str, object]]:
        urls = [
            self.energy.url("/solar"),
            self.cooking.url("/bread"),
            self.energy.url("/panels"),
            self.monitored.url("/roofs"),
        ]
        return [{"url": url, "title": "A result", "content": "..."} for url in urls]


@pytest.fixture
def web() -> Iterator[Web]:
    register_topic_provider(lambda site: Topic(terms=dict.fromkeys(stems(TOPIC_WORDS), 1.0)))
    with (
        SiteServer() as engine,
        SiteServer() as energy,
        SiteServer() as cooking,
        SiteServer() as monitored,
    ):
        energy.html("/solar", article("Solar subsidy doubles", SOLAR))
        energy.html("/panels", article("Which panel to buy", SOLAR))
        cooking.html("/bread", article("Sourdough at home", "Knead the dough and wait."))
        monitored.html("/roofs", article("Roofs and panels", SOLAR))
        found = Web(FakeSearxng(engine), energy, cooking, monitored)
        found.engine.default = found.hits()
        yield found


def search_engine(web: Web, **fields: object) -> SearchEngine:
    return SearchEngine.objects.create(name="Local", base_url=web.engine.server.url("/"), **fields)


@pytest.mark.django_db
def test_pages_accepted_by_the_validator_propose_their_site_once(web):
    Site.objects.create(name="Known", root_url=web.monitored.url("/"))
    engine = search_engine(web, results_per_query=5)

    discovery = find_sites(engine, rules=LOCAL)

    proposal = ProposedSite.objects.get()
    assert discovery.proposed == [proposal]
    assert proposal.root_url == web.energy.url("/")
    assert proposal.status == ProposedSite.Status.PENDING
    assert proposal.engine == engine
    assert proposal.authority_urls == [web.energy.url("/solar"), web.energy.url("/panels")]
    assert proposal.queries and set(proposal.queries) <= set(web.engine.queries())
    assert discovery.checked == 4  # each result fetched once, however many queries found it
    assert web.monitored.paths() == ["/robots.txt", "/roofs"]  # validated, then left alone
    assert not Page.objects.exists()  # nothing is crawled before an admin approves
    engine.refresh_from_db()
    assert engine.last_used_at is not None and engine.last_error == ""


@pytest.mark.django_db
def test_a_later_search_adds_new_authorities_to_the_pending_proposal(web):
    engine = search_engine(web, results_per_query=5)
    find_sites(engine, rules=LOCAL)
    web.energy.html("/batteries", article("Batteries for solar households", SOLAR))
    web.engine.default = [{"url": web.energy.url("/batteries")}, *web.hits()]

    find_sites(engine, rules=LOCAL)

    proposal = ProposedSite.objects.get(root_url=web.energy.url("/"))
    assert proposal.authority_urls == [
        web.energy.url("/solar"),
        web.energy.url("/panels"),
        web.energy.url("/batteries"),
    ]


@pytest.mark.django_db
def test_an_engine_that_fails_keeps_its_error_and_proposes_nothing(web):
    web.engine.server.route("/search", Response("overloaded", status=503))
    engine = search_engine(web)

    assert find_sites(engine, rules=LOCAL).proposed == []

    engine.refresh_from_db()
    assert "503" in engine.last_error
    assert not ProposedSite.objects.exists()


@pytest.mark.django_db
def test_a_disabled_or_deleted_engine_is_not_asked(web):
    disabled = search_engine(web, enabled=False)

    assert find_sites_with(disabled.id) is None
    assert find_sites_with(disabled.id + 1) is None
    assert web.engine.queries() == []


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_admin_action_runs_the_search_on_a_worker_which_refuses_private_addresses(
    web, staff_client
):
    engine = search_engine(web)
    disabled = search_engine(web, enabled=False)

    with queue_worker("crawler.tasks.find_sites", "find-sites-test"):
        response = staff_client.post(
            reverse("admin:crawler_searchengine_changelist"),
            {"action": "find_sites_now", "_selected_action": [engine.pk, disabled.pk]},
            follow=True,
        )
        assert "Queued a search for new sites on 1 engine(s)" in response.content.decode()
        deadline = time.monotonic() + 60
        while SearchEngine.objects.get(pk=engine.pk).last_used_at is None:
            assert time.monotonic() < deadline, "the worker never ran the search"
            time.sleep(0.2)

    assert web.engine.queries()  # the worker asked the engine ...
    # ... and, with the default rules, never fetched a result on a private address.
    assert web.energy.requests == [] and web.cooking.requests == []
    assert not ProposedSite.objects.exists()
    assert SearchEngine.objects.get(pk=disabled.pk).last_used_at is None
