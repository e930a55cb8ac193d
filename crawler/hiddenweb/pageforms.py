"""The search forms of the pages a crawl fetches: a listing, table or section page may hold
the only search form of a site (a database front end shows it on each table's page).

`forms_pass` is a page pass (`crawler.run.passes`, registered in crawler/apps.py): for each
page the run stores that holds a search-like form whose signature the run has not searched,
it searches the page's forms as `crawler.hiddenweb.runner.search_site` searches a seed's,
with the HTML the crawl fetched, up to FORM_PAGES pages per site and run.
"""

from __future__ import annotations

import re

from crawler.conf import deepweb_settings
from crawler.hiddenweb.runner import STATE, FormMemory, HiddenWebReport, search_in_run
from crawler.run.passes import RunContext
from crawler.sitesearch.analysis import Form, FormParseError, analyze_forms
from crawler.sitesearch.safety import refusal
from crawler.strategies.base import PageObservation

# Pages the crawl fetched (beyond the seeds and their search pages) whose search-like forms
# are searched, per site and run.
FORM_PAGES = 8
_FORM_TAG = re.compile(rb"<form\b[^>]{0,2000}>", re.I)


def forms_pass(context: RunContext, observation: PageObservation) -> HiddenWebReport | None:
    """Search the search-like forms of a page the crawl fetched, when the run has not yet.

    A page pass (registered in crawler/apps.py): a listing, table or section page may hold
    the only search form of the site. At most FORM_PAGES pages per run are searched; a form
    signature searched (or refused) once in the run is not read again.
    """
    memory = context.state.setdefault(STATE, FormMemory())
    if memory.pages >= FORM_PAGES or observation.url in memory.read:
        return None
    if not deepweb_settings().enabled:
        return None
    if not observation.ok:
        return None
    # A header's search form repeats on every page: a page whose form tags were all judged
    # before is not parsed again.
    tags = set(_FORM_TAG.findall(observation.body))
    if tags <= memory.tags:
        return None
    memory.tags |= tags
    html = observation.body.decode("utf-8", "replace")
    try:
        forms = analyze_forms(html, observation.url)
    except FormParseError:
        return None
    if not any(_search_like(f) and f.fingerprint not in memory.done for f in forms):
        return None
    memory.pages += 1
    return search_in_run(context, memory, {observation.url: html})


def _search_like(form: Form) -> bool:
    """Tell whether a form looks like a search: a text box, no script, nothing state-changing."""
    return not form.scripted and bool(form.text_elements) and refusal(form) is None
