"""Sites in Django admin: validation, the crawl-now action, and the due-site dispatcher."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from crawler.models import Site
from crawler.tasks import dispatch_due_sites
from tests.crawler.sites import site_form

pytestmark = pytest.mark.django_db


@pytest.fixture
def crawl_queue():
    """The real Redis list behind the crawl queue, emptied first."""
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.delete("crawl")
    yield client
    client.delete("crawl")


def queued_tasks(client) -> list[tuple[str, list]]:
    messages = [json.loads(raw) for raw in client.lrange("crawl", 0, -1)]
    return [
        (m["headers"]["task"], json.loads(__import__("base64").b64decode(m["body"]))[0])
        for m in messages
    ]


def test_an_admin_adds_a_site(staff_client):
    response = staff_client.post(reverse("admin:crawler_site_add"), site_form())
    assert response.status_code == 302, response.context["adminform"].form.errors
    site = Site.objects.get()
    assert site.seeds() == ["http://127.0.0.1:8765/", "http://127.0.0.1:8765/news/"]
    assert site.host_list() == ["127.0.0.1"]
    assert site.obey_robots and site.allow_private_network


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"root_url": "ftp://127.0.0.1/"}, "root_url"),
        ({"seed_urls": "javascript:alert(1)"}, "seed_urls"),
        ({"seed_urls": "http://elsewhere.example/"}, "seed_urls"),
        ({"allowed_hosts": "not a host"}, "allowed_hosts"),
        ({"exclude_patterns": "([unclosed"}, "exclude_patterns"),
    ],
)
def test_the_site_form_refuses_bad_urls_and_patterns(staff_client, overrides, field):
    response = staff_client.post(reverse("admin:crawler_site_add"), site_form(**overrides))
    assert response.status_code == 200
    assert field in response.context["adminform"].form.errors
    assert not Site.objects.exists()


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"allow_private_network": ""}, "root_url", "Allow private network"),
        ({"root_url": "http://169.254.169.254/", "seed_urls": ""}, "root_url", "metadata"),
        ({"root_url": "http://[fe80::1]:8765/", "seed_urls": ""}, "root_url", "link-local"),
        ({"seed_urls": "http://169.254.1.1/"}, "seed_urls", "link-local"),
        ({"seed_urls": "http://0xa9fea9fe/"}, "seed_urls", "169.254.169.254"),
        ({"seed_urls": "gopher://127.0.0.1:8765/"}, "seed_urls", "http"),
    ],
)
def test_the_site_form_refuses_urls_the_crawler_would_refuse(
    staff_client, overrides, field, message
):
    response = staff_client.post(reverse("admin:crawler_site_add"), site_form(**overrides))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert field in errors and message in " ".join(errors[field]), errors
    assert not Site.objects.exists()


def test_a_site_with_a_private_root_url_is_refused_without_the_flag():
    site = Site(name="x", root_url="http://10.1.2.3/", allow_private_network=False)
    with pytest.raises(ValidationError) as refused:
        site.full_clean()
    assert "private address" in " ".join(refused.value.message_dict["root_url"])
    site.allow_private_network = True
    site.full_clean()


def test_safe_defaults_for_a_new_site():
    site = Site(name="x", root_url="https://example.org/")
    assert site.obey_robots is True
    assert site.allow_private_network is False


@pytest.mark.redis
def test_crawl_now_enqueues_a_crawl_task_on_the_broker(
    staff_client, crawl_queue, django_capture_on_commit_callbacks
):
    site = Site.objects.create(name="Local", root_url="http://127.0.0.1:8765/")
    with django_capture_on_commit_callbacks(execute=True):
        staff_client.post(
            reverse("admin:crawler_site_changelist"),
            {"action": "crawl_now", "_selected_action": [site.pk]},
        )
    assert queued_tasks(crawl_queue) == [("crawler.tasks.crawl_site", [site.pk])]


@pytest.mark.redis
def test_the_dispatcher_enqueues_due_sites_once(crawl_queue, django_capture_on_commit_callbacks):
    now = timezone.now()
    due = Site.objects.create(
        name="Due", root_url="http://127.0.0.1:8001/", next_crawl_at=now - timedelta(minutes=1)
    )
    Site.objects.create(
        name="Later", root_url="http://127.0.0.1:8002/", next_crawl_at=now + timedelta(hours=1)
    )
    Site.objects.create(name="Off", root_url="http://127.0.0.1:8003/", enabled=False)
    with django_capture_on_commit_callbacks(execute=True):
        assert dispatch_due_sites() == 1
        assert dispatch_due_sites() == 0
    assert queued_tasks(crawl_queue) == [("crawler.tasks.crawl_site", [due.pk])]
    due.refresh_from_db()
    assert due.next_crawl_at > now
