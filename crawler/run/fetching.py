"""The crawl loop's window onto fetching: the fetcher (crawler.fetch) and the browser
(crawler.render) for one site, both answering with a `crawler.fetch.FetchResult`.

Everything here runs on the crawl's event loop; nothing touches the database.
"""

from __future__ import annotations

from collections.abc import Callable

from crawler.fetch import (
    Fetcher,
    FetchResult,
    SiteRules,
    failure,
    policy_from_settings,
    shared_slots,
)
from crawler.models import Site
from crawler.render import Renderer, RenderMemory, needs_rendering, open_renderer


class FetchBackend:
    """Fetch and render the pages of one site under its rules."""

    def __init__(
        self, site: Site, fetcher: Fetcher | None = None, *, renderer: Renderer | None = None
    ) -> None:
        self.rules = SiteRules.of(site)
        self.hosts = site.host_list()
        # Every worker takes turns with a host through the shared cache.
        self.fetcher = fetcher or Fetcher(policy_from_settings(), slots=shared_slots())
        self._own_fetcher = fetcher is None
        self._renderer = renderer
        self._own_renderer = renderer is None
        # This run's per-page render decisions; the crawl adds the shapes the site's earlier
        # runs learnt to need the browser (`RenderMemory.shapes`).
        self.renders = RenderMemory()
        # Pages read before the crawl asked for them (the hidden-web pass reads the seeds for
        # their forms), by URL: the run's own fetch of one takes that answer, once.
        self._kept: dict[str, FetchResult] = {}

    def keep(self, url: str, fetched: FetchResult) -> None:
        """Keep a page read outside the crawl for the run's own fetch of `url` (a failure is
        not kept: the crawl asks again)."""
        if fetched.succeeded:
            self._kept[url] = fetched

    async def fetch(
        self,
        url: str,
        *,
        etag: str = "",
        last_modified: str = "",
        known: Callable[[str], bool] | None = None,
    ) -> FetchResult:
        """Fetch `url` with a conditional GET when validators are known, or take the answer
        kept for it (`keep`) without asking the site again; a redirect to a URL `known`
        says the run has fetched is not followed (`FetchResult.known_target`)."""
        kept = self._kept.pop(url, None)
        if kept is not None:
            return kept
        return await self.fetcher.fetch(
            url, self.rules, etag=etag or None, last_modified=last_modified or None, known=known
        )

    async def render(self, url: str, *, served: FetchResult | None = None) -> FetchResult:
        """Render `url` in Chromium (after the same robots.txt and address checks).

        `served`: the page as just fetched; Chromium gets it instead of asking the site again.
        """
        refused = await self.fetcher.refusal(url, self.rules)
        if refused is not None:
            return failure(url, refused, rendered=True)
        if self._renderer is None:
            self._renderer = await open_renderer(self.fetcher.policy, reuse_contexts=True)
        return await self._renderer.render(url, self.rules, self.hosts, served=served)

    def render_reason(
        self, fetched: FetchResult, *, needs_browser: bool, inline: bool, probe: bool = True
    ) -> str:
        """Return why a fetched page should be rendered now ("" when it need not be).

        On a site that needs a browser each page is judged on its own (`RenderMemory.decide`);
        elsewhere script shells are rendered when rendering `inline`, and, when `probe`,
        pages whose scripts may add links, within the run's budget (`RenderMemory.probe`).
        """
        if needs_browser:
            return self.renders.decide(fetched.body)
        if (
            inline
            and looks_like_script_shell(fetched.body)
            and not self.renders.repeated_script(fetched.body)
        ):
            return self.renders.note(fetched.final_url or fetched.url, "script shell")
        if probe:
            return self.renders.probe(fetched.final_url or fetched.url, fetched.body)
        return ""

    def rendered(self, served: FetchResult, rendered: FetchResult) -> None:
        """Compare a probed page's DOM after load with its served HTML (`RenderMemory.compare`)."""
        url = served.final_url or served.url
        if url in self.renders.reasons:
            self.renders.compare(url, served.body, rendered.body)

    async def sitemaps(self, url: str) -> list[str]:
        """Return the sitemap URLs robots.txt lists for `url`'s origin."""
        if not self.rules.obey_robots:
            return []
        robots = await self.fetcher.robots(url, self.rules)
        return list(robots.sitemaps)

    async def aclose(self) -> None:
        """Close what this backend opened."""
        if self._own_fetcher:
            await self.fetcher.close()
        if self._own_renderer and self._renderer is not None:
            await self._renderer.close()


async def open_backend(site: Site) -> FetchBackend:
    """Return a backend for `site` with a fresh fetcher (created on the running loop)."""
    return FetchBackend(site)


def is_html(fetched: FetchResult) -> bool:
    """Tell whether a fetched body is an HTML page."""
    return fetched.body_kind == "html"


def looks_like_script_shell(body: bytes) -> bool:
    """Tell whether HTML is a script shell with little text, worth rendering in a browser."""
    if b"<script" not in body.lower():
        return False  # without a script nothing can build the page
    return needs_rendering(body)
