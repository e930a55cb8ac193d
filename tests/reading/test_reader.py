"""The reader view: the article as the analyzer chose it, safe, with the matched words marked."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse

from clipping.models import Clip, Match
from clipping.reader import find_area, parse_stored
from tests.factories import ingest_html, make_list, make_match, make_site

pytestmark = pytest.mark.django_db

ARTICLE = """<!doctype html><html lang="en"><head><title>Solar subsidies</title>
<script>window.stolen = document.cookie</script></head><body>
<nav><a href="/">Home</a> <a href="/news/">News</a> <a href="/sport/">Sport</a></nav>
<div class="wrap"><article>
<h1>Council backs solar subsidies</h1>
<p>The council voted on Tuesday to give every household solar subsidies for panels on their
roofs, a plan the mayor called the largest in the region's history.</p>
<p onclick="alert(1)">Officials said the <a href="/budget/2026">budget</a> covers the subsidies for
three years; <a href="javascript:alert(2)">a trap</a> and <img src="/img/panel.jpg" alt="A panel"
onerror="alert(3)"> follow.</p>
<p>Residents can apply from March at the town hall or online, and installers expect a busy
spring as orders arrive from across the valley and the neighbouring towns.</p>
<iframe src="https://evil.example/"></iframe><form action="/x"><input name="a"></form>
<style>p { display: none }</style>
</article></div>
<footer>© Daily Example · <a href="/about">About</a></footer></body></html>"""


@pytest.fixture
def clip(alice) -> Clip:
    site = make_site()
    make_list(alice, "Energy", "subsidies")
    found = ingest_html(site, "https://news.example.com/news/solar", ARTICLE)
    assert found.matches, "the page must match the list"
    return Clip.objects.get(url="https://news.example.com/news/solar")


def reader(client, clip: Clip) -> BeautifulSoup:
    response = client.get(reverse("clip_read", args=[clip.pk]))
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser")


def test_the_reader_shows_the_article_as_the_analyzer_chose_it(client, alice, clip):
    client.force_login(alice)
    body = reader(client, clip).select_one("[data-testid=reader-body]")
    text = body.get_text(" ")
    assert "largest in the region" in text and "Residents can apply" in text
    assert "Sport" not in text and "About" not in text  # navigation and footer are not the article
    assert body.select("mark") and {m.get_text().lower() for m in body.select("mark")} == {
        "subsidies"
    }


def test_the_reader_keeps_nothing_that_runs_and_makes_links_safe(client, alice, clip):
    client.force_login(alice)
    page = reader(client, clip)
    body = page.select_one("[data-testid=reader-body]")
    assert not body.select("script, style, iframe, form, input")
    assert not [tag for tag in body.find_all(True) if any(a.startswith("on") for a in tag.attrs)]
    hrefs = [a.get("href") for a in body.select("a")]
    assert "https://news.example.com/budget/2026" in hrefs
    assert not [href for href in hrefs if href and href.startswith("javascript")]
    assert all("noreferrer" in a.get("rel", []) for a in body.select("a[href]"))
    image = body.select_one("img")
    assert image["src"] == "https://news.example.com/img/panel.jpg"
    assert image["loading"] == "lazy" and image["referrerpolicy"] == "no-referrer"


def test_the_reader_answers_with_no_referrer_and_allows_article_images(client, alice, clip):
    client.force_login(alice)
    response = client.get(reverse("clip_read", args=[clip.pk]))
    assert response["Referrer-Policy"] == "no-referrer"
    assert "img-src" in response["Content-Security-Policy"]
    assert "https:" in response["Content-Security-Policy"].split("img-src")[1].split(";")[0]
    # Elsewhere images stay on this site.
    other = client.get(reverse("clip_index"))
    assert "https:" not in other["Content-Security-Policy"].split("img-src")[1].split(";")[0]


def test_opening_the_reader_marks_the_clip_read(client, alice, clip):
    client.force_login(alice)
    assert Match.objects.filter(clip=clip, read_at__isnull=True).exists()
    reader(client, clip)
    assert not Match.objects.filter(clip=clip, read_at__isnull=True).exists()


def test_when_the_body_is_pruned_the_kept_text_is_shown(client, alice, clip):
    version = clip.page_version
    version.body = None
    version.save()
    client.force_login(alice)
    page = reader(client, clip)
    assert page.select_one("[data-testid=kept-text]")
    assert "Residents can apply" in page.select_one("[data-testid=reader-body]").get_text()


def test_another_persons_clip_is_not_found(client, bob, clip):
    client.force_login(bob)
    assert client.get(reverse("clip_read", args=[clip.pk])).status_code == 404


def test_a_clip_without_a_stored_page_shows_its_summary(client, alice):
    match = make_match(make_list(alice, "Energy", "subsidies"))
    client.force_login(alice)
    body = reader(client, match.clip).select_one("[data-testid=reader-body]")
    assert "households solar" in body.get_text()
    assert body.select_one("mark").get_text() == "subsidies"


def test_an_analyzer_path_finds_its_element_and_a_wrong_one_finds_none():
    root = parse_stored("<html><body><div>a</div><div><p>one</p><p>two</p></div></body></html>")
    assert find_area(root, "html/body/div[2]/p[2]").text == "two"
    assert find_area(root, "html/body/div[3]") is None
    assert find_area(root, "html/body/div[2]/p[7]") is None
    assert find_area(parse_stored(""), "html/body") is None


def test_the_articles_own_heading_is_not_shown_twice(client, alice, clip):
    client.force_login(alice)
    page = reader(client, clip)
    assert page.select_one("h1").get_text(strip=True) == "Council backs solar subsidies"
    body = page.select_one("[data-testid=reader-body]")
    assert "Council backs solar" not in " ".join(h.get_text() for h in body.select("h1, h2, h3"))


def test_keep_unread_undoes_what_opening_did(client, alice, bob, clip):
    client.force_login(alice)
    reader(client, clip)
    response = client.post(reverse("clip_mark_unread", args=[clip.pk]), {"next": "/clips/"})
    assert response.status_code == 302
    assert Match.objects.filter(clip=clip, read_at__isnull=True).exists()
    client.force_login(bob)
    assert client.post(reverse("clip_mark_unread", args=[clip.pk])).status_code == 404


def test_marking_finds_whole_words_in_text_never_in_tags():
    from clipping.reader import _mark

    markup = (
        '<p title="subsidies">Subsidies and subsidiesx; <a href="/subsidies">new subsidies</a></p>'
    )
    assert _mark(markup, ["subsidies"]) == (
        '<p title="subsidies"><mark>Subsidies</mark> and subsidiesx; '
        '<a href="/subsidies">new <mark>subsidies</mark></a></p>'
    )
    # Lowering İ changes offsets: the marking falls back to an ignore-case pattern.
    assert (
        _mark("<p>İstanbul subsidies</p>", ["SUBSIDIES"])
        == "<p>İstanbul <mark>subsidies</mark></p>"
    )
    # A phrase and a word inside it: the longer one is marked whole.
    assert _mark("<p>solar subsidies</p>", ["solar subsidies", "subsidies"]) == (
        "<p><mark>solar subsidies</mark></p>"
    )
