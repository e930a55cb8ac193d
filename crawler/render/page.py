"""Render one page in a fresh browser context, every request relayed and checked.

A page already fetched is rendered from that answer (`served`): its main document is handed
to Chromium from the fetched body (`route.fulfill`), so the site is asked for it once; only
subresources and the page's own requests go out, through the relay. Images, media and fonts
are never loaded. After the page settles its lists are grown (`crawler.render.expand`:
"Load more", infinite scroll) and the links of the JSON it received are added to the DOM.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass
from urllib.parse import urlsplit

from playwright.async_api import Browser, BrowserContext, Dialog, Page, Route, WebSocketRoute
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from crawler.fetch.body import FEED_TYPES, HTML_TYPES, XML_TYPES
from crawler.fetch.policy import FetchPolicy, SiteRules
from crawler.fetch.result import ErrorKind, FetchError, FetchResult, PageRequest
from crawler.fetch.ssrf import Resolver
from crawler.render.egress import EgressProxy
from crawler.render.expand import WATCH_SCRIPT, expand, json_links, links_block
from crawler.render.noudp import harden
from crawler.render.relay import Answer, Refused, Relay

BLOCKED_TYPES = frozenset({"image", "media", "font"})
PAGE_TYPES = HTML_TYPES | FEED_TYPES | XML_TYPES
JSON_TYPES = frozenset({"application/json", "text/json", "application/ld+json"})


class _Failed(Exception):
    def __init__(self, error: FetchError, final_url: str) -> None:
        super().__init__(str(error))
        self.error = error
        self.final_url = final_url


@dataclass
class _PageState:
    """What the route handler learns while the page loads."""

    relay: Relay
    result: FetchResult
    page: Page | None = None
    main_redirect: str | None = None
    main_refusal: FetchError | None = None
    # A document refused where the main frame could not be told (a refresh racing the read).
    document_refusal: FetchError | None = None
    served: FetchResult | None = None  # the main document as already fetched, used once
    document_requests: int = 0  # main-document requests relayed to the site
    expanding: bool = False  # growing the page's lists: the main frame may not navigate
    in_flight: int = 0
    api_links: dict[str, str] | None = None  # from the JSON the page received

    def note(self, url: str, resource_type: str, refused: str = "") -> None:
        self.result.requests.append(PageRequest(url, resource_type, refused))

    def started(self) -> int:
        """Return how many requests the page made (the `Traffic` of `expand`)."""
        return len(self.result.requests)

    def pending(self) -> int:
        """Return how many of the page's requests are not answered yet."""
        return self.in_flight

    async def route(self, route: Route) -> None:
        """Relay one browser request, or refuse it."""
        self.in_flight += 1
        try:
            await self._route(route)
        finally:
            self.in_flight -= 1

    async def _route(self, route: Route) -> None:
        request = route.request
        url, kind = request.url, request.resource_type
        main = self.page is not None and request.is_navigation_request()
        try:
            main = main and request.frame == self.page.main_frame  # type: ignore[union-attr]
        except PlaywrightError:
            main = False  # a popup's or prerender's first navigation: its frame is not made yet
        if kind in BLOCKED_TYPES:
            self.note(url, kind, f"{kind} blocked")
            await _quietly(route.abort("blockedbyclient"))
            return
        if main and self.expanding:
            self.note(url, kind, "navigation while expanding the page")
            await _quietly(route.abort("aborted"))
            return
        if main and self._serve(request.method, url):
            self.note(url, kind, "")
            await _quietly(_fulfil_served(route, self.served))  # type: ignore[arg-type]
            self.served = None
            return
        try:
            headers = await request.all_headers()
            answer = await self.relay.exchange(
                request.method, url, headers, request.post_data_buffer, follow=not main
            )
        except Refused as refused:
            self.note(url, kind, str(refused.error))
            if main:
                self.main_refusal = refused.error
            elif kind == "document":
                self.document_refusal = refused.error
            await _quietly(route.abort("blockedbyclient"))
            return
        except PlaywrightError:
            return  # the page went away while we worked
        if main:
            self.document_requests += 1
        elif (
            answer.status == 200 and answer.media_type in JSON_TYPES and self.api_links is not None
        ):
            self.api_links.update(json_links(answer.body, url, self.relay.hosts))
        if main and answer.location is not None:
            # Chromium would follow a fulfilled redirect itself, unchecked: navigate anew.
            self.note(url, kind)
            self.main_redirect = answer.location
            await _quietly(route.abort("aborted"))
            return
        if main and 200 <= answer.status < 300 and answer.media_type not in PAGE_TYPES:
            self.main_refusal = FetchError(
                ErrorKind.CONTENT_TYPE, f"content type {answer.media_type!r} is not a page"
            )
            self.note(url, kind, str(self.main_refusal))
            await _quietly(route.abort("blockedbyclient"))
            return
        self.note(url, kind)
        await _quietly(_fulfil(route, answer))

    async def websocket(self, socket: WebSocketRoute) -> None:
        """Refuse WebSockets: a crawl needs none, and they would bypass the relay."""
        self.note(socket.url, "websocket", "websocket blocked")
        await _quietly(socket.close())

    async def dialog(self, dialog: Dialog) -> None:
        """Dismiss alerts, confirms, prompts and beforeunload questions."""
        self.result.dialogs.append(f"{dialog.type}: {dialog.message}")
        await _quietly(dialog.dismiss())

    def _serve(self, method: str, url: str) -> bool:
        """Tell whether this main-document request is the one already fetched."""
        served = self.served
        return (
            served is not None
            and method == "GET"
            and url.split("#", 1)[0] == (served.final_url or served.url).split("#", 1)[0]
        )


