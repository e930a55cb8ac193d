"""Entity queries: names recurring on a form's result pages are searched too, within bounds."""

from __future__ import annotations

import pytest

from crawler.hiddenweb.entities import ENTITY, names_in, recurring_names
from crawler.hiddenweb.runner import search_now
from crawler.models import Site
from crawler.topic import Topic
from tests.crawler.hiddenweb_site import PLACES, DeepWebSite, build_stories


def test_names_are_capitalised_runs_without_stop_words_at_their_ends():
    text = "The Mayor of Zelmora met Anna Kowalski. In Zelmora, 3 bridges reopened."
    assert names_in(text) == {"Mayor of Zelmora", "Anna Kowalski", "Zelmora"}


def test_a_lone_word_heading_a_sentence_a_weekday_or_a_contraction_is_no_name():
    text = "Reporters came on Thursday. I’ve seen Porto’s harbour. Central bank staff left."
    assert names_in(text) == {"Porto"}


def test_only_names_recurring_on_several_pages_count_and_template_text_does_not():
    pages = [
        ["Anna Kowalski visited Zelmora.", "Sort by Relevance"],
        ["Anna Kowalski spoke.", "Sort by Relevance"],
        ["Nothing of note from Brenna.", "Sort by Relevance"],
    ]
    assert recurring_names(pages) == ["Anna Kowalski"]
    assert recurring_names(pages, exclude=["anna kowalski"]) == []


@pytest.mark.django_db
def test_a_form_is_searched_for_names_its_result_pages_keep_mentioning(settings):
    settings.DEEPWEB_ENTITY_QUERIES = 2
    keywords = ["orchestra"]
    topic = Topic(terms={"orchestra": 1.0}, queries={"orchestra": 1.0})
    with DeepWebSite(build_stories(60)) as web:
        site = Site.objects.create(
            name="Archive", root_url=web.url("/"), allow_private_network=True, crawl_delay=0
        )
        report = search_now(site, topic=topic)
        [form] = [f for f in report.forms if f.action == web.url("/search")]
        entity = [log for log in form.searches if log.form == ENTITY]
        by_keywords = {u for log in form.searches if log.form != ENTITY for u in log.results}
    assert 1 <= len(entity) <= 2
    assert [log.query for log in entity if log.query not in PLACES] == []  # recurring places
    new = [u for log in entity for u in log.results]
    assert new and not set(new) & by_keywords
    assert keywords[0] not in [log.query for log in entity]


@pytest.mark.django_db
def test_no_entity_query_is_made_when_switched_off(settings):
    settings.DEEPWEB_ENTITY_QUERIES = 0
    topic = Topic(terms={"orchestra": 1.0}, queries={"orchestra": 1.0})
    with DeepWebSite(build_stories(60)) as web:
        site = Site.objects.create(
            name="Archive", root_url=web.url("/"), allow_private_network=True, crawl_delay=0
        )
        report = search_now(site, topic=topic)
    assert not [log for f in report.forms for log in f.searches if log.form == ENTITY]


def page_about(title: str, text: str) -> str:
    paragraphs = "".join(
        f"<p>{text} Sentence {i} adds words so the page reads as prose.</p>" for i in range(5)
    )
    return f"<html lang='en'><body><article><h1>{title}</h1>{paragraphs}</article></body></html>"


@pytest.mark.django_db
def test_names_the_sites_own_articles_repeat_beside_a_keyword_become_values_after_it(settings):
    from tests.factories import store_version

    settings.DEEPWEB_ENTITY_QUERIES = 2
    topic = Topic(terms={"orchestra": 1.0}, queries={"orchestra": 1.0})
    with DeepWebSite(build_stories(60)) as web:
        site = Site.objects.create(
            name="Archive", root_url=web.url("/"), allow_private_network=True, crawl_delay=0
        )
        for i, (title, text) in enumerate([
            ("Concert", "The orchestra of Oslo played under Marta Velasquez."),
            ("Tour", "Marta Velasquez takes the orchestra on tour."),
            ("Harbour", "Pieter Jansen opened the harbour."),
            ("Ferry", "Pieter Jansen rode the ferry."),
        ]):  # fmt: skip
            store_version(site, web.url(f"/kept/{i}"), page_about(title, text))
        report = search_now(site, topic=topic)
        [form] = [f for f in report.forms if f.action == web.url("/search")]
    typed = [log.query for log in form.searches if log.form == "typed"]
    assert typed[0] == "orchestra" and "Marta Velasquez" in typed
    assert "Pieter Jansen" not in [log.query for log in form.searches]  # not near the topic
