"""The Cho & Garcia-Molina change-rate estimator and the revisit interval on hand-made histories."""

from __future__ import annotations

import math
import random
from datetime import timedelta

import pytest

from crawler.store.revisit import HISTORY_LENGTH, change_rate, record_visit, revisit_interval

HOUR = 3600.0
DAY = 86400.0
MINIMUM = timedelta(minutes=10)
MAXIMUM = timedelta(days=7)


def test_regular_visits_use_the_bias_reduced_estimator():
    history = [(HOUR, True)] * 5 + [(HOUR, False)] * 5
    expected = -math.log((10 - 5 + 0.5) / (10 + 0.5)) / HOUR
    assert change_rate(history) == pytest.approx(expected)
    # Higher than the naive 5 changes / 10 hours: a visit cannot see two changes.
    assert change_rate(history) > 5 / (10 * HOUR)


def test_a_page_that_changed_at_every_visit_gets_a_finite_rate():
    rate = change_rate([(HOUR, True)] * 4)
    assert rate == pytest.approx(-math.log(0.5 / 4.5) / HOUR)


def test_irregular_visits_solve_the_maximum_likelihood_equation():
    history = [(HOUR, True), (2 * HOUR, False), (600.0, True), (DAY, False)]
    rate = change_rate(history)
    changed_side = sum(t / math.expm1(rate * t) for t, c in history if c)
    assert changed_side == pytest.approx(2 * HOUR + DAY, rel=1e-6)


def test_the_estimate_recovers_a_simulated_poisson_change_rate():
    rng = random.Random(5)
    true_rate = 1 / DAY
    history = []
    for _ in range(3000):
        interval = rng.uniform(0.2, 3.0) * DAY
        changes = 0
        clock = rng.expovariate(true_rate)
        while clock < interval:
            changes += 1
            clock += rng.expovariate(true_rate)
        history.append((interval, changes > 0))
    estimate = change_rate(history)
    naive = sum(c for _, c in history) / sum(t for t, _ in history)
    assert estimate == pytest.approx(true_rate, rel=0.1)
    assert naive < 0.75 * true_rate  # the naive count misses changes between visits


def test_a_quiet_page_waits_as_long_as_it_was_watched():
    assert change_rate([(HOUR, False)] * 3) == 0.0
    assert revisit_interval([(HOUR, False)], MINIMUM, MAXIMUM) == timedelta(hours=1)
    assert revisit_interval([(HOUR, False)] * 2, MINIMUM, MAXIMUM) == timedelta(hours=2)
    assert revisit_interval([(DAY, False)] * 30, MINIMUM, MAXIMUM) == MAXIMUM


def test_the_interval_is_the_mean_time_between_changes_within_bounds():
    history = [(HOUR, True)] * 5 + [(HOUR, False)] * 5
    expected = timedelta(seconds=HOUR / -math.log(5.5 / 10.5))
    assert revisit_interval(history, MINIMUM, MAXIMUM) == pytest.approx(
        expected, abs=timedelta(seconds=1)
    )
    assert revisit_interval([(60.0, True)] * 5, MINIMUM, MAXIMUM) == MINIMUM


def test_without_history_the_site_interval_is_used_within_bounds():
    assert revisit_interval([], MINIMUM, MAXIMUM, default=timedelta(hours=1)) == timedelta(hours=1)
    assert revisit_interval([], MINIMUM, MAXIMUM, default=timedelta(days=30)) == MAXIMUM
    assert change_rate([]) is None


def test_the_history_keeps_only_recent_visits():
    history: list = []
    for index in range(HISTORY_LENGTH + 10):
        history = record_visit(history, float(index + 1), changed=index == HISTORY_LENGTH + 9)
    assert len(history) == HISTORY_LENGTH
    assert history[-1] == [float(HISTORY_LENGTH + 10), True]
    assert history[0] == [11.0, False]