async def _fulfil(route: Route, answer: Answer) -> None:
    await route.fulfill(status=answer.status, headers=answer.headers, body=answer.body)


async def _fulfil_served(route: Route, served: FetchResult) -> None:
    """Hand Chromium the fetched answer as the page's main document."""
    kind = served.content_type or "text/html"
    headers = {"content-type": f"{kind}; charset={served.charset}" if served.charset else kind}
    await route.fulfill(status=served.status or 200, headers=headers, body=served.body)


async def _quietly(awaitable: object) -> None:
    # The page or context may close under a pending handler; that is not an error.
    with suppress(PlaywrightError):
        await awaitable  # type: ignore[misc]


async def render_in_context(
    browser: Browser,
    url: str,
    rules: SiteRules,
    hosts: Iterable[str],
    policy: FetchPolicy,
    resolver: Resolver,
    timeout: float | None = None,
    *,
    served: FetchResult | None = None,
    expand_lists: bool = True,
    pool: ContextPool | None = None,
) -> FetchResult:
    """Render `url` in a fresh context of `browser`; failures come back as `error`.

    With a `pool`, the context comes from it and goes back after a clean render.
    With `served` (a successful fetch of `url`), the main document is that answer and the
    site is not asked for it again. With `expand_lists`, "Load more" controls are clicked,
    infinite lists scrolled, and links found in the JSON the page loaded are added.
    """
    started = time.monotonic()
    hosts = tuple(hosts) or ((urlsplit(url).hostname or "").lower(),)
    relay = Relay(policy, resolver, rules.scoped_to(url), hosts)
    result = FetchResult(
        url=url, final_url=url, content_type="text/html", charset="utf-8", rendered=True
    )
    refused = relay.refusal(url)
    if refused is not None:
        result.error = refused
        return result
    state = _PageState(relay, result, served=served if served and served.succeeded else None)
    if expand_lists:
        state.api_links = {}
    if state.served is not None:
        url = state.served.final_url or url
        result.redirects = list(state.served.redirects)
    await _render_in_slot(
        browser, url, state, policy, pool, timeout or policy.render_timeout, started
    )
    _check_answer(result, policy)
    return result


