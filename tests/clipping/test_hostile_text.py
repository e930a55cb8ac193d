"""Hostile clip text stays text: in the page, the feed and both mail parts; headers cannot be injected."""

from __future__ import annotations

from datetime import timedelta
from xml.etree import ElementTree

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse
from django.utils import timezone

from clipping import publisher
from clipping.digests import plan_digests
from clipping.models import Match
from tests.clipping.pages import SOLAR, article
from tests.factories import ingest_html, make_clip, make_list, make_match

pytestmark = pytest.mark.django_db

EVIL_TITLE = 'Solar</title><script>alert("t")</script>\r\nBcc: victim@example.com\r\n\r\n<b onmouseover=alert(1)>x</b>'
EVIL_SUMMARY = (
    'The council gives <script>alert("s")</script> solar subsidies <img src=x onerror=alert(2)> '
    'to <a href="javascript:alert(3)">households</a> and <a href="data:text/html,<script>alert(4)</script>">flats</a>.'
)
ATOM = "{http://www.w3.org/2005/Atom}"


def assert_inert(html: str) -> None:
    """Fail if the HTML holds a script, an event handler, or a javascript:/data: link."""
    soup = BeautifulSoup(html, "lxml")
    # Only the site's own script files (static/js), never an inline script.
    for script in soup.find_all("script"):
        assert str(script.get("src", "")).startswith("/static/") and not script.string, script
    for element in soup.find_all(True):
        for name, value in element.attrs.items():
            assert not name.lower().startswith("on"), f"<{element.name} {name}=...>"
            if name in {"href", "src", "action", "formaction"}:
                assert not str(value).strip().lower().startswith(("javascript:", "data:")), value
    assert soup.find("img") is None and soup.find("b") is None


@pytest.fixture
def evil_match(alice):
    clip = make_clip(
        title=EVIL_TITLE, summary=EVIL_SUMMARY, url="javascript:alert(document.cookie)"
    )
    return make_match(make_list(alice, "Energy", "subsidy"), clip)


def test_hostile_text_is_inert_in_both_mail_parts_and_cannot_add_headers(evil_match, smtp_server):
    assert publisher.deliver_match(evil_match.id) == "sent"

    (message,) = smtp_server.messages
    assert message["Bcc"] is None and str(message["To"]) == "alice@example.com"
    subject = str(message["Subject"])
    assert "\n" not in subject and "\r" not in subject
    assert subject.startswith(
        '[Webclip] Energy: Solar</title><script>alert("t")</script> Bcc: victim@example.com'
    )
    html = message.get_body(preferencelist=("html",)).get_content()
    text = message.get_body(preferencelist=("plain",)).get_content()
    assert_inert(html)
    assert "&lt;script&gt;" in html  # shown as text, not dropped
    assert "Read the article" not in text  # no link made of a javascript: URL
    assert '<script>alert("s")</script>' in text  # plain text is never rendered as HTML


def test_hostile_text_is_inert_in_a_digest(alice, evil_match, smtp_server):
    alice.delivery_mode = "daily"
    alice.save()
    Match.objects.filter(id=evil_match.id).update(created_at=timezone.now() - timedelta(days=2))
    (digest_id,) = plan_digests()

    assert publisher.deliver_digest(digest_id) == "sent"

    (message,) = smtp_server.messages
    assert message["Bcc"] is None and "\n" not in str(message["Subject"])
    html = message.get_body(preferencelist=("html",)).get_content()
    assert_inert(html)
    assert "&lt;/title&gt;&lt;script&gt;" in html


def test_hostile_text_is_inert_on_my_clips_and_the_dashboard(client, alice, evil_match):
    client.force_login(alice)
    for url in (reverse("clip_index"), reverse("dashboard")):
        html = client.get(url).content.decode()
        assert_inert(html)
        assert "&lt;script&gt;alert(&quot;s&quot;)&lt;/script&gt;" in html


def test_hostile_text_is_inert_in_the_feed(client, alice, evil_match):
    response = client.get(reverse("clip_feed", args=[alice.feed_token]))

    # Well-formed: nothing broke out of an element. (Our own output, so the stdlib parser is fine.)
    feed = ElementTree.fromstring(response.content)  # noqa: S314
    (entry,) = feed.findall(f"{ATOM}entry")
    title = entry.find(f"{ATOM}title").text
    assert "\n" not in title and title.startswith("Solar</title><script>")  # plain text
    link = entry.find(f"{ATOM}link").get("href")
    assert link.startswith("http://127.0.0.1:8000/clips/")  # not the javascript: URL
    assert_inert(entry.find(f"{ATOM}summary").text)


def test_a_hostile_page_is_ingested_as_text(site, alice, smtp_server):
    make_list(alice, "Energy", "subsidy")
    paragraphs = [SOLAR[0] + ' <script>alert("p")</script>', *SOLAR[1:]]
    ingest_html(
        site,
        "https://news.example.com/news/evil",
        article("Solar &lt;b&gt;subsidies&lt;/b&gt;", paragraphs),
    )
    match = Match.objects.get()

    assert publisher.deliver_match(match.id) == "sent"

    assert match.clip.title == "Solar <b>subsidies</b>"  # the page's own text, entities decoded
    html = smtp_server.messages[0].get_body(preferencelist=("html",)).get_content()
    assert_inert(html)
