"""What extraction hands to storage and to the strategy: the crawler's view of one body."""

from __future__ import annotations

from dataclasses import dataclass, field

from analyzer.model import PageAnalysis
from crawler.extract.feeds import ListedDate
from crawler.models.pages import HUB_PAGE, SEARCH_PAGE, ArticleArea, ArticleText
from crawler.models.sitesearch import is_search_result
from crawler.strategies.base import HUB, LinkRecord


@dataclass
class Extracted:
    """What analysing a body produced: the page kind, a summary to store, and its links."""

    kind: str = ""  # Page.Kind value or ""
    title: str = ""
    has_information: bool = False
    summary: dict[str, object] = field(default_factory=dict)
    links: list[LinkRecord] = field(default_factory=list)
    feeds: list[str] = field(default_factory=list)  # RSS/Atom feeds the page announces
    sitemaps: list[str] = field(default_factory=list)  # nested sitemaps of a sitemap index
    encoding: str = ""
    analysis: object = None  # the analyzer's PageAnalysis, for strategies
    item_texts: dict[str, str] = field(default_factory=dict)  # a feed's words per item URL
    item_dates: dict[str, ListedDate] = field(default_factory=dict)  # when each was published
    article: ArticleText | None = None  # what clipping reads of an informational page


def judged(extracted: Extracted, site_id: int | None, url: str) -> Extracted:
    """Return the extraction with its verdict for clipping, worked out once for the page.

    1. A search result page is a hub whatever text its results show (never a clip).
    2. A page with informational areas keeps what clipping needs: its text, its areas that
       can make clips (teasers and empty areas cannot: the article a teaser announces is
       clipped when it is fetched), its title, language and declared publication times; or,
       for a hub, why it makes none.
    """
    analysis = extracted.analysis
    if analysis is None:
        return extracted
    if is_search_result(site_id, url):
        extracted.kind, extracted.has_information = HUB, False
        extracted.article = ArticleText(not_article=SEARCH_PAGE)
        return extracted
    if not extracted.has_information:
        return extracted
    if extracted.kind == HUB:
        extracted.article = ArticleText(not_article=HUB_PAGE)
        return extracted
    extracted.article = article_of(analysis)
    return extracted


def article_of(analysis: PageAnalysis) -> ArticleText:
    """Return what clipping reads of an analysed article page (a `PageAnalysis`)."""
    return ArticleText(
        language=analysis.language,
        title=analysis.title,
        text=analysis.text,
        areas=tuple(
            ArticleArea(area.path, area.title, area.text)
            for area in analysis.informational_areas
            if not area.teaser and area.text.strip()
        ),
        published=analysis.published,
    )


def packed_article(analysis: PageAnalysis) -> bytes | None:
    """Return an article page's text as a version keeps it, None for a page that makes no
    clips by its analysis alone (a hub, or no informational area)."""
    if analysis.kind == HUB or not analysis.informational_areas:
        return None
    return article_of(analysis).pack()