async def _render_in_slot(
    browser: Browser,
    url: str,
    state: _PageState,
    policy: FetchPolicy,
    pool: ContextPool | None,
    budget: float,
    started: float,
) -> None:
    """Load `url` into the state's result in a context of the pool (or a fresh one) within
    `budget` seconds; give the context back after a clean render, else close it."""
    relay, result = state.relay, state.result
    deadline = time.monotonic() + budget
    slot: _Slot | None = None
    reusable = False
    refusals = 0
    try:
        async with asyncio.timeout(budget):
            opening = (
                pool.take(browser, relay, policy) if pool else _Slot.open(browser, relay, policy)
            )
            slot = await opening
            state.relay = slot.relay
            refusals = len(slot.proxy.refusals)
            await _load(slot, url, state, policy, deadline)
            reusable = pool is not None
    except TimeoutError:
        result.error = FetchError(ErrorKind.TIMEOUT, f"not rendered within {budget:g} s")
    except _Failed as failed:
        result.error = failed.error
        result.final_url = failed.final_url
        reusable = pool is not None
    except PlaywrightError as exc:
        result.error = FetchError(ErrorKind.RENDER, _first_line(exc))
    finally:
        if slot is not None:
            result.requests.extend(slot.proxy.refusals[refusals:])
            if reusable and await slot.release():
                pool.give_back(slot)  # type: ignore[union-attr]
            else:
                await slot.close()
        if slot is None or slot.relay is not relay:
            await relay.close()
        result.elapsed = time.monotonic() - started
        result.render_notes["document_requests"] = state.document_requests


class _Slot:
    """A browser context with its egress proxy and relay, rendering one page at a time.

    The context's routes, WebSocket routes and popup handler are installed once and hand
    each request to the page being rendered (`state`); nothing is let through between pages.
    """

    def __init__(self, context: BrowserContext, proxy: EgressProxy, relay: Relay) -> None:
        self.context = context
        self.proxy = proxy
        self.relay = relay
        self.state: _PageState | None = None
        self.opening = False

    @classmethod
    async def open(cls, browser: Browser, relay: Relay, policy: FetchPolicy) -> _Slot:
        # What escapes the route handler (preconnects, workers, navigations Chromium starts
        # on its own) meets the same relay in the context's proxy.
        proxy = EgressProxy(relay)
        await proxy.start()
        try:
            context = await browser.new_context(
                proxy=proxy.settings,
                user_agent=policy.user_agent,
                service_workers="block",
                accept_downloads=False,
            )
        except BaseException:
            await proxy.close()
            raise
        slot = cls(await harden(context), proxy, relay)
        await context.route("**/*", slot.route)
        await context.route_web_socket("**/*", slot.websocket)
        context.on("page", slot.popup)
        return slot

    async def route(self, route: Route) -> None:
        if self.state is None:
            await _quietly(route.abort("blockedbyclient"))
            return
        await self.state.route(route)

    async def websocket(self, socket: WebSocketRoute) -> None:
        if self.state is None:
            await _quietly(socket.close())
            return
        await self.state.websocket(socket)

    async def popup(self, page: Page) -> None:
        """Close windows the page opens (not the page being opened for a render)."""
        if not self.opening and (self.state is None or page is not self.state.page):
            await _quietly(page.close())

    async def new_page(self, state: _PageState) -> Page:
        self.state = state
        self.opening = True
        try:
            page = await self.context.new_page()
        finally:
            self.opening = False
        state.page = page
        return page

    async def release(self) -> bool:
        """Close the rendered page; return whether the context may render another."""
        state, self.state = self.state, None
        try:
            for page in self.context.pages:
                await page.close()
        except PlaywrightError:
            return False
        return state is not None

    async def close(self) -> None:
        self.state = None
        with suppress(PlaywrightError):
            await self.context.close()
        await self.proxy.close()
        await self.relay.close()


