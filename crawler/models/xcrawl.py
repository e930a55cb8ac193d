"""xCrawl's models: sample documents, search engines, proposed sites, verdicts.

Imported at the end of crawler/models/__init__.py so Django sees them in the crawler app.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils import timezone

from crawler.models.site import Site, _validate_http_url


class SampleDocument(models.Model):
    """A page an admin gives as an example of what to find on a site (URL or pasted text)."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="sample_documents")
    url = models.URLField(
        max_length=2083, blank=True, validators=[_validate_http_url], help_text="Fetched once."
    )
    text = models.TextField(blank=True, help_text="Pasted text (used as is, no fetch).")
    fetched_text = models.TextField(blank=True, editable=False)
    fetched_at = models.DateTimeField(null=True, blank=True, editable=False)
    error = models.CharField(max_length=300, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["site", "id"]

    def __str__(self) -> str:
        return self.url or (self.text[:60] + ("…" if len(self.text) > 60 else ""))

    def clean(self) -> None:
        super().clean()
        if not self.url.strip() and not self.text.strip():
            raise ValidationError("Give a URL or paste the text of a sample document.")

    def content(self) -> str:
        """Return the sample's text: pasted, else fetched (empty until fetched)."""
        return self.text.strip() or self.fetched_text


class SearchEngine(models.Model):
    """A SearxNG-compatible JSON search API used to find new sites for the topic."""

    name = models.CharField(max_length=100)
    base_url = models.URLField(
        max_length=500,
        validators=[_validate_http_url],
        help_text="The instance's address; queries go to BASE/search?q=...&format=json.",
    )
    enabled = models.BooleanField(default=True)
    results_per_query = models.PositiveSmallIntegerField(
        default=10, help_text="First n results read per query."
    )
    params = models.JSONField(
        default=dict, blank=True, help_text='Extra query parameters, e.g. {"language": "en"}.'
    )
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    last_error = models.CharField(max_length=300, blank=True, editable=False)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        if not isinstance(self.params, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in self.params.items()
        ):
            raise ValidationError({"params": "Give an object of text values."})


class ProposedSiteQuerySet(models.QuerySet["ProposedSite"]):
    def pending(self) -> ProposedSiteQuerySet:
        return self.filter(status=ProposedSite.Status.PENDING)


class ProposedSite(models.Model):
    """A site where an external search found authorities; crawled only once an admin approves."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for approval"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    root_url = models.URLField(max_length=500, unique=True, validators=[_validate_http_url])
    engine = models.ForeignKey(
        SearchEngine, on_delete=models.SET_NULL, null=True, blank=True, related_name="proposals"
    )
    authority_urls = models.JSONField(default=list, blank=True)
    queries = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    site = models.ForeignKey(
        Site, on_delete=models.SET_NULL, null=True, blank=True, related_name="proposals"
    )
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )

    objects = ProposedSiteQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "id"]

    def __str__(self) -> str:
        return self.root_url

    @property
    def host(self) -> str:
        return urlsplit(self.root_url).netloc

    def approve(self, user=None) -> Site | None:
        """Create (or reuse) the Site with xCrawl and the authorities as seeds; None if decided."""
        with transaction.atomic():
            claimed = (
                ProposedSite.objects.pending()
                .filter(id=self.id)
                .update(status=self.Status.APPROVED, decided_at=timezone.now(), decided_by=user)
            )
            if claimed != 1:
                return None
            site = Site.objects.filter(root_url=self.root_url).first()
            if site is None:
                site = Site(
                    name=self.host,
                    root_url=self.root_url,
                    seed_urls="\n".join(self.authority_urls[:50]),
                    strategy=Site.Strategy.XCRAWL,
                )
                site.full_clean()
                site.save()
            ProposedSite.objects.filter(id=self.id).update(site=site)
        self.refresh_from_db()
        return site

    def reject(self, user=None) -> bool:
        """Mark the proposal rejected; False if it was already decided."""
        return (
            ProposedSite.objects.pending()
            .filter(id=self.id)
            .update(status=self.Status.REJECTED, decided_at=timezone.now(), decided_by=user)
            == 1
        )


class PageVerdict(models.Model):
    """xCrawl's memory of a page: the validator's verdict and the page's last hub weight."""

    page = models.OneToOneField(
        "crawler.Page", on_delete=models.CASCADE, primary_key=True, related_name="verdict"
    )
    accepted = models.BooleanField(default=False, help_text="An authority for the topic.")
    score = models.FloatField(default=0.0, help_text="Topic score of the informational text.")
    hub = models.FloatField(default=0.0, help_text="HITS hub weight at the last restart.")
    validated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["accepted"], name="crawler_verdict_accepted")]

    def __str__(self) -> str:
        return f"{self.page_id}: {'authority' if self.accepted else 'not accepted'}"
