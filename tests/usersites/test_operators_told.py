"""Operators are told what waits for them, see runs as records, and read true model names."""

from __future__ import annotations

import re

import pytest
from django.apps import apps
from django.core import mail
from django.urls import reverse

from crawler.models import CrawlRun, Site
from tests.api.clients import ApiClient, token_for
from tests.factories import make_run, make_site, make_user

pytestmark = pytest.mark.django_db


@pytest.mark.slow  # the preview's fetches of one host wait its crawl delay (1 s)
def test_a_site_waiting_for_approval_mails_staff_once_and_shows_a_badge_on_ops(
    client, alice, news, settings, eager_celery, django_capture_on_commit_callbacks
):
    settings.CRAWLER_USER_SITES = "approval"
    make_user("admin@example.com", is_staff=True, is_superuser=True)
    make_user("ops@example.com", is_staff=True)
    client.force_login(alice)
    client.post(reverse("site_preview"), {"url": news.url("/")})
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("site_add"), {"url": news.url("/")})

    site = Site.objects.get()
    assert site.approval == Site.Approval.PENDING
    assert len(mail.outbox) == 1
    told = mail.outbox[0]
    assert sorted(told.to) == ["admin@example.com", "ops@example.com"]
    assert "waits for approval: Harbour Gazette" in told.subject
    assert reverse("admin:crawler_site_change", args=[site.pk]) in told.body

    client.force_login(make_user("staff@example.com", is_staff=True))
    page = client.get(reverse("ops:dashboard")).content.decode()
    badge = re.search(r'data-testid="waiting-sites">(.*?)</p>', page, re.S).group(1)
    assert "?approval__exact=pending" in badge
    said = " ".join(re.sub(r"<[^>]+>", " ", badge).split())
    assert said == "1 site waits for your approval"


def test_no_badge_when_no_site_waits(client):
    make_site()
    client.force_login(make_user("staff@example.com", is_staff=True))
    assert (
        'data-testid="waiting-sites"' not in client.get(reverse("ops:dashboard")).content.decode()
    )


def test_the_approval_columns_come_first_in_the_sites_admin(staff_client):
    make_site()
    page = staff_client.get(reverse("admin:crawler_site_changelist")).content.decode()
    columns = re.findall(r'<th scope="col" class="[^"]*column-(\w+)', page)
    assert columns[:4] == ["name", "approval", "added_by", "visibility"]


def test_a_crawl_run_is_a_record_nobody_edits_or_deletes_in_the_admin(staff_client):
    run = make_run(make_site(), hours_ago=1, fetched=3)
    change = reverse("admin:crawler_crawlrun_change", args=[run.pk])

    page = staff_client.get(change).content.decode()
    assert 'name="_save"' not in page and "deletelink" not in page
    assert staff_client.post(change, {"status": "failed"}).status_code == 403
    delete = reverse("admin:crawler_crawlrun_delete", args=[run.pk])
    assert staff_client.post(delete, {"post": "yes"}).status_code == 403
    changelist = staff_client.get(reverse("admin:crawler_crawlrun_changelist")).content.decode()
    assert "delete_selected" not in changelist
    assert CrawlRun.objects.get(id=run.id).status == CrawlRun.Status.FINISHED


def test_deleting_a_site_still_takes_its_runs_along(staff_client):
    site = make_site()
    make_run(site, hours_ago=1)
    delete = reverse("admin:crawler_site_delete", args=[site.pk])
    staff_client.post(delete, {"post": "yes"})
    assert not Site.objects.exists() and not CrawlRun.objects.exists()


def _naive_plural(name: str) -> str:
    return name + "s"


@pytest.mark.parametrize("app", ["accounts", "clipping", "crawler"])
def test_every_model_has_a_true_name_and_plural(app):
    for model in apps.get_app_config(app).get_models():
        meta = model._meta
        singular, plural = str(meta.verbose_name), str(meta.verbose_name_plural)
        last = singular.split()[-1]
        if re.search(r"(ch|sh|s|x|[^aeiou]y)$", last) or " by a " in singular:
            assert plural != _naive_plural(singular), f"{model.__name__}: {plural}"
        assert " by a " not in plural and not plural.endswith("ys"), f"{model.__name__}: {plural}"
        assert not re.search(r"\bapi\b", singular), f"{model.__name__}: {singular}"


def test_the_last_run_says_one_error_and_one_clip_in_the_singular(client):
    make_run(make_site(), hours_ago=1, fetched=3, errors=1)
    client.force_login(make_user("staff@example.com", is_staff=True))
    page = client.get(reverse("ops:dashboard")).content.decode()
    footer = " ".join(
        re.search(r"<footer><small>(.*?)</small></footer>", page, re.S).group(1).split()
    )
    assert footer.endswith("3 fetched, 0 new, 0 changed, 0 clips, 1 error.")


@pytest.mark.slow  # the preview's fetches of one host wait its crawl delay (1 s)
def test_a_site_added_from_an_opml_import_that_waits_mails_staff_too(
    client, alice, news, settings, eager_celery, django_capture_on_commit_callbacks
):
    settings.CRAWLER_USER_SITES = "approval"
    make_user("admin@example.com", is_staff=True)
    client.force_login(alice)
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("sites_import_follow"), {"url": [news.url("/")]})

    assert Site.objects.get().approval == Site.Approval.PENDING
    assert [m.to for m in mail.outbox] == [["admin@example.com"]]


@pytest.mark.slow  # the preview's fetches of one host wait its crawl delay (1 s)
def test_a_site_added_over_the_api_that_waits_mails_staff_too(
    client, alice, news, settings, eager_celery, django_capture_on_commit_callbacks
):
    settings.CRAWLER_USER_SITES = "approval"
    make_user("admin@example.com", is_staff=True, is_superuser=True)
    api = ApiClient(client, token_for(alice))
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        added = api.send("POST", "/api/sites", {"url": news.url("/")})

    assert added.status_code == 201 and added.json()["approval"] == "pending"
    assert [message.to for message in mail.outbox] == [["admin@example.com"]]
    assert "waits for approval" in mail.outbox[0].subject