class ContextPool:
    """Browser contexts kept for one crawl's renders, per site rules: a context is made once
    and renders page after page (cookies and caches kept, as in one person's browser)."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._idle: dict[tuple[int, SiteRules, tuple[str, ...] | None], list[_Slot]] = {}

    async def take(self, browser: Browser, relay: Relay, policy: FetchPolicy) -> _Slot:
        """Return an idle context for these rules and hosts, or a new one."""
        idle = self._idle.get(_key(browser, relay), [])
        while idle:
            slot = idle.pop()
            if slot.context.browser is not None and slot.context.browser.is_connected():
                await relay.close()  # the slot's own relay, same rules, serves the page
                return slot
            await slot.close()
        return await _Slot.open(browser, relay, policy)

    def give_back(self, slot: _Slot) -> None:
        """Keep a context that rendered cleanly for the next page."""
        key = _key(slot.context.browser, slot.relay)
        idle = self._idle.setdefault(key, [])
        if len(idle) < self.size:
            idle.append(slot)
        else:
            asyncio.get_running_loop().create_task(slot.close())

    async def close(self) -> None:
        """Close every kept context."""
        slots = [slot for idle in self._idle.values() for slot in idle]
        self._idle = {}
        for slot in slots:
            await slot.close()


def _key(browser: Browser | None, relay: Relay) -> tuple[int, SiteRules, tuple[str, ...] | None]:
    return (id(browser), relay.rules, relay.hosts)


async def _load(
    slot: _Slot, url: str, state: _PageState, policy: FetchPolicy, deadline: float
) -> None:
    """Open the page in the slot's context, let its scripts run, and read the DOM into the result."""
    page = await slot.new_page(state)
    page.set_default_timeout((deadline - time.monotonic()) * 1000)
    page.on("dialog", state.dialog)
    if state.api_links is not None:
        await page.add_init_script(WATCH_SCRIPT)
    await _navigate(page, url, state, policy)
    # Let late scripts finish, but keep time to read the DOM before the deadline.
    settle = min(policy.render_settle, deadline - time.monotonic() - 0.5)
    if settle > 0:
        with suppress(PlaywrightTimeout):
            await page.wait_for_load_state("networkidle", timeout=settle * 1000)
    if state.api_links is not None and urlsplit(page.url).scheme in {"http", "https"}:
        state.expanding = True
        grown = await expand(page, state, deadline)
        state.expanding = False
        state.result.render_notes["expanded"] = grown.steps
    _stayed(page, state, url)
    # The DOM is serialised as HTML in UTF-8, whatever the page declared.
    html = await page.content()
    _stayed(page, state, url)  # a refresh that fired while the DOM was read
    if state.api_links:
        state.result.render_notes["api_links"] = len(state.api_links)
        html = _with_block(html, links_block(state.api_links))
    state.result.body = html.encode("utf-8", "replace")
    state.result.final_url = page.url


def _stayed(page: Page, state: _PageState, url: str) -> None:
    """Fail the render when a script, a refresh or a form took the page somewhere refused:
    Chromium's error page in its place is no page of the site."""
    if urlsplit(page.url).scheme not in {"http", "https"}:
        error = (
            state.main_refusal
            or state.document_refusal
            or FetchError(ErrorKind.RENDER, f"the page ended on {page.url}")
        )
        raise _Failed(error, url)


def _check_answer(result: FetchResult, policy: FetchPolicy) -> None:
    """Turn an error status or a DOM over the size cap into the result's error."""
    if result.error is None and result.status is not None and result.status >= 400:
        result.error = FetchError(ErrorKind.HTTP, f"HTTP {result.status}")
    if result.error is None and len(result.body) > policy.max_body_bytes:
        result.error = FetchError(
            ErrorKind.TOO_LARGE, f"rendered DOM over {policy.max_body_bytes} bytes"
        )
        result.body = b""


async def _navigate(page: Page, url: str, state: _PageState, policy: FetchPolicy) -> None:
    """Go to `url`, taking the main document's redirects one checked hop at a time."""
    target = url
    for _ in range(policy.max_redirects + 1):
        state.main_redirect = None
        state.main_refusal = None
        try:
            response = await page.goto(target, wait_until="load")
        except PlaywrightTimeout:
            raise TimeoutError from None
        except PlaywrightError as exc:
            if state.main_refusal is not None:
                raise _Failed(state.main_refusal, target) from None
            if state.main_redirect is None:
                raise _Failed(FetchError(ErrorKind.RENDER, _first_line(exc)), target) from None
            refused = state.relay.refusal(state.main_redirect)
            if refused is not None:
                raise _Failed(refused, state.main_redirect) from None
            state.result.redirects.append(target)
            target = state.main_redirect
            continue
        state.result.status = response.status if response is not None else None
        return
    raise _Failed(
        FetchError(ErrorKind.REDIRECTS, f"more than {policy.max_redirects} redirects"), target
    )


def _with_block(html: str, block: str) -> str:
    """Return the DOM with `block` added at the end of its body."""
    at = html.lower().rfind("</body>")
    return html[:at] + block + html[at:] if at >= 0 else html + block


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
