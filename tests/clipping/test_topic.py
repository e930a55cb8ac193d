"""The crawler's topic: the union of the stemmed terms of active lists, with site: lines respected."""

from __future__ import annotations

import pytest

from clipping.topic import topic_for_site
from crawler.topic import get_topic
from tests.factories import make_list, make_site

pytestmark = pytest.mark.django_db


def test_the_topic_is_the_union_of_stemmed_terms_of_active_lists(alice, bob):
    site = make_site()
    make_list(alice, "Energy", "subsidies\nsolar panels\n-sports")
    make_list(bob, "Money", 'subsidy\n"interest rates"')
    make_list(bob, "Paused", "volcano", active=False)

    topic = get_topic(site)  # through the provider clipping registered with the crawler

    assert set(topic.terms) == {"subsidi"}
    assert ("solar", "panel") in topic.phrases and ("interest", "rate") in topic.phrases
    assert "sport" not in topic.terms and "volcano" not in topic.terms
    assert topic.score(["subsidi"]) > 1.0  # two lists ask for it
    assert topic.language == "en"


def test_site_lines_keep_a_list_out_of_other_sites_topics(alice):
    news = make_site("News", "https://news.example.com/")
    other = make_site("Other", "https://other.example.org/")
    make_list(alice, "Only news", "subsidy\nsite:example.com")
    make_list(alice, "Not news", "strike\n-site:news.example.com")

    assert set(topic_for_site(news).terms) == {"subsidi"}
    assert set(topic_for_site(other).terms) == {"strike"}


def test_a_changed_list_changes_the_cached_topic(alice):
    site = make_site()
    energy = make_list(alice, "Energy", "subsidy")
    assert set(topic_for_site(site).terms) == {"subsidi"}

    energy.terms = "tariff"
    energy.save()

    assert set(topic_for_site(site).terms) == {"tariff"}


def test_the_keyword_matcher_tells_which_texts_hold_a_keyword_read_on_the_site(alice):
    from crawler.topic import keyword_matcher
    from tests.factories import active_index

    news = make_site("News", "https://news.example.com/")
    other = make_site("Other", "https://other.example.org/")
    make_list(alice, "Harbour", "bridge\nsite:news.example.com")
    make_list(alice, "Coffee", "espresso")
    active_index()
    texts = ["Harbour bridges reopen", "Weather today", "Two espressos for the office"]
    matches = keyword_matcher(news, get_topic(news))
    assert matches(texts) == [True, False, True]  # forms of the words
    assert keyword_matcher(other, get_topic(other))(texts) == [False, False, True]  # site:
    assert matches(["Weather today", "Sport"]) == [False, False]


def test_the_keyword_matcher_finds_a_keywords_synonyms_as_the_index_does(alice):
    from crawler.topic import keyword_matcher
    from tests.factories import active_index

    news = make_site("News", "https://news.example.com/")
    make_list(alice, "Cars", "car")
    active_index()
    matches = keyword_matcher(news, get_topic(news))
    assert matches(["Automobile sales fall again", "Rail strike ends"]) == [True, False]
