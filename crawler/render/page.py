"""Render one page in a fresh browser context, every request relayed and checked."""

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
from crawler.render.relay import Answer, Refused, Relay

BLOCKED_TYPES = frozenset({"image", "media", "font"})
PAGE_TYPES = HTML_TYPES | FEED_TYPES | XML_TYPES


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

    def note(self, url: str, resource_type: str, refused: str = "") -> None:
        self.result.requests.append(PageRequest(url, resource_type, refused))

    async def route(self, route: Route) -> None:
        """Relay one browser request, or refuse it."""
        request = route.request
        url, kind = request.url, request.resource_type
        main = self.page is not None and request.frame == self.page.main_frame
        main = main and request.is_navigation_request()
        if kind in BLOCKED_TYPES:
            self.note(url, kind, f"{kind} blocked")
            await _quietly(route.abort("blockedbyclient"))
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
            await _quietly(route.abort("blockedbyclient"))
            return
        except PlaywrightError:
            return  # the page went away while we worked
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

    async def popup(self, page: Page) -> None:
        """Close windows the page opens."""
        if page is not self.page:
            await _quietly(page.close())


async def _fulfil(route: Route, answer: Answer) -> None:
    await route.fulfill(status=answer.status, headers=answer.headers, body=answer.body)


async def _quietly(awaitable: object) -> None:
    # The page or context may close under a pending handler; that is not an error.
    with suppress(PlaywrightError):
        await awaitable  # type: ignore[misc]


async def render_page(
    browser: Browser,
    url: str,
    rules: SiteRules,
    hosts: Iterable[str],
    policy: FetchPolicy,
    resolver: Resolver,
    timeout: float | None = None,
) -> FetchResult:
    """Render `url` in a fresh context of `browser`; failures come back as `error`."""
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
    state = _PageState(relay, result)
    context: BrowserContext | None = None
    budget = timeout or policy.render_timeout
    deadline = time.monotonic() + budget
    try:
        async with asyncio.timeout(budget):
            context = await browser.new_context(
                user_agent=policy.user_agent, service_workers="block", accept_downloads=False
            )
            await _load(context, url, state, policy, deadline)
    except TimeoutError:
        result.error = FetchError(ErrorKind.TIMEOUT, f"not rendered within {budget:g} s")
    except _Failed as failed:
        result.error = failed.error
        result.final_url = failed.final_url
    except PlaywrightError as exc:
        result.error = FetchError(ErrorKind.RENDER, _first_line(exc))
    finally:
        if context is not None:
            with suppress(PlaywrightError):
                await context.close()
        await relay.close()
        result.elapsed = time.monotonic() - started
    _check_answer(result, policy)
    return result


async def _load(
    context: BrowserContext, url: str, state: _PageState, policy: FetchPolicy, deadline: float
) -> None:
    """Open the page in `context`, let its scripts run, and read the DOM into the result."""
    await context.route("**/*", state.route)
    await context.route_web_socket("**/*", state.websocket)
    page = await context.new_page()
    page.set_default_timeout((deadline - time.monotonic()) * 1000)
    state.page = page
    context.on("page", state.popup)
    page.on("dialog", state.dialog)
    await _navigate(page, url, state, policy)
    # Let late scripts finish, but keep time to read the DOM before the deadline.
    settle = min(policy.render_settle, deadline - time.monotonic() - 0.5)
    if settle > 0:
        with suppress(PlaywrightTimeout):
            await page.wait_for_load_state("networkidle", timeout=settle * 1000)
    # The DOM is serialised as HTML in UTF-8, whatever the page declared.
    state.result.body = (await page.content()).encode("utf-8", "replace")
    state.result.final_url = page.url


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


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
