"""The crawl loop's window onto fetching: the fetcher (crawler.fetch) and the browser
(crawler.render) for one site, with results turned into `crawler.store.pages.Fetched`.

Everything here runs on the crawl's event loop; nothing touches the database.
"""

from __future__ import annotations

from crawler.fetch import (
    Fetcher,
    FetchError,
    FetchResult,
    SiteRules,
    check_url,
    content_kind,
    policy_from_settings,
)
from crawler.models import Site
from crawler.render import RenderedPage, Renderer, needs_rendering, open_renderer
from crawler.store.pages import Fetched


class FetchBackend:
    """Fetch and render the pages of one site under its rules."""

    def __init__(
        self, site: Site, fetcher: Fetcher | None = None, *, renderer: Renderer | None = None
    ) -> None:
        self.rules = SiteRules.of(site)
        self.hosts = site.host_list()
        self.fetcher = fetcher or Fetcher(policy_from_settings())
        self._own_fetcher = fetcher is None
        self._renderer = renderer
        self._own_renderer = renderer is None

    async def fetch(self, url: str, *, etag: str = "", last_modified: str = "") -> Fetched:
        """Fetch `url` with a conditional GET when validators are known."""
        result = await self.fetcher.fetch(
            url, self.rules, etag=etag or None, last_modified=last_modified or None
        )
        return to_fetched(url, result)

    async def render(self, url: str) -> Fetched:
        """Render `url` in Chromium (after the same robots.txt and address checks)."""
        refused = await self._refusal(url)
        if refused is not None:
            return Fetched(
                url=url, error=str(refused), rendered=True, retry_after=refused.retry_after
            )
        if self._renderer is None:
            self._renderer = await open_renderer(self.fetcher.policy)
        page = await self._renderer.render(url, self.rules, self.hosts)
        return from_rendered(url, page)

    async def sitemaps(self, url: str) -> list[str]:
        """Return the sitemap URLs robots.txt lists for `url`'s origin."""
        if not self.rules.obey_robots:
            return []
        robots = await self.fetcher.robots(url, self.rules)
        return list(robots.sitemaps)

    async def _refusal(self, url: str) -> FetchError | None:
        """Return why `url` may not be rendered, judged as the fetcher judges a fetch."""
        error = check_url(url, self.rules)
        if error is not None:
            return error
        if self.rules.obey_robots:
            robots = await self.fetcher.robots(url, self.rules)
            if robots.error_kind in {"ssrf", "url"}:
                return FetchError(robots.error_kind, f"robots.txt: {robots.unreachable}")  # type: ignore[arg-type]
            if robots.unreachable:
                wait = self.fetcher.robots_wait(robots.origin, url)
                message = f"robots.txt unreachable ({robots.unreachable})"
                return FetchError("backoff", message, retry_after=wait)
            if not robots.allows(url):
                return FetchError("robots", "disallowed by robots.txt")
        return None

    async def aclose(self) -> None:
        """Close what this backend opened."""
        if self._own_fetcher:
            await self.fetcher.close()
        if self._own_renderer and self._renderer is not None:
            await self._renderer.close()


async def open_backend(site: Site) -> FetchBackend:
    """Return a backend for `site` with a fresh fetcher (created on the running loop)."""
    return FetchBackend(site)


def to_fetched(url: str, result: FetchResult) -> Fetched:
    """Return the crawler's view of a fetcher result."""
    return Fetched(
        url=url,
        status=result.status,
        body=result.body,
        content_type=result.content_type,
        encoding=result.charset,
        etag=result.etag or "",
        last_modified=result.last_modified or "",
        final_url=result.final_url if result.final_url != url else "",
        error=str(result.error) if result.error else "",
        retry_after=result.error.retry_after if result.error else None,
    )


def from_rendered(url: str, page: RenderedPage) -> Fetched:
    """Return the crawler's view of a page rendered in the browser."""
    return Fetched(
        url=url,
        status=page.status,
        body=page.body if page.ok else b"",
        content_type=page.content_type,
        encoding="utf-8",  # the DOM is serialised as UTF-8 whatever the page declared
        final_url=page.final_url if page.final_url != url else "",
        error=str(page.error) if page.error else "",
        rendered=True,
    )


def is_html(fetched: Fetched) -> bool:
    """Tell whether a fetched body is an HTML page."""
    return content_kind(fetched.content_type, fetched.body) == "html"


def looks_like_script_shell(body: bytes) -> bool:
    """Tell whether HTML is a script shell with little text, worth rendering in a browser."""
    if b"<script" not in body.lower():
        return False  # without a script nothing can build the page
    return needs_rendering(body)
