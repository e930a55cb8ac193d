"""In Chromium: a reader sees clips on the dashboard and My clips, filters, marks read, and unsubscribes."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from clipping import publisher
from clipping.models import KeywordList, Match
from tests.browser import log_in, watch_problems
from tests.factories import make_list, make_match

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_reader_reads_filters_marks_read_and_unsubscribes(live_server, page, alice, smtp_server):
    base = live_server.url
    problems = watch_problems(page)
    energy, transport = (
        make_list(alice, "Energy", "subsidy"),
        make_list(alice, "Transport", "strike"),
    )
    solar = make_match(energy, title="Council backs solar subsidies")
    make_match(
        transport, title="Rail strike", summary="The rail strike began on Tuesday.", term="strike"
    )
    publisher.deliver_match(solar.id)

    log_in(page, base, "alice@example.com")
    latest = page.locator("[data-testid=latest-clips] [data-testid=clip]")
    assert latest.count() == 2

    page.click("nav >> text=My clips")
    page.wait_for_url(f"{base}/clips/")
    assert page.locator("[data-testid=clip] mark", has_text="subsidies").is_visible()
    page.select_option("select[name=list]", label="Transport")
    page.click("[data-testid=clip-filters] button[type=submit]")
    page.wait_for_url(f"{base}/clips/?list={transport.pk}&site=&q=")
    assert page.locator("[data-testid=clip]").all_inner_texts()[0].startswith("Rail strike")
    assert page.locator("[data-testid=clip]").count() == 1

    page.click("[data-testid=mark-read]")
    # Marked in place (static/js/app.js): the button goes once the server has answered.
    page.locator("[data-testid=mark-read]").wait_for(state="detached")
    assert page.url == f"{base}/clips/?list={transport.pk}&site=&q="
    assert Match.objects.get(keyword_list=transport).read_at is not None

    # The unsubscribe link of the mail: GET asks, the button stops the list's mail.
    link = str(smtp_server.messages[0]["List-Unsubscribe"]).strip().strip("<>")
    page.goto(base + urlsplit(link).path)
    page.click("[data-testid=confirm-unsubscribe]")
    assert "no longer send mail" in page.locator("[data-testid=unsubscribed]").inner_text()
    assert not KeywordList.objects.get(id=energy.id).mail_enabled
    assert problems == []
