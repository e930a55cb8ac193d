"""Clipping a page by hand (the bookmarklet's page), the bookmarklets, the app and the theme."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from bs4 import BeautifulSoup
from django.contrib.staticfiles import finders
from django.urls import reverse

from clipping.models import Clip, HandClip, KeywordList, Match
from tests.crawler.servers import Response, SiteServer
from tests.crawler.sites import article

pytestmark = pytest.mark.django_db

TEXT = (
    "The harbour reopened on Monday after the storm. Ferries run again on the winter timetable, "
    "and the harbour master expects the last repairs to the quay before the summer season."
)


@pytest.fixture
def server(settings) -> Iterator[SiteServer]:
    settings.CRAWLER_USER_SITE_NETWORKS = "127.0.0.1/32"
    with SiteServer() as site:
        site.html(
            "/news/harbour", article("Harbour reopens after the storm", TEXT, [("/", "Home")])
        )
        site.robots("User-agent: *\nAllow: /\n")
        yield site


def test_clipping_a_page_adds_it_to_my_clips_with_its_article(client, alice, server):
    client.force_login(alice)
    url = server.url("/news/harbour")
    asked = client.get(reverse("clip_add"), {"url": url})
    assert asked.status_code == 200 and url in asked.content.decode()
    assert not Clip.objects.exists()  # a GET fetches nothing
    response = client.post(reverse("clip_add"), {"url": url})
    clip = Clip.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse(
        "clip_read", args=[clip.pk]
    )
    assert clip.title == "Harbour reopens after the storm"
    assert HandClip.objects.filter(clip=clip, owner=alice).exists()
    match = Match.objects.get(clip=clip)
    assert match.keyword_list.by_hand and match.mail_status == Match.MailStatus.SKIPPED
    page = client.get(reverse("clip_index")).content.decode()
    assert "Harbour reopens after the storm" in page and "Clipped by hand" in page
    body = BeautifulSoup(client.get(response["Location"]).content, "html.parser")
    assert "last repairs to the quay" in body.select_one("[data-testid=reader-body]").get_text()
    # The hidden list is nobody's list to see or edit.
    assert list(KeywordList.objects.owned_by(alice)) == []
    assert "Clipped by hand" not in client.get(reverse("list_index")).content.decode()


def test_clipping_the_same_page_again_refreshes_the_one_clip(client, alice, server):
    client.force_login(alice)
    url = server.url("/news/harbour")
    client.post(reverse("clip_add"), {"url": url})
    again = client.post(reverse("clip_add"), {"url": url}, follow=True)
    assert Clip.objects.count() == 1 and Match.objects.count() == 1
    assert "up to date" in again.content.decode()


def test_a_private_address_is_refused_with_a_clear_message(client, alice, settings):
    settings.CRAWLER_USER_SITE_NETWORKS = ""
    client.force_login(alice)
    response = client.post(reverse("clip_add"), {"url": "http://127.0.0.1:9/secret"})
    assert response.status_code == 200
    error = BeautifulSoup(response.content, "html.parser").select_one(
        "[data-testid=clip-add-error]"
    )
    assert "private or local network" in error.get_text()
    assert "127.0.0.1" not in error.get_text()
    assert not Clip.objects.exists()


def test_a_page_that_is_not_html_is_refused(client, alice, server):
    binary = Response(b"\x00\x01binary", headers={"Content-Type": "application/octet-stream"})
    server.route("/data.bin", binary)
    client.force_login(alice)
    response = client.post(reverse("clip_add"), {"url": server.url("/data.bin")})
    assert response.status_code == 200 and not Clip.objects.exists()
    assert BeautifulSoup(response.content, "html.parser").select_one("[data-testid=clip-add-error]")


def test_the_account_page_offers_both_bookmarklets(client, alice):
    client.force_login(alice)
    page = BeautifulSoup(client.get(reverse("account_settings")).content, "html.parser")
    watch = page.select_one("[data-testid=bookmarklet-watch]")["href"]
    clip = page.select_one("[data-testid=bookmarklet-clip]")["href"]
    assert (
        watch.startswith("javascript:")
        and "/sites/?url='+encodeURIComponent(location.href)" in watch
    )
    assert (
        clip.startswith("javascript:")
        and "/clips/add/?url='+encodeURIComponent(location.href)" in clip
    )
    # The watch bookmarklet's target fills the address to preview; it fetches nothing by itself.
    sites = client.get(reverse("site_index"), {"url": "https://news.example.com/"}).content.decode()
    assert 'value="https://news.example.com/"' in sites


def test_the_manifest_names_the_app_its_start_page_and_icons(client, alice, settings):
    manifest = json.loads(client.get(reverse("web_manifest")).content)
    assert manifest["start_url"] == reverse("clip_index") and manifest["display"] == "standalone"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        assert finders.find(icon["src"].removeprefix(settings.STATIC_URL)), icon["src"]
    worker = client.get(reverse("service_worker"))
    assert worker["Content-Type"].startswith("application/javascript")
    assert reverse("clip_index") in worker.content.decode()
    client.force_login(alice)
    page = BeautifulSoup(client.get(reverse("clip_index")).content, "html.parser")
    assert page.select_one("link[rel=manifest]")["href"] == reverse("web_manifest")
    assert page.body["data-service-worker"] == reverse("service_worker")


def test_the_theme_choice_is_remembered_and_auto_follows_the_system(client):
    page = BeautifulSoup(client.get("/").content, "html.parser")
    assert not page.html.has_attr("data-theme")  # the system's choice (prefers-color-scheme)
    response = client.post(reverse("set_theme"), {"theme": "dark", "next": "/"})
    assert response.status_code == 302 and response.cookies["webclip_theme"].value == "dark"
    assert BeautifulSoup(client.get("/").content, "html.parser").html["data-theme"] == "dark"
    client.post(reverse("set_theme"), {"theme": "<script>", "next": "https://evil.example/"})
    assert not BeautifulSoup(client.get("/").content, "html.parser").html.has_attr("data-theme")
