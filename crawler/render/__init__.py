"""Browser rendering for JavaScript sites: Debian's Chromium driven by Playwright.

    renderer = await open_renderer()            # the process's one browser, started
    page = await renderer.render(url, SiteRules.of(site), site.host_list())
    if page.error: record(page.error.kind, page.error.message)
    else: analyze(page.body, page.final_url)

Each page gets a fresh context, or, for a crawl's renderer (`reuse_contexts`), one of the
contexts its earlier pages used; images, media and fonts are not loaded; dialogs are
dismissed; requests off the site's hosts are refused; every other request is made by our
own client through the SSRF guard (`crawler.render.relay`). Chromium itself connects only to
the context's egress proxy (`crawler.render.egress`), which judges every target by the same
rules; the tests' egress probe (`tests/crawler/egress_probe.py`) checks that from outside.
"""

from __future__ import annotations

from collections.abc import Iterable

from crawler.fetch.policy import FetchPolicy, SiteRules, policy_from_settings
from crawler.fetch.result import FetchResult, PageRequest
from crawler.fetch.ssrf import Resolver, system_resolve
from crawler.render.host import HOST, BrowserHost
from crawler.render.page import ContextPool, render_in_context
from crawler.render.shell import RenderMemory, needs_rendering, render_reason

__all__ = [
    "PageRequest",
    "RenderMemory",
    "Renderer",
    "close_browser",
    "needs_rendering",
    "open_renderer",
    "render_reason",
    "render_url",
]


class Renderer:
    """Render pages in the process's shared Chromium; usable from any event loop."""

    def __init__(
        self,
        policy: FetchPolicy | None = None,
        *,
        resolver: Resolver | None = None,
        host: BrowserHost | None = None,
        reuse_contexts: bool = False,
    ) -> None:
        self.policy = policy or policy_from_settings()
        self.resolver = resolver or system_resolve
        self.host = host or HOST
        # One crawl's renders share their browser contexts (made on the browser's loop).
        self.pool = ContextPool(self.policy.render_concurrency) if reuse_contexts else None

    async def start(self) -> Renderer:
        """Launch the browser now rather than on the first render."""
        await self.host.call(self.host.browser(self.policy))
        return self

    async def render(
        self,
        url: str,
        rules: SiteRules | None = None,
        allowed_hosts: Iterable[str] = (),
        *,
        timeout: float | None = None,
        served: FetchResult | None = None,
    ) -> FetchResult:
        """Render `url`; `allowed_hosts` defaults to the URL's own host.

        `served`: the page as already fetched, handed to Chromium instead of asking again.
        """
        return await self.host.call(
            self._render(url, rules or SiteRules(), tuple(allowed_hosts), timeout, served)
        )

    def render_sync(
        self,
        url: str,
        rules: SiteRules | None = None,
        allowed_hosts: Iterable[str] = (),
        *,
        timeout: float | None = None,
    ) -> FetchResult:
        """Render `url` from synchronous code (a Celery task, a management command)."""
        coro = self._render(url, rules or SiteRules(), tuple(allowed_hosts), timeout)
        return self.host.submit(coro).result()

    async def close(self) -> None:
        """Release this handle and its kept contexts; the shared browser stays up."""
        if self.pool is not None:
            pool, self.pool = self.pool, None
            await self.host.call(pool.close())

    async def _render(
        self,
        url: str,
        rules: SiteRules,
        hosts: tuple[str, ...],
        timeout: float | None,
        served: FetchResult | None = None,
    ) -> FetchResult:
        async with self.host.page_slots(self.policy):
            browser = await self.host.browser(self.policy)
            return await render_in_context(
                browser,
                url,
                rules,
                hosts,
                self.policy,
                self.resolver,
                timeout,
                served=served,
                pool=self.pool,
            )


async def open_renderer(
    policy: FetchPolicy | None = None,
    *,
    resolver: Resolver | None = None,
    reuse_contexts: bool = False,
) -> Renderer:
    """Return a started Renderer on the process's shared browser (with `reuse_contexts`, its
    renders share browser contexts until it is closed)."""
    return await Renderer(policy, resolver=resolver, reuse_contexts=reuse_contexts).start()


def render_url(
    url: str,
    rules: SiteRules | None = None,
    allowed_hosts: Iterable[str] = (),
    **options: object,
) -> FetchResult:
    """Render one URL from synchronous code; `options` go to Renderer (policy, resolver)."""
    return Renderer(**options).render_sync(url, rules, allowed_hosts)  # type: ignore[arg-type]


def close_browser() -> None:
    """Shut the process's browser down (it restarts on the next render)."""
    HOST.shutdown()
