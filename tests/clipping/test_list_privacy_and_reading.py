"""A list's site: lines shown, its words kept from sites' search forms when its owner says so,
and clips marked unread again from My clips and the reader."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from analyzer.text import stems
from clipping.models import KeywordList, Match
from clipping.topic import build_topic
from crawler.conf import xcrawl_settings
from crawler.models import Site
from crawler.models.sitesearch import SiteSearch
from crawler.strategies.xcrawl.discover import discovery_topic
from crawler.strategies.xcrawl.strategy import XCrawl
from crawler.topic import register_topic_provider
from tests.factories import make_list, make_match, make_site

pytestmark = pytest.mark.django_db


def test_site_lines_are_shown_among_the_terms(client, alice):
    energy = make_list(alice, "Energy", "solar\nsite:news.example.com\n-site:ads.example.com")
    client.force_login(alice)

    page = client.get(reverse("list_detail", args=[energy.pk])).content.decode()

    assert page.count('data-testid="site-line"') == 2
    assert "<code>site:news.example.com</code>" in page
    assert "only clips from news.example.com and its subdomains" in page
    assert "never clips from ads.example.com or its subdomains" in page


def test_a_private_lists_words_focus_the_crawl_but_reach_no_search(alice, bob):
    make_list(alice, "Health", 'diagnosis\n"rail strike"\nsolar', search_sites=False)
    make_list(bob, "Energy", "solar\nwind")

    topic = build_topic(["news.example.com"])

    assert set(topic.queries) == {"solar", "wind"}
    diagnosis = stems(["diagnosis"], "en")[0]
    assert diagnosis in topic.terms  # still what the crawl looks for
    assert not topic.searchable(diagnosis)
    assert not topic.searchable(" ".join(stems(["rail", "strike"], "en")))
    assert topic.searchable(stems(["solar"], "en")[0])  # bob's list asks for it too

    site = make_site()
    strategy = XCrawl.__new__(XCrawl)
    strategy.config = xcrawl_settings()
    strategy._focus(site, topic)
    searched = {token.text for token in strategy.tokens}
    assert {"solar", "wind"} <= searched
    assert not {"diagnosis", "rail strike"} & searched

    register_topic_provider(lambda site: topic)
    try:
        assert diagnosis not in discovery_topic().terms  # nor a search engine's box
    finally:
        register_topic_provider(None)


def test_the_list_form_says_when_words_are_searched_and_keeps_them_private(client, alice):
    site = make_site()
    SiteSearch.objects.create(
        site=site,
        page_url="https://news.example.com/",
        action="https://news.example.com/search",
        url_template="https://news.example.com/search?q={query}",
        status=SiteSearch.Status.SEARCH,
    )
    client.force_login(alice)

    form = client.get(reverse("list_create")).content.decode()
    assert "1 watched site has a search form" in form
    assert 'name="search_sites"' in form and "checked" in form.split('name="search_sites"')[1][:80]

    client.post(
        reverse("list_create"),
        {"name": "Health", "terms": "diagnosis", "language": "en", "active": "on"},
    )
    health = KeywordList.objects.get(name="Health")
    assert health.search_sites is False  # the box left unticked
    page = client.get(reverse("list_detail", args=[health.pk])).content.decode()
    assert "kept private: its words are never searched on sites" in page
    assert Site.objects.count() == 1


def test_a_read_clip_can_be_marked_unread_from_my_clips(client, alice):
    match = make_match(make_list(alice, "Energy", "subsidies"))
    Match.objects.filter(id=match.id).update(read_at=timezone.now())
    client.force_login(alice)

    page = client.get(reverse("clip_index")).content.decode()
    assert 'data-testid="mark-unread"' in page and "Mark unread" in page
    client.post(reverse("clip_mark_unread", args=[match.clip_id]), {"next": "/clips/"})
    assert Match.objects.get(id=match.id).read_at is None
    page = client.get(reverse("clip_index")).content.decode()
    assert 'data-testid="mark-read"' in page


def test_the_reader_says_mark_unread(client, alice):
    match = make_match(make_list(alice, "Energy", "subsidies"))
    client.force_login(alice)
    page = client.get(reverse("clip_read", args=[match.clip_id])).content.decode()
    assert "Mark unread" in page and "Keep unread" not in page
