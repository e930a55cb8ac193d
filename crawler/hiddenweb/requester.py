"""The hidden-web crawler's requests: GET and POST through the fetcher, or Chromium.

Everything runs on the crawl's fetching event loop through `call`; this module's methods
are called from the crawl thread and block until the answer is in.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from analyzer.encoding import decode
from crawler.fetch.result import FetchResult
from crawler.hiddenweb.browser import BrowserError, FormBrowser
from crawler.run.fetching import FetchBackend
from crawler.sitesearch.analysis import Form
from crawler.sitesearch.template import SearchRequest

logger = logging.getLogger(__name__)

T = TypeVar("T")
TIME_UP = "deadline: the hidden-web pass used its share of the run's time"
Call = Callable[[Coroutine[Any, Any, Any]], Any]


@dataclass
class Answer:
    """A response page as the hidden-web crawler reads it."""

    url: str  # final URL, after redirects
    status: int | None
    html: str = ""
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and self.status is not None and 200 <= self.status < 300


def answer_of(fetched: FetchResult) -> Answer:
    """Return the hidden-web view of a fetch (HTML decoded as the analyzer would)."""
    url = fetched.final_url or fetched.url
    if fetched.error is not None:
        return Answer(url, fetched.status, error=str(fetched.error))
    if fetched.status is None or not 200 <= fetched.status < 300:
        return Answer(url, fetched.status, error=f"http: HTTP {fetched.status}")
    text, _ = decode(fetched.body, fetched.charset)
    return Answer(url, fetched.status, text)


class Requester:
    """Send the hidden-web crawler's requests for one site and count them."""

    def __init__(
        self,
        backend: FetchBackend,
        call: Call,
        *,
        needs_browser: bool,
        deadline: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.backend = backend
        self.call = call
        self.needs_browser = needs_browser
        self.deadline = deadline  # clock() value after which nothing is sent
        self.clock = clock
        self.requests = 0
        self.searched: list[str] = []  # URLs of the searches sent by GET (and their pages)
        self._browser: FormBrowser | None = None

    def expired(self) -> bool:
        """Tell whether the pass has used its time."""
        return self.deadline is not None and self.clock() > self.deadline

    def get(self, url: str, *, search: bool = False, keep_as: str = "") -> Answer:
        """Fetch a page with GET; `search`: a search's results, remembered in `searched`;
        `keep_as`: the URL under which the run's own fetch takes this answer (a seed read for
        its forms is then asked once in the run)."""
        if self.expired():
            return Answer(url, None, error=TIME_UP)
        self.requests += 1
        if search:
            self.searched.append(url)
        fetched = self.call(self.backend.fetch(url))
        if keep_as:
            self.backend.keep(keep_as, fetched)
        return answer_of(fetched)

    def send(self, form: Form, request: SearchRequest) -> Answer:
        """Submit a filled form: by HTTP, or in Chromium for a POST on a site that needs one."""
        if request.method == "GET":
            return self.get(request.url, search=True)
        if self.expired():
            return Answer(request.url, None, error=TIME_UP)
        self.requests += 1
        if self.needs_browser:
            refused = self._robots_refusal(request.url)
            if refused:
                return Answer(request.url, None, error=refused)
            try:
                answer = self.call(
                    self._chromium().submit(
                        form.page_url,
                        form.index,
                        list(request.data),
                        hosts=self.backend.hosts,
                        rules=self.backend.rules,
                    )
                )
            except BrowserError as exc:
                return Answer(request.url, None, error=f"browser: {exc}")
            return Answer(answer.url, answer.status, answer.html)
        result = self.call(self.backend.fetcher.post(request.url, request.data, self.backend.rules))
        return answer_of(result)

    def post(self, request: SearchRequest) -> Answer:
        """Send a POST request by HTTP (a result page's "next page" form), counted."""
        if self.expired():
            return Answer(request.url, None, error=TIME_UP)
        self.requests += 1
        result = self.call(self.backend.fetcher.post(request.url, request.data, self.backend.rules))
        return answer_of(result)

    def _robots_refusal(self, url: str) -> str:
        """Return why robots.txt forbids `url` ("" if it allows it) for browser submissions."""
        rules = self.backend.rules
        if not rules.obey_robots:
            return ""
        robots = self.call(self.backend.fetcher.robots(url, rules))
        if robots.allows(url):
            return ""
        return f"robots: {robots.unreachable or 'disallowed by robots.txt'}"

    def visual_labels(self, html: str, url: str) -> list[dict[str, str]] | None:
        """Return visual labels per form of a page, None when Chromium failed."""
        try:
            return self.call(self._chromium().form_labels(html, url))
        except BrowserError as exc:
            logger.warning("No visual labels for %s: %s", url, exc)
            return None

    def _chromium(self) -> FormBrowser:
        if self._browser is None:
            self._browser = FormBrowser(self.backend.fetcher.policy)
        return self._browser

    def close(self) -> None:
        """Release the browser handle if one was taken (the process's Chromium stays up)."""
        if self._browser is not None:
            browser, self._browser = self._browser, None
            self.call(browser.close())
