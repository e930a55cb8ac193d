"""URL templates (He et al. section 4): a GET search form as a URL with a {query} slot.

Submitting query q with every other field at its default is the same as fetching the
template with {query} replaced by q. A POST search form keeps the same description; it is
submitted with the filled pairs as its body instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote_plus, urlsplit, urlunsplit

from crawler.hiddenweb.assignments import Assignment, Plan, plan_form
from crawler.hiddenweb.lvs import LabelValues, keyword_row
from crawler.hiddenweb.safety import refusal
from crawler.sitesearch.analysis import Form, analyze_forms

QUERY = "{query}"


@dataclass(frozen=True)
class SearchRequest:
    """One submission: method, URL, and the form body for POST (empty for GET)."""

    method: str
    url: str
    data: tuple[tuple[str, str], ...] = ()
    enctype: str = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class SearchTemplate:
    """A site's keyword search: where it goes, how, and which argument takes the keywords."""

    page_url: str  # the page the form was found on
    action: str
    method: str  # "GET" or "POST"
    query_arg: str  # the keyword-query argument (the element that takes the keywords)
    fields: tuple[tuple[str, str], ...]  # every pair sent, QUERY in the keyword argument
    enctype: str = "application/x-www-form-urlencoded"
    form_index: int = 0

    @property
    def url(self) -> str:
        """Return the URL template with {query} (the action itself for POST)."""
        if self.method != "GET":
            return self.action
        return _with_query(self.action, encode(self.fields, keep=QUERY))

    def url_for(self, query: str) -> str:
        """Return the GET URL that searches `query` (the action for POST)."""
        return self.request_for(query).url

    def request_for(self, query: str) -> SearchRequest:
        """Return the request that searches `query` with every other field at its default."""
        pairs = tuple((name, query if value == QUERY else value) for name, value in self.fields)
        return build_request(self.action, self.method, pairs, self.enctype)


def build_request(
    action: str, method: str, pairs: Sequence[tuple[str, str]], enctype: str = ""
) -> SearchRequest:
    """Return the request a browser sends for a form's pairs (GET replaces the action's query)."""
    if method == "GET":
        return SearchRequest("GET", _with_query(action, encode(pairs)))
    return SearchRequest(
        "POST", action, tuple(pairs), enctype or "application/x-www-form-urlencoded"
    )


def request_for_assignment(form: Form, assignment: Assignment) -> SearchRequest:
    """Return the request that submits `form` filled with `assignment`."""
    pairs = form.fill(dict(assignment.values))
    return build_request(form.action, form.method, pairs, form.enctype)


def encode(pairs: Sequence[tuple[str, str]], keep: str = "") -> str:
    """Return form-urlencoded pairs (spaces as "+"), leaving a `keep` value unescaped."""
    return "&".join(
        f"{quote_plus(name)}={value if keep and value == keep else quote_plus(value)}"
        for name, value in pairs
    )


def _with_query(action: str, query: str) -> str:
    parts = urlsplit(action)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", query, ""))


def template_for(plan: Plan) -> SearchTemplate | None:
    """Return the URL template of a submittable plan with a keyword element, else None."""
    keyword = plan.keyword_element
    if not plan.submittable or keyword is None:
        return None
    form = plan.form
    defaults = {s.element.name: s.choices[0].value for s in plan.sets if s.choices}
    defaults[keyword.name] = QUERY
    return SearchTemplate(
        page_url=form.page_url,
        action=form.action,
        method=form.method,
        query_arg=keyword.name,
        fields=tuple(form.fill(defaults)),
        enctype=form.enctype,
        form_index=form.index,
    )


def find_search_templates(
    html: str | bytes,
    url: str,
    *,
    rows: Sequence[LabelValues] = (),
    threshold: float = 0.8,
    language: str = "en",
) -> list[SearchTemplate]:
    """Return the URL templates of a page's safe keyword search forms, GET forms first.

    `rows` is the LVS table; without one, a search box is recognised by the users' keyword
    row's usual labels ("search", "keywords", "query"...) or by being a search form's only
    text box.
    """
    table = list(rows) or [keyword_row({QUERY: 1.0})]
    if not any(row.source == "users" for row in table):
        table.append(keyword_row({QUERY: 1.0}))
    templates = []
    for form in analyze_forms(html, url):
        if refusal(form) is not None:
            continue
        template = template_for(
            plan_form(form, table, threshold=threshold, alpha=1, language=language)
        )
        if template is not None:
            templates.append(template)
    return sorted(templates, key=lambda t: (t.method != "GET", t.form_index))
