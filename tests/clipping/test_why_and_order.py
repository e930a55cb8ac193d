"""Why a clip matched (term, form, sense, sentence) and newest-found-first everywhere."""

from __future__ import annotations

from datetime import timedelta
from xml.etree import ElementTree

import pytest
from django.urls import reverse
from django.utils import timezone

from clipping import publisher
from clipping.backfill import backfill_list
from clipping.models import Match
from clipping.publisher import Outcome
from tests.clipping.pages import RAIL, SOLAR, article
from tests.factories import ingest_html, make_list, make_site, store_version

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"
STOPPAGE = [
    "Train drivers began a rail work stoppage on Tuesday morning over pay and night shifts.",
    "Most regional lines stopped running before seven o'clock, and buses were added.",
]
WHY = "rail strike as “rail work stoppage” (synonym: work stoppage for strike, “a group's refusal"


def dated(headline: str, paragraphs: list[str], published) -> str:
    """Return an article page that declares its publication time."""
    meta = f'<meta property="article:published_time" content="{published.isoformat()}">'
    return article(headline, paragraphs).replace("<head>", "<head>" + meta, 1)


def test_a_match_stores_and_shows_why_it_matched(client, alice, smtp_server):
    transport = make_list(alice, "Transport", "rail strike")
    ingest_html(make_site(), "https://news.example.com/stoppage", article("Trains halt", STOPPAGE))

    match = Match.objects.get(keyword_list=transport)
    [reason] = match.reasons
    assert reason["term"] == "rail strike" and reason["form"] == "synonym"
    assert reason["matched"] == "rail work stoppage"
    assert reason["sentence"] == STOPPAGE[0]
    [via] = reason["via"]
    assert (via["word"], via["synonym"], via["sense"]) == ("strike", "work stoppage", "strike.n.01")

    client.force_login(alice)
    page = client.get(reverse("clip_index")).content.decode()
    assert "Why: " + WHY.replace("'", "&#x27;") in page
    feed = client.get(reverse("clip_feed", args=[alice.feed_token]))
    [entry] = ElementTree.fromstring(feed.content).findall(f"{ATOM}entry")  # noqa: S314
    assert "Why: " + WHY.replace("'", "&#x27;") in entry.find(f"{ATOM}summary").text
    assert publisher.deliver_match(match.id) == Outcome.SENT
    [mail] = smtp_server.to("alice@example.com")
    assert "Why: " + WHY in mail.get_body(preferencelist=("plain",)).get_content()


def test_an_inflection_and_an_exact_match_say_so(alice):
    make_list(alice, "Transport", "rail strike")
    make_list(alice, "Energy", "subsidy")
    site = make_site()
    ingest_html(site, "https://news.example.com/rail", article("Rail strike", RAIL))
    ingest_html(site, "https://news.example.com/solar", article("Council backs solar", SOLAR))
    forms = {m.keyword_list.name: m.reasons[0]["form"] for m in Match.objects.all()}
    assert forms == {"Transport": "exact", "Energy": "inflection"}  # "subsidies"


def test_clips_come_newest_found_first_and_a_backfill_by_publication_time(client, alice):
    site = make_site()
    now = timezone.now()
    # Crawled earlier, published two and five days ago, matched only once the list widens.
    solar = dated("Solar", SOLAR, now - timedelta(days=2))
    store_version(site, "https://news.example.com/solar", solar)
    old_rail = dated("Old rail strike", RAIL, now - timedelta(days=5))
    store_version(site, "https://news.example.com/rail", old_rail)
    energy = make_list(alice, "Energy", "parks")
    today = [
        "The city council met on Wednesday evening and agreed to open three new parks in the "
        "northern districts, where families have long asked for more green space.",
        "Planners said the first of them would open next spring on the site of a former bus "
        "depot, with a playground, a pond and several hundred newly planted trees.",
        "Residents who attended the meeting welcomed the plan but asked the council to keep "
        "the parks open late in summer and to add lighting along the main paths.",
    ]
    ingest_html(site, "https://news.example.com/today", article("Council meets today", today))
    # Widened: the backfill finds the older pages, each dated by its publication.
    energy.terms = "parks\nsubsidy\nstrike"
    energy.save()
    backfill_list(energy.id)

    client.force_login(alice)
    titles = [clip.title for clip in client.get(reverse("clip_index")).context["page"].object_list]
    assert titles == ["Council meets today", "Solar", "Old rail strike"]
    backfilled = Match.objects.get(clip__title="Solar")
    assert backfilled.found_at == backfilled.clip.published_at
    feed = client.get(reverse("clip_feed", args=[alice.feed_token]))
    entries = ElementTree.fromstring(feed.content).findall(f"{ATOM}entry")  # noqa: S314
    assert [e.find(f"{ATOM}title").text for e in entries] == titles
