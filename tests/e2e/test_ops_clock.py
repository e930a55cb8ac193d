"""/ops/ in the person's own zone and clock whatever the browser's, and gaps drawn as gaps."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from tests.browser import log_in
from tests.factories import make_run, make_site, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CHARTS_DRAWN = """() => {
  const canvas = document.querySelector('canvas.ops-chart');
  return canvas && window.Chart && window.Chart.getChart(canvas);
}"""


def test_chart_times_follow_the_persons_zone_and_clock_and_an_empty_run_is_a_gap(
    live_server, browser
):
    make_user("olga@example.com", is_staff=True, time_zone="Asia/Kolkata", time_zone_confirmed=True)
    news = make_site("Daily Example", "https://news.example.com/")
    runs = [
        make_run(news, hours_ago=30, fetched=50, new=8),
        make_run(news, hours_ago=20, fetched=0),  # deferred at once: measured nothing
        make_run(news, hours_ago=10, fetched=40, new=5),
    ]
    # The browser lives in New York on a 12-hour locale; the person chose Kolkata.
    context = browser.new_context(timezone_id="America/New_York", locale="en-US")
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        log_in(page, live_server.url, "olga@example.com")
        page.goto(f"{live_server.url}/ops/")
        page.wait_for_function(CHARTS_DRAWN)
        labels = page.evaluate(
            "() => Chart.getChart(document.querySelector('canvas.ops-chart')).data.labels"
        )
        fetched = page.evaluate(
            "() => Chart.getChart(document.querySelector('canvas.ops-chart')).data.datasets[0].data"
        )
    finally:
        context.close()

    kolkata = ZoneInfo("Asia/Kolkata")
    for label, run in zip(labels, runs, strict=True):
        assert run.started_at.astimezone(kolkata).strftime("%H:%M") in label, label
        assert "AM" not in label and "PM" not in label
    assert fetched == [50, None, 40]
    assert timezone.now() - runs[0].started_at > timedelta(hours=29)
