"""End to end: articles a site shows only through its search reach the user whose list matches.

Real parts throughout: the archive site on 127.0.0.1, a crawl run (whose hidden-web pass
gets the keywords from clipping's topic provider), the Page Analyzer, clipping's ingest and
publisher run as Celery tasks in this process, and a real SMTP server.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest
from django.urls import reverse

from clipping import tasks
from clipping.models import KeywordList, Match
from crawler.models import Site
from crawler.models.hiddenweb import RunSearch
from crawler.models.sitesearch import SiteSearch
from crawler.run.loop import crawl
from tests.crawler.hiddenweb_site import DeepWebSite, build_stories

pytestmark = pytest.mark.django_db(transaction=True)


def archive_site(web: DeepWebSite) -> Site:
    """Monitor the local archive: private network allowed, no delay, room for the search pass."""
    return Site.objects.create(
        name="Archive Times",
        root_url=web.url("/"),
        allow_private_network=True,
        crawl_delay=0,
        page_budget=300,
    )


def searched_words(web: DeepWebSite) -> set[str]:
    """Return the words the site's GET search was asked for (result-list pages included)."""
    queries = (dict(parse_qsl(r.query)) for r in web.requests if r.path == "/search")
    return {q["q"] for q in queries if q.get("q")}


@pytest.mark.slow
def test_hidden_articles_matching_a_users_list_reach_that_user_as_clips(
    alice, bob, charlie, client, smtp_server, eager_celery, settings
):
    # This process's keyword index reads new lists every CLIPPING_INDEX_REFRESH_SECONDS; an
    # earlier test in this process may have just refreshed it, and the backfill that covers
    # that gap in production runs at once here (eager Celery), before any page exists.
    settings.CLIPPING_INDEX_REFRESH_SECONDS = 0
    KeywordList.objects.create(owner=alice, name="Health", terms="vaccine")
    KeywordList.objects.create(owner=bob, name="Music", terms="orchestra")
    with DeepWebSite(build_stories(40)) as web:
        site = archive_site(web)
        crawl(site, render_shells="off")
        hidden = {web.url(s.path): s for s in web.hidden()}
        vaccine = {url for url, s in hidden.items() if s.mentions("vaccine")}
        orchestra = {url for url, s in hidden.items() if s.mentions("orchestra")}
        searched = searched_words(web)

    assert vaccine and orchestra
    # The pass searched both users' keywords.
    form = SiteSearch.objects.get(site=site, action=web.url("/search"))
    assert {"vaccine", "orchestra"} <= searched, (searched, form.status, form.reason)
    # Both as written, with results, recorded against the crawl run that searched them.
    typed = RunSearch.objects.filter(form=form, variant="typed", run__site=site)
    assert sorted(typed.values_list("query", "had_results")) == [
        ("orchestra", True),
        ("vaccine", True),
    ]

    alice_clips = set(Match.objects.filter(owner=alice).values_list("clip__url", flat=True))
    bob_clips = set(Match.objects.filter(owner=bob).values_list("clip__url", flat=True))
    assert vaccine <= alice_clips
    assert orchestra <= bob_clips
    # Each person hears only of what their own list asks for.
    assert all(hidden[url].mentions("vaccine") for url in alice_clips & set(hidden))
    assert all(hidden[url].mentions("orchestra") for url in bob_clips & set(hidden))
    assert not Match.objects.filter(owner=charlie).exists()

    # Alice sees them on her clips page and was told by mail.
    client.force_login(alice)
    page = client.get(reverse("clip_index")).content.decode()
    some_title = next(hidden[url].title for url in sorted(vaccine))
    assert some_title in page
    mails = smtp_server.to("alice@example.com")
    assert mails
    assert any(hidden[url].title in str(m) for m in mails for url in vaccine)
    assert smtp_server.to("charlie@example.com") == []


@pytest.mark.slow
def test_a_list_saved_after_the_sites_first_crawl_is_searched_on_the_next(
    alice, bob, smtp_server, eager_celery, settings
):
    # Ingest's keyword index catches up with new lists every CLIPPING_INDEX_REFRESH_SECONDS;
    # the second run starts at once, so the test makes the index read the lists every time.
    settings.CLIPPING_INDEX_REFRESH_SECONDS = 0
    KeywordList.objects.create(owner=alice, name="Health", terms="vaccine")
    with DeepWebSite(build_stories(40)) as web:
        site = archive_site(web)
        crawl(site, render_shells="off")
        assert "vaccine" in searched_words(web) and "orchestra" not in searched_words(web)
        # Bob saves his list once the site's keywords were built (and cached) for the first run.
        music = KeywordList.objects.create(owner=bob, name="Music", terms="orchestra")
        tasks.request_backfill(music.id)  # as the list page does for a new list
        crawl(site, render_shells="off")
        orchestra = {web.url(s.path) for s in web.hidden() if s.mentions("orchestra")}
        assert "orchestra" in searched_words(web)

    assert orchestra
    bob_clips = set(Match.objects.filter(owner=bob).values_list("clip__url", flat=True))
    assert orchestra <= bob_clips
