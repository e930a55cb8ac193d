"""The seams other apps plug into: batch handlers of page versions, the topic provider, the strategy registry."""

from __future__ import annotations

import random

import pytest
from django.db import transaction

from crawler import hooks
from crawler.fetch import ErrorKind, FetchError
from crawler.models import CrawlRun, Site
from crawler.strategies import (
    PageObservation,
    Strategy,
    UnknownStrategy,
    get_strategy,
    register,
    strategy_names,
)
from crawler.strategies.bfs import BreadthFirst
from crawler.topic import EMPTY_TOPIC, Topic, get_topic, register_topic_provider


@pytest.fixture
def handler():
    calls: list[int] = []
    hooks.register_batch_handler(calls.extend)
    yield calls
    hooks.unregister_batch_handler(calls.extend)


@pytest.mark.django_db(transaction=True)
def test_batch_handlers_run_only_after_the_transaction_commits(handler):
    with transaction.atomic():
        hooks.hand_on(7)
        assert handler == []
    assert handler == [7]
    with pytest.raises(RuntimeError), transaction.atomic():
        hooks.hand_on(8)
        raise RuntimeError("rolled back")
    assert handler == [7]


@pytest.mark.django_db(transaction=True)
def test_a_failing_handler_does_not_stop_the_others(handler):
    def broken(version_ids: list[int]) -> None:
        raise ValueError("boom")

    hooks.register_batch_handler(broken)
    try:
        with transaction.atomic():
            hooks.hand_on(3)
    finally:
        hooks.unregister_batch_handler(broken)
    assert handler == [3]


@pytest.fixture
def no_provider():
    """Run a test with no topic provider, then put back the one clipping registered."""
    from crawler import topic

    saved = topic._provider
    register_topic_provider(None)
    yield
    register_topic_provider(saved)


def test_the_topic_is_empty_until_a_provider_is_registered(no_provider):
    site = Site(name="t", root_url="http://127.0.0.1:9/")
    assert get_topic(site) is EMPTY_TOPIC and EMPTY_TOPIC.is_empty()
    register_topic_provider(lambda s: Topic({"harbour": 2.0, "storm": 1.0}, language="en"))
    topic = get_topic(site)
    assert topic.score(["harbour", "harbour", "ship"]) == 2.0
    assert topic.score(["harbour", "storm"]) == 3.0


def test_a_topic_refuses_non_positive_weights_and_stays_read_only():
    with pytest.raises(ValueError):
        Topic({"x": 0.0})
    topic = Topic({"x": 1.0}, phrases=(("new", "york"),))
    assert topic.score(["new", "york", "x"]) == 2.0  # the term, and 1 for the whole phrase
    assert topic.score(["new"]) == 0.0
    with pytest.raises(TypeError):
        topic.terms["y"] = 1.0  # type: ignore[index]


def test_a_provider_returning_something_else_is_refused(no_provider):
    register_topic_provider(lambda s: {"x": 1.0})  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError):
        get_topic(Site(name="t", root_url="http://127.0.0.1:9/"))


def test_strategies_are_found_by_name():
    assert get_strategy("bfs") is BreadthFirst
    assert "bfs" in strategy_names()
    with pytest.raises(UnknownStrategy, match="nope"):
        get_strategy("nope")


def test_a_name_cannot_be_registered_twice_by_different_classes():
    class Impostor(Strategy):
        name = "bfs"

        def next_urls(self, limit: int) -> list[str]:
            return []

        def observe(self, observation: PageObservation) -> None:
            return None

    with pytest.raises(ValueError, match="already registered"):
        register(Impostor)


def test_the_default_harvest_rule_accepts_fetched_information_pages():
    strategy = BreadthFirst(Site(), CrawlRun(), None, rng=random.Random(1), topic=None)  # type: ignore[arg-type]
    page = PageObservation(
        page_id=1, url="u", depth=0, status=200, new=True, changed=False, kind="information"
    )
    assert strategy.accepts(page)
    assert not strategy.accepts(PageObservation(1, "u", 0, 200, True, False, "hub"))
    assert not strategy.accepts(
        PageObservation(
            1, "u", 0, None, False, False, "information", error=FetchError(ErrorKind.TIMEOUT, "x")
        )
    )
