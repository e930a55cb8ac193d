"""Sample documents of a site: pasted text, or a URL fetched once and kept as text."""

from __future__ import annotations

import logging

from django.utils import timezone

from crawler.models import Site
from crawler.models.xcrawl import SampleDocument

logger = logging.getLogger(__name__)


def sample_texts(site: Site, *, fetch_missing: bool = True) -> list[str]:
    """Return the texts of the site's samples, fetching URL samples never fetched."""
    texts = []
    for sample in SampleDocument.objects.filter(site=site):
        if fetch_missing and not sample.text.strip() and sample.url and sample.fetched_at is None:
            fetch_sample(sample)
        if content := sample.content():
            texts.append(content)
    return texts


def fetch_sample(sample: SampleDocument) -> bool:
    """Fetch a URL sample and keep its main text; record the error and return False on failure."""
    from analyzer import AnalyzerError, analyze
    from crawler.fetch import SiteRules, fetch_url

    result = fetch_url(sample.url, SiteRules.of(sample.site))
    error = ""
    text = ""
    if result.error is not None or not result.body:
        error = str(result.error or f"HTTP {result.status}, empty body")
    else:
        try:
            analysis = analyze(
                result.body, result.final_url or sample.url, declared_encoding=result.charset
            )
            text = analysis.main_text or analysis.text
        except AnalyzerError as exc:
            error = f"{type(exc).__name__}: {exc}"
    if error:
        logger.info("Sample %s could not be read: %s", sample.url, error)
    SampleDocument.objects.filter(id=sample.id).update(
        fetched_text=text, fetched_at=timezone.now(), error=error[:300]
    )
    sample.fetched_text, sample.error = text, error[:300]
    return not error
