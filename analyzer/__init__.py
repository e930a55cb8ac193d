"""Page Analyzer: a plain Python library that turns HTML into areas, clips and link hints.

No Django, no I/O: the crawler calls it in-process for every page. The stable interface:

    analyze(html: str | bytes, url: str | None = None, *,
            declared_encoding: str | None = None) -> PageAnalysis
        Bytes are decoded by BOM > declared_encoding (the HTTP charset) > <meta> >
        detection; bad bytes become U+FFFD. Raises AnalyzerError subclasses only
        (NotHTMLError, PageTooLargeError, PageTooDeepError, PageTooComplexError), never
        anything else; limits live in analyzer.settings.

    PageAnalysis: url, kind ("information" | "hub"), kind_score (0..1, >= 0.5 is
        information), title, language (ISO 639-1), main_text (the page's main content,
        the article body without its headline, whatever the page's kind), informational_areas: list[InfoArea], hub_areas: list[HubArea],
        navigational_areas: list[NavArea], links: list[Link], text (all visible text),
        encoding, thresholds (ThrIV, ThrHV used), published (an article's declared
        publication times, most trusted first), to_dict().
    Every area: path ("html/body/div[2]/article[1]"), selector (CSS), text, iv, hv, ltr,
        lar, text_chars (T), link_chars (Ltext), link_count (L), reason, links.
        InfoArea adds title, teaser, follow_url (the article a teaser summarises), main.
    Link: url (absolute, fragment removed), text (anchor text), context (text around it),
        area_kind ("information" | "hub" | "navigation" | "other"), area_path (path of
        the area holding it, or of its parent element), path (the <a> itself), rel,
        nofollow.

    extract_clips(analysis, terms: Iterable[str]) -> list[Clip]
        One clip per term and sentence in informational areas (teasers excepted). Terms
        match case-insensitively on word boundaries and by Snowball stems of the page's
        language ("subsidy" finds "subsidies"). Clip: title, summary (sentence before,
        with and after), term, span (of the match in summary), matched, area_path, url.
    extract_follow_hints(analysis, terms) -> list[FollowHint]
        Teasers and hub links whose text holds a term: the user is told about the
        article, not this page. FollowHint: url (the article), term, title, teaser,
        area_path, page_url.
    find_terms(text, terms, language) -> list[(term, start, end)]
    summarize(text, start, end, language) -> (summary, span)
    clip_for_span(analysis, area, start, end, term=None) -> Clip
        For matches found by another index (clipping's keyword index) in area.text.

Command line: python -m analyzer FILE.html [--url URL] [--terms "a,b"] [--json|--explain]
"""

from analyzer.clips import (
    clip_for_span,
    extract_clips,
    extract_follow_hints,
    find_terms,
    summarize,
)
from analyzer.errors import (
    AnalyzerError,
    NotHTMLError,
    PageTooComplexError,
    PageTooDeepError,
    PageTooLargeError,
)
from analyzer.model import (
    Area,
    Clip,
    FollowHint,
    HubArea,
    InfoArea,
    Link,
    NavArea,
    PageAnalysis,
    Thresholds,
)
from analyzer.pipeline import analyze

__all__ = [
    "AnalyzerError",
    "Area",
    "Clip",
    "FollowHint",
    "HubArea",
    "InfoArea",
    "Link",
    "NavArea",
    "NotHTMLError",
    "PageAnalysis",
    "PageTooComplexError",
    "PageTooDeepError",
    "PageTooLargeError",
    "Thresholds",
    "analyze",
    "clip_for_span",
    "extract_clips",
    "extract_follow_hints",
    "find_terms",
    "summarize",
]
