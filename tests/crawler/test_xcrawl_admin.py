"""xCrawl in the admin: sample documents and the search template on the site form, proposals."""

from __future__ import annotations

import pytest
from django.urls import reverse

from crawler.models import Site
from crawler.models.sitesearch import SiteSearch
from crawler.models.xcrawl import ProposedSite, SampleDocument
from tests.crawler.sites import site_form

pytestmark = pytest.mark.django_db

TEMPLATE = "https://news.example.com/search?q={query}&lang=en"


def prefix(model: type) -> str:
    """Return the admin formset prefix of an inline of `model` on the site form."""
    return model._meta.get_field("site").remote_field.get_accessor_name()


def test_the_site_form_takes_sample_documents_and_a_search_template(staff_client):
    samples, searches = prefix(SampleDocument), prefix(SiteSearch)
    form = site_form(strategy="xcrawl")
    form.update(
        {
            f"{samples}-TOTAL_FORMS": "2",
            f"{samples}-0-url": "https://news.example.com/solar",
            f"{samples}-1-text": "Households get a solar subsidy for every panel.",
            f"{searches}-TOTAL_FORMS": "1",
            f"{searches}-0-url_template": TEMPLATE,
        }
    )

    response = staff_client.post(reverse("admin:crawler_site_add"), form)

    assert response.status_code == 302, response.context["errors"]
    site = Site.objects.get()
    assert [(s.url, s.text) for s in site.sample_documents.all()] == [
        ("https://news.example.com/solar", ""),
        ("", "Households get a solar subsidy for every panel."),
    ]
    search = SiteSearch.objects.get(site=site)
    assert (search.url_template, search.source) == (TEMPLATE, SiteSearch.Source.ADMIN)


def test_a_search_template_without_a_query_slot_is_refused_on_the_site_form(staff_client):
    form = site_form()
    searches = prefix(SiteSearch)
    form.update({f"{searches}-TOTAL_FORMS": "1", f"{searches}-0-url_template": "https://a.test/"})

    response = staff_client.post(reverse("admin:crawler_site_add"), form)

    assert response.status_code == 200
    assert "{query}" in response.content.decode()
    assert not Site.objects.exists()


def test_the_site_page_shows_its_sample_documents_and_search_template(staff_client):
    site = Site.objects.create(name="News", root_url="https://news.example.com/")
    SampleDocument.objects.create(site=site, text="A sample about solar subsidies.")
    SiteSearch.objects.create(site=site, source=SiteSearch.Source.ADMIN, url_template=TEMPLATE)

    page = staff_client.get(reverse("admin:crawler_site_change", args=[site.pk])).content.decode()

    assert "A sample about solar subsidies." in page
    assert TEMPLATE.replace("&", "&amp;") in page


def proposal(root: str = "https://energy.example.org/") -> ProposedSite:
    return ProposedSite.objects.create(
        root_url=root, authority_urls=[f"{root}solar", f"{root}panels"], queries=["solar"]
    )


def test_approving_a_proposal_monitors_the_site_with_xcrawl_from_its_authorities(staff_client):
    pending = proposal()

    staff_client.post(
        reverse("admin:crawler_proposedsite_changelist"),
        {"action": "approve", "_selected_action": [pending.pk]},
    )

    site = Site.objects.get()
    assert site.root_url == "https://energy.example.org/"
    assert site.strategy == Site.Strategy.XCRAWL
    assert "https://energy.example.org/solar" in site.seeds()
    pending.refresh_from_db()
    assert pending.status == ProposedSite.Status.APPROVED and pending.site == site


def test_a_rejected_proposal_creates_no_site_and_cannot_be_approved_later(staff_client):
    pending = proposal()
    changelist = reverse("admin:crawler_proposedsite_changelist")

    staff_client.post(changelist, {"action": "reject", "_selected_action": [pending.pk]})
    staff_client.post(changelist, {"action": "approve", "_selected_action": [pending.pk]})

    pending.refresh_from_db()
    assert pending.status == ProposedSite.Status.REJECTED
    assert not Site.objects.exists()
