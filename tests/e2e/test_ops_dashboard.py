"""Staff open the operator dashboard in Chromium: charts drawn, progress polled, no CSP violation."""

from __future__ import annotations

import pytest

from clipping.models import Match
from crawler.models import CrawlRun
from ops import views as ops_views
from tests.factories import PASSWORD, make_list, make_match, make_run, make_site, make_user
from tests.ops.ops_data import make_run_clips

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CHARTS_DRAWN = """() => {
  const canvases = [...document.querySelectorAll('canvas.ops-chart')];
  return canvases.length > 0 && canvases.every(c => window.Chart && window.Chart.getChart(c));
}"""


def test_staff_see_charts_live_progress_and_retry_in_the_browser(live_server, page, monkeypatch):
    monkeypatch.setattr(ops_views, "POLL_SECONDS", 1)
    base = live_server.url
    make_user("olga@example.com", is_staff=True)
    news = make_site("Daily Example", "https://news.example.com/")
    sport = make_site("Sport Example", "https://sport.example.com/")
    for hours in (30, 20, 10):
        make_run_clips(make_run(news, hours_ago=hours, fetched=50, new=8, relevant=20), 2)
        make_run(sport, hours_ago=hours, fetched=30, changed=3, errors=1, relevant=6)
    running = make_run(news, hours_ago=0.1, finished=False, fetched=5, new=1)
    match = make_match(make_list(make_user("alice@example.com"), "Energy", "subsidies"))
    Match.objects.filter(id=match.id).update(mail_status=Match.MailStatus.FAILED)

    problems: list[str] = []
    page.on(
        "console",
        lambda msg: problems.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    # The browser's own favicon probe is not the dashboard's; every other failed load is.
    page.on(
        "response",
        lambda r: (
            problems.append(f"{r.status} {r.url}")
            if r.status >= 400 and not r.url.endswith("/favicon.ico")
            else None
        ),
    )

    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=login]", "olga@example.com")
    page.fill("input[name=password]", PASSWORD)
    page.click("form[action*='login'] button[type=submit]")
    page.wait_for_url(f"{base}/dashboard/")
    page.click("nav >> text=Operations")
    page.wait_for_url(f"{base}/ops/")
    response = page.request.get(f"{base}/ops/")
    assert "script-src 'self'" in response.headers["content-security-policy"]

    page.wait_for_function(CHARTS_DRAWN)
    charts = page.evaluate(
        """() => [...document.querySelectorAll('canvas.ops-chart')].map(c => {
             const chart = Chart.getChart(c);
             return [c.dataset.site, chart.data.labels.length, chart.data.datasets.map(d => d.label)];
           })"""
    )
    assert [(int(site), runs) for site, runs, _ in charts] == [(news.pk, 4), (sport.pk, 3)]
    assert charts[0][2] == [
        "Fetched",
        "New",
        "Changed",
        "Clips",
        "Errors",
        "Harvest rate (%)",
    ]
    assert page.evaluate(
        "() => Chart.getChart(document.querySelector('canvas.ops-chart')).data.datasets[3].data"
    ) == [2, 2, 2, 0]

    row = page.locator(f"#ops-running tr[data-run='{running.pk}']")
    assert row.locator("[data-field=fetched]").inner_text() == f"5 / {running.page_budget}"
    CrawlRun.objects.filter(id=running.id).update(fetched=42, new=17)
    page.wait_for_function(
        f"""() => document.querySelector("#ops-running tr[data-run='{running.pk}'] [data-field=new]")?.textContent === '17'"""
    )
    assert row.locator("[data-field=fetched]").inner_text() == f"42 / {running.page_budget}"

    page.click("[data-testid=retry-match]")
    page.wait_for_url(f"{base}/ops/")
    assert "is queued again" in page.locator(".messages").inner_text()
    assert Match.objects.get(id=match.id).mail_status == Match.MailStatus.PENDING

    CrawlRun.objects.filter(id=running.id).update(
        status="finished", finished_at=running.heartbeat_at
    )
    page.wait_for_selector("#ops-running tr.empty")
    assert problems == []
