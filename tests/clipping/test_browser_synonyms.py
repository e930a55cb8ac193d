"""In Chromium: a reader switches a synonym off on the list page, and it no longer matches."""

from __future__ import annotations

import pytest

from clipping.matching import KeywordIndex, compile_text
from clipping.models import KeywordList, Match
from tests.browser import log_in
from tests.clipping.pages import article
from tests.factories import ingest_html, make_list, make_site

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

RECALL = [
    "A German automobile maker recalled forty thousand vans on Friday after inspectors found "
    "that a faulty weld could loosen the rear seats during a sudden stop.",
    "Owners will be asked to bring their vans to a workshop from next month; the repair takes "
    "about an hour and costs them nothing, the company said in a statement.",
]
AUTOMOBILE = [
    "Several automobile makers unveiled smaller and cheaper electric models at the motor show "
    "this week, hoping to win back buyers put off by the price of large battery vehicles.",
    "Executives said a compact model from one maker would sell for under 20,000 euros, and "
    "analysts expect the segment to grow once charging points become common in suburbs.",
]


def test_a_synonym_switched_off_on_the_list_page_no_longer_matches(live_server, page, alice):
    base = live_server.url
    problems: list[str] = []
    page.on("response", lambda r: problems.append(r.url) if r.status >= 400 else None)
    page.on(
        "console",
        lambda msg: problems.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    cars = make_list(alice, "Cars", "car")
    site = make_site()
    ingest_html(site, "https://news.example.com/motor-show", article("Motor show", AUTOMOBILE))
    assert Match.objects.filter(keyword_list=cars).count() == 1  # "automobile" for "car"

    log_in(page, base, "alice@example.com")
    page.goto(f"{base}/lists/{cars.pk}/")
    synonym = page.locator('input[value="car|car.n.01|automobile"]')
    assert synonym.is_checked()
    # The sense's switch greys its synonyms at once (progressive JS, no inline script).
    sense = page.locator('input[value="car|car.n.01"]')
    sense.uncheck()
    assert "off" in (page.locator('li[data-sense="car|car.n.01"]').get_attribute("class") or "")
    sense.check()
    synonym.uncheck()
    page.click("[data-testid=save-synonyms]")
    page.wait_for_url(f"{base}/lists/{cars.pk}/")
    assert not page.locator('input[value="car|car.n.01|automobile"]').is_checked()
    assert page.locator('input[value="car|car.n.01|motorcar"]').is_checked()
    assert KeywordList.objects.get(id=cars.id).synonym_choices == {
        "car": {"car|car.n.01|automobile": False}
    }

    ingest_html(site, "https://news.example.com/recall", article("Vans recalled", RECALL))

    assert Match.objects.filter(keyword_list=cars).count() == 1  # no new match
    # With the synonym on, the same page would have matched.
    assert KeywordIndex.build([compile_text(1, "car", "en", True)]).match(" ".join(RECALL))
    page.goto(f"{base}/clips/")
    assert page.locator("[data-testid=clip]").count() == 1
    assert "Why: car as “automobile”" in page.locator("[data-testid=why]").inner_text()
    assert problems == []
