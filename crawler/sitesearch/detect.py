"""Which of a page's forms are the site's keyword search, as URL templates.

A form is a keyword search when the crawler may submit it (`crawler.sitesearch.safety`), a
script does not submit it, and its only text box takes the keywords: the form says it
searches, or the box is labelled like a search box (He et al.: 93% of search forms have
exactly one text box). Every other field keeps its default. Hidden-web crawling fills
richer forms from its LVS table instead (`crawler.hiddenweb.assignments`).
"""

from __future__ import annotations

import re

from crawler.sitesearch.analysis import Element, Form, FormParseError, analyze_forms
from crawler.sitesearch.safety import has_search_signal, refusal
from crawler.sitesearch.template import SearchTemplate

# How search boxes tend to be labelled; the LVS row of users' keywords uses the same words.
KEYWORD_LABEL = "search"
KEYWORD_ALIASES = (
    "keyword",
    "keywords",
    "search for",
    "search terms",
    "search the site",
    "search articles",
    "query",
    "find",
    "words",
    "all words",
    "any words",
    "phrase",
    "exact phrase",
    "look for",
    "text",
    "term",
    "q",
    "s",
)
_KEYWORD_LABELS = frozenset({KEYWORD_LABEL, *KEYWORD_ALIASES})
_PUNCTUATION = re.compile(r"[^\w]+")


def keyword_box(form: Form) -> Element | None:
    """Return the element a keyword search of `form` types into, None if it is no such search."""
    if form.scripted or refusal(form) is not None or len(form.text_elements) != 1:
        return None
    (box,) = form.text_elements
    if has_search_signal(form) or _plain(box.label) in _KEYWORD_LABELS:
        return box
    return None


def search_forms(html: str | bytes, url: str) -> list[tuple[Form, SearchTemplate]]:
    """Return a page's keyword search forms with their URL templates, GET forms first.

    Raises FormParseError when the page cannot be parsed.
    """
    found = []
    for form in analyze_forms(html, url):
        box = keyword_box(form)
        if box is not None:
            found.append((form, SearchTemplate.of_form(form, box.name)))
    return sorted(found, key=lambda pair: (pair[0].method != "GET", pair[0].index))


def find_search_templates(html: str | bytes, url: str) -> list[SearchTemplate]:
    """Return the URL templates of a page's keyword search forms, GET forms first."""
    return [template for _, template in search_forms(html, url)]


def find_search_template(html: str | bytes, url: str) -> str | None:
    """Return the URL template of the page's first GET keyword search form, if any."""
    try:
        templates = find_search_templates(html, url)
    except FormParseError:
        return None
    return next((t.url for t in templates if t.method == "GET"), None)


def _plain(label: str) -> str:
    return " ".join(_PUNCTUATION.sub(" ", label.lower()).split())
