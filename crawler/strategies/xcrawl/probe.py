"""Link probing (xCrawl): hover and click what is clickable but not a plain link, in Chromium.

On a rendered page, the elements a crawler reading links cannot follow (buttons, elements
with click or hover handlers, menu items, "load more") are tried one at a time, each from a
fresh state (a new browser context, the page loaded again and the path of actions that led
to the state replayed):

1. An init script marks every element that gets a click / mouse / pointer listener, and
   makes form submission a no-op (submit events are cancelled, `form.submit()` does
   nothing); submit buttons and form fields are never candidates.
2. Each candidate is hovered, then clicked. Navigations of the main frame it triggers are
   recorded and aborted (the page never leaves), so are requests that are not GET; links
   that appear in the DOM and URLs that scripts load are recorded; dialogs are dismissed,
   new windows closed.
3. An action that made new links appear opens a new page state, explored depth-first
   ("load more", then "load more" again), within a cap on states and on time.

Every request goes through the render relay: the site's hosts only, the SSRF guard, robots.txt
via the site rules. Every URL found enters the web graph like any link.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from playwright.async_api import Browser, BrowserContext, Page, Route
from playwright.async_api import Error as PlaywrightError

from crawler.fetch.policy import FetchPolicy, SiteRules, policy_from_settings
from crawler.fetch.ssrf import Resolver, system_resolve
from crawler.render.host import HOST, BrowserHost
from crawler.render.noudp import harden
from crawler.render.relay import Refused, Relay

BLOCKED_TYPES = frozenset({"image", "media", "font"})
SETTLE_MS = 250  # wait after an action for scripts to change the DOM
ACTION_TIMEOUT_MS = 2_000

INIT_SCRIPT = """(() => {
  const wanted = /^(click|dblclick|mousedown|mouseup|mouseenter|mouseover|pointerdown|pointerenter|pointerover|touchstart)$/;
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (wanted.test(type) && this instanceof Element) {
      const old = this.getAttribute('data-xcrawl-events') || '';
      this.setAttribute('data-xcrawl-events', old + ' ' + type);
    }
    return add.call(this, type, listener, options);
  };
  const count = () => { window.__xcrawlSubmits = (window.__xcrawlSubmits || 0) + 1; };
  add.call(document, 'submit', (event) => { event.preventDefault(); event.stopImmediatePropagation(); count(); }, true);
  HTMLFormElement.prototype.submit = count;
  HTMLFormElement.prototype.requestSubmit = count;
  window.open = () => null;
  window.print = () => {};
})();"""

CANDIDATES = """() => {
  const path = (el) => {
    const steps = [];
    for (; el && el.nodeType === 1 && el !== document.documentElement; el = el.parentElement) {
      let n = 1;
      for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === el.tagName) n++;
      steps.unshift(el.tagName.toLowerCase() + ':nth-of-type(' + n + ')');
    }
    return 'html > ' + steps.join(' > ');
  };
  const plainLink = (el) => el.tagName === 'A' && el.hasAttribute('href') && !/^\\s*(#|javascript:)/i.test(el.getAttribute('href'));
  const submits = (el) => {
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (el.tagName === 'INPUT') return ['submit', 'image', 'reset'].includes(type);
    if (el.tagName === 'BUTTON') return !!el.form && type !== 'button';
    return false;
  };
  const found = [];
  for (const el of document.querySelectorAll('body *')) {
    if (plainLink(el) || submits(el) || ['INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'LABEL', 'FORM'].includes(el.tagName)) continue;
    const events = el.getAttribute('data-xcrawl-events') || '';
    const role = (el.getAttribute('role') || '').toLowerCase();
    const hover = /mouseenter|mouseover|pointerenter|pointerover/.test(events) || el.hasAttribute('onmouseover') || el.hasAttribute('onmouseenter');
    const click = /click|mousedown|mouseup|pointerdown|touchstart/.test(events) || el.hasAttribute('onclick')
      || ['BUTTON', 'SUMMARY'].includes(el.tagName) || ['button', 'menuitem', 'tab', 'link'].includes(role)
      || el.hasAttribute('aria-haspopup') || el.tagName === 'A';
    if (!hover && !click) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    found.push({selector: path(el), hover, click});
  }
  return found;
}"""

LINKS = """() => Array.from(document.querySelectorAll('a[href], area[href]'), (a) => a.href)"""


@dataclass(frozen=True)
class Action:
    """One probe: hover or click the element at a CSS path."""

    kind: str  # "hover" or "click"
    selector: str


@dataclass
class ProbeResult:
    """What probing one page found."""

    url: str
    links: list[str] = field(default_factory=list)  # links that appeared after an action
    navigations: list[str] = field(default_factory=list)  # navigations triggered, aborted
    script_urls: list[str] = field(default_factory=list)  # requested by scripts after load
    states: int = 0  # page states explored
    actions: int = 0  # hovers and clicks tried
    dialogs: list[str] = field(default_factory=list)
    submits_blocked: int = 0
    refused: list[str] = field(default_factory=list)  # requests refused (hosts, not GET)
    error: str = ""

    def urls(self) -> list[str]:
        """Return every URL found, once each, in the order found."""
        return list(dict.fromkeys([*self.links, *self.navigations, *self.script_urls]))


class _Session:
    """One fresh state: a context, the page loaded, the actions of a path replayed."""

    def __init__(self, result: ProbeResult, relay: Relay, origin_url: str) -> None:
        self.result = result
        self.relay = relay
        self.origin_url = origin_url
        self.loaded = False
        self.page: Page | None = None

    async def route(self, route: Route) -> None:
        request = route.request
        url, kind = request.url, request.resource_type
        if kind in BLOCKED_TYPES:
            await _quietly(route.abort("blockedbyclient"))
            return
        main = self.page is not None and request.frame == self.page.main_frame
        if self.loaded and main and request.is_navigation_request():
            _note(self.result.navigations, url)  # the page never leaves: abort, remember
            await _quietly(route.abort("aborted"))
            return
        if request.method != "GET":
            _note(self.result.refused, f"{request.method} {url}")
            await _quietly(route.abort("blockedbyclient"))
            return
        if self.loaded and kind in {"xhr", "fetch", "script", "document"}:
            _note(self.result.script_urls, url)
        try:
            headers = await request.all_headers()
            answer = await self.relay.exchange("GET", url, headers, None, follow=True)
        except Refused:
            _note(self.result.refused, url)
            await _quietly(route.abort("blockedbyclient"))
            return
        except PlaywrightError:
            return
        await _quietly(
            route.fulfill(status=answer.status, headers=answer.headers, body=answer.body)
        )

    async def open(
        self, browser: Browser, policy: FetchPolicy, path: tuple[Action, ...]
    ) -> BrowserContext:
        context = await browser.new_context(
            user_agent=policy.user_agent, service_workers="block", accept_downloads=False
        )
        await harden(context)
        await context.add_init_script(INIT_SCRIPT)
        await context.route("**/*", self.route)
        self.page = await context.new_page()
        context.on("page", self._popup)  # after ours: every later page is a popup
        self.page.set_default_timeout(ACTION_TIMEOUT_MS * 5)
        self.page.on("dialog", self._dialog)
        await self.page.goto(self.origin_url, wait_until="load")
        self.loaded = True
        for action in path:
            await self.act(action)
        return context

    async def act(self, action: Action) -> None:
        assert self.page is not None
        self.result.actions += 1
        target = self.page.locator(action.selector).first
        if action.kind == "hover":
            await target.hover(timeout=ACTION_TIMEOUT_MS)
        else:
            await target.click(timeout=ACTION_TIMEOUT_MS, no_wait_after=True)
        await self.page.wait_for_timeout(SETTLE_MS)
        with suppress(PlaywrightError):
            await self.page.wait_for_load_state("networkidle", timeout=1_000)

    async def links(self) -> list[str]:
        assert self.page is not None
        found = await self.page.evaluate(LINKS)
        return [url for url in found if urlsplit(url).scheme in {"http", "https"}]

    async def submits(self) -> int:
        assert self.page is not None
        return int(await self.page.evaluate("() => window.__xcrawlSubmits || 0"))

    async def _dialog(self, dialog) -> None:
        self.result.dialogs.append(f"{dialog.type}: {dialog.message}")
        await _quietly(dialog.dismiss())

    async def _popup(self, page: Page) -> None:
        if page is not self.page:
            await _quietly(page.close())


async def probe_page(
    browser: Browser,
    url: str,
    rules: SiteRules | None = None,
    hosts: Iterable[str] = (),
    *,
    policy: FetchPolicy | None = None,
    resolver: Resolver | None = None,
    max_states: int = 12,
    seconds: float = 30.0,
) -> ProbeResult:
    """Probe `url`: every clickable non-link element hovered and clicked from a fresh state."""
    policy = policy or policy_from_settings()
    hosts = tuple(hosts) or ((urlsplit(url).hostname or "").lower(),)
    relay = Relay(policy, resolver or system_resolve, rules or SiteRules(), hosts)
    result = ProbeResult(url)
    deadline = time.monotonic() + seconds
    refused = relay.refusal(url)
    if refused is not None:
        result.error = str(refused)
        return result
    try:
        await _Exploration(browser, policy, relay, result, deadline).run(max_states)
    except TimeoutError:
        pass
    finally:
        await relay.close()
    return result


# A state to explore: the actions leading to it, its links, the candidates of its parent.
_Pending = tuple[tuple[Action, ...], frozenset[str], frozenset[str]]


class _Exploration:
    """The depth-first search over one page's states, noting what each action reveals."""

    def __init__(
        self,
        browser: Browser,
        policy: FetchPolicy,
        relay: Relay,
        result: ProbeResult,
        deadline: float,
    ) -> None:
        self.browser = browser
        self.policy = policy
        self.relay = relay
        self.result = result
        self.deadline = deadline
        self.known: set[str] = set()  # every link seen in any state
        self.seen: set[frozenset[str]] = set()  # the link sets of states queued
        self.pending: list[_Pending] = [((), frozenset(), frozenset())]

    def time_left(self) -> bool:
        return time.monotonic() < self.deadline

    async def run(self, max_states: int) -> None:
        """Explore states, last found first, until none is left, enough were seen or time is up."""
        while self.pending and self.result.states < max_states and self.time_left():
            await self.explore(*self.pending.pop())

    async def explore(
        self, path: tuple[Action, ...], before: frozenset[str], tried: frozenset[str]
    ) -> None:
        """Open the state `path` leads to and try its candidates, each hovered then clicked."""
        found = await self.open(path)
        if found is None:
            return
        self.result.states += 1
        links, candidates = frozenset(found[0]), found[1]
        if not path:
            self.known |= links
            before = links
            self.seen.add(links)
        # In a later state, only what is new there, and the action that led to it again
        # ("load more" once more): the rest was tried from the parent state.
        again = path[-1].selector if path else None
        todo = [c for c in candidates if c["selector"] not in tried or c["selector"] == again]
        selectors = frozenset(c["selector"] for c in candidates)
        for candidate in todo:
            for kind in ("hover", "click"):
                if candidate[kind] and self.time_left():
                    action = Action(kind, candidate["selector"])
                    await self.act(path, action, before, selectors)

    async def act(
        self,
        path: tuple[Action, ...],
        action: Action,
        before: frozenset[str],
        selectors: frozenset[str],
    ) -> None:
        """Take one action from a fresh state; note new links, queue a state that has some."""
        after = await self.open((*path, action))
        if after is None:
            return
        now = frozenset(after[0])
        for link in sorted(now - self.known):
            _note(self.result.links, link)
        self.known |= now
        if now - before and now not in self.seen:
            self.seen.add(now)
            self.pending.append(((*path, action), now, selectors))

    async def open(self, path: tuple[Action, ...]) -> tuple[list[str], list[dict]] | None:
        return await _state(
            self.browser, self.policy, self.relay, self.result, self.result.url, path
        )


async def _state(
    browser: Browser,
    policy: FetchPolicy,
    relay: Relay,
    result: ProbeResult,
    url: str,
    path: tuple[Action, ...],
) -> tuple[list[str], list[dict]] | None:
    """Open a fresh state after `path`; return its links and candidates (None on failure)."""
    session = _Session(result, relay, url)
    context: BrowserContext | None = None
    try:
        async with asyncio.timeout(policy.render_timeout):
            context = await session.open(browser, policy, path)
            links = await session.links()
            candidates = await session.page.evaluate(CANDIDATES)
            result.submits_blocked = max(result.submits_blocked, await session.submits())
            return links, candidates
    except (PlaywrightError, TimeoutError) as exc:
        if not path:
            result.error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None
    finally:
        if context is not None:
            with suppress(PlaywrightError):
                await context.close()


def probe_url(
    url: str,
    rules: SiteRules | None = None,
    allowed_hosts: Iterable[str] = (),
    *,
    max_states: int = 12,
    seconds: float = 30.0,
    policy: FetchPolicy | None = None,
    resolver: Resolver | None = None,
    host: BrowserHost = HOST,
) -> ProbeResult:
    """Probe one URL from synchronous code, in the process's shared Chromium."""
    policy = policy or policy_from_settings()

    async def run() -> ProbeResult:
        async with host.page_slots(policy):
            browser = await host.browser(policy)
            return await probe_page(
                browser,
                url,
                rules,
                allowed_hosts,
                policy=policy,
                resolver=resolver,
                max_states=max_states,
                seconds=seconds,
            )

    return host.submit(run()).result()


def _note(found: list[str], url: str) -> None:
    if url not in found:
        found.append(url)


async def _quietly(awaitable: object) -> None:
    with suppress(PlaywrightError):
        await awaitable  # type: ignore[misc]
