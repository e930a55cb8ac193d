"""Every admin page of every app opens for a superuser: changelist, add form, change form.

The test runs once per registered ModelAdmin; a model admin registered without a sample
object below fails until one is added to SAMPLES.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib import admin
from django.db.models import Model
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from accounts.models import ApiToken
from tests.factories import make_list, make_match, make_run, make_site, make_user, store_version

pytestmark = pytest.mark.django_db

Sample = Callable[[Model], Model]  # the superuser -> one saved object of the model


def _group(user):
    from django.contrib.auth.models import Group

    return Group.objects.create(name="Editors")


def _email_address(user):
    from allauth.account.models import EmailAddress

    return EmailAddress.objects.get(user=user)


def _interval(user):
    from django_celery_beat.models import IntervalSchedule

    return IntervalSchedule.objects.create(every=10, period=IntervalSchedule.MINUTES)


def _crontab(user):
    from django_celery_beat.models import CrontabSchedule

    return CrontabSchedule.objects.create(minute="0", hour="6")


def _solar(user):
    from django_celery_beat.models import SolarSchedule

    return SolarSchedule.objects.create(event="sunrise", latitude=52.5, longitude=13.4)


def _clocked(user):
    from django_celery_beat.models import ClockedSchedule

    return ClockedSchedule.objects.create(clocked_time=timezone.now() + timedelta(days=1))


def _periodic_task(user):
    from django_celery_beat.models import PeriodicTask

    return PeriodicTask.objects.create(
        name="Crawl due sites", task="crawler.tasks.dispatch_due_sites", interval=_interval(user)
    )


def _match(user):
    return make_match(make_list(user, "Energy", "subsidy"))


def _digest(user):
    from clipping.models import Digest

    return Digest.objects.create(user=user, kind="daily", period=timezone.now())


def _delivery(user):
    from clipping.models import Delivery

    return Delivery.objects.create(
        user=user, kind="instant", match=_match(user), address=user.email
    )


def _suppression(user):
    from clipping.models import Suppression

    return Suppression.objects.create(address="gone@example.com", reason="bounced")


def _webhook_event(user):
    from clipping.models import WebhookEvent

    return WebhookEvent.objects.create(esp="Postmark", event_id="1", event_type="bounced")


def _site(user):
    site = make_site()
    make_run(site, hours_ago=1, fetched=3, new=2)
    store_version(site, "https://news.example.com/news/solar", "<h1>Solar</h1>")
    return site


def _run(user):
    return make_run(make_site(), hours_ago=1, fetched=3, new=2)


def _page(user):
    return store_version(make_site(), "https://news.example.com/", "<a href='/a'>A</a>").page


def _label_value_set(user):
    from crawler.models.hiddenweb import LabelValue, LabelValueSet

    row = LabelValueSet.objects.create(label="Region", aliases="Area")
    LabelValue.objects.create(row=row, value="North", weight=0.8)
    return row


def _site_search(user):
    from crawler.models.sitesearch import SiteSearch

    return SiteSearch.objects.create(
        site=make_site(),
        fingerprint="f" * 64,
        page_url="https://news.example.com/",
        action="https://news.example.com/search",
        url_template="https://news.example.com/search?q={query}",
        query_arg="q",
    )


def _sample_document(user):
    from crawler.models.xcrawl import SampleDocument

    return SampleDocument.objects.create(site=make_site(), text="Solar subsidies for households.")


def _search_engine(user):
    from crawler.models.xcrawl import SearchEngine

    return SearchEngine.objects.create(name="Searx", base_url="https://searx.example.org/")


def _proposed_site(user):
    from crawler.models.xcrawl import ProposedSite

    return ProposedSite.objects.create(
        root_url="https://energy.example.org/",
        authority_urls=["https://energy.example.org/solar"],
        queries=["solar subsidy"],
        engine=_search_engine(user),
    )


def _run_search(user):
    from crawler.models.hiddenweb import RunSearch

    run = _run(user)
    return RunSearch.objects.create(
        site=run.site, run=run, query='"solar subsidies"', keyword="solar subsidies", pages=2
    )


def _run_render(user):
    from crawler.models.hiddenweb import RunRender

    run = _run(user)
    return RunRender.objects.create(
        site=run.site, run=run, url="https://news.example.com/live/", reason="script shell"
    )


def _site_lesson(user):
    from crawler.models import SiteLesson

    run = _run(user)
    return SiteLesson.objects.create(
        site=run.site, run=run, kind=SiteLesson.Kind.PARAMETER, key="ref",
        example="https://news.example.com/story/?ref=search-1-3",
    )  # fmt: skip


SAMPLES: dict[str, Sample] = {
    "auth.group": _group,
    "account.emailaddress": _email_address,
    "accounts.user": lambda user: user,
    "accounts.apitoken": lambda user: ApiToken.issue(user, "script")[0],
    "django_celery_beat.intervalschedule": _interval,
    "django_celery_beat.crontabschedule": _crontab,
    "django_celery_beat.solarschedule": _solar,
    "django_celery_beat.clockedschedule": _clocked,
    "django_celery_beat.periodictask": _periodic_task,
    "clipping.keywordlist": lambda user: make_list(user, "Energy", "subsidy"),
    "clipping.clip": lambda user: _match(user).clip,
    "clipping.match": _match,
    "clipping.digest": _digest,
    "clipping.delivery": _delivery,
    "clipping.suppression": _suppression,
    "clipping.webhookevent": _webhook_event,
    "crawler.site": _site,
    "crawler.crawlrun": _run,
    "crawler.page": _page,
    "crawler.labelvalueset": _label_value_set,
    "crawler.sitesearch": _site_search,
    "crawler.sampledocument": _sample_document,
    "crawler.searchengine": _search_engine,
    "crawler.proposedsite": _proposed_site,
    "crawler.runsearch": _run_search,
    "crawler.runrender": _run_render,
    "crawler.sitelesson": _site_lesson,
}

REGISTERED = sorted(admin.site._registry.items(), key=lambda item: item[0]._meta.label_lower)


@pytest.mark.parametrize(
    ("model", "model_admin"), REGISTERED, ids=[m._meta.label_lower for m, _ in REGISTERED]
)
def test_the_admin_pages_of_every_registered_model_open(client, model, model_admin):
    superuser = make_user("admin@example.com", is_staff=True, is_superuser=True)
    label = model._meta.label_lower
    assert label in SAMPLES, f"No sample object for {label}: add one to SAMPLES."
    obj = SAMPLES[label](superuser)
    client.force_login(superuser)
    request = RequestFactory().get("/admin/")
    request.user = superuser
    url = f"admin:{model._meta.app_label}_{model._meta.model_name}"

    assert client.get(reverse(f"{url}_changelist")).status_code == 200
    if model_admin.get_search_fields(request):
        assert client.get(reverse(f"{url}_changelist"), {"q": "a"}).status_code == 200
    if model_admin.has_add_permission(request):
        assert client.get(reverse(f"{url}_add")).status_code == 200
    change = client.get(reverse(f"{url}_change", args=[obj.pk]))
    assert change.status_code == 200
    assert change.context["original"] == obj


def test_every_sample_belongs_to_a_registered_model_admin():
    registered = {model._meta.label_lower for model, _ in REGISTERED}
    assert set(SAMPLES) <= registered, (
        f"Samples of unregistered models: {set(SAMPLES) - registered}"
    )
