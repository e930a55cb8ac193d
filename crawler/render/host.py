"""One Chromium per worker process, on its own thread and event loop, shared by every caller.

Rendering, xCrawl's link probing and hidden-web form work all take their browser from here:
the executable is the policy's `chromium_path` (CRAWLER_CHROMIUM_PATH), launched with
`launch_args` (CHROMIUM_ARGS and the default egress proxy) and UDP refused
(`crawler.render.noudp`), and nowhere else; every context gets `noudp.harden`.

Chromium opens no connection of its own: every one goes to an egress proxy of ours
(`crawler.render.egress`). The host's own proxy, given at launch, serves contexts that name
no site and lets them reach public addresses only; a context for a site's page gets its own
proxy, judging by that site's rules (`EgressProxy` with the page's relay, given to
`new_context(proxy=...)`).

A Playwright browser belongs to the event loop that launched it, while crawl runs and Celery
tasks each bring their own loop (or none). So the browser lives on a private loop in a daemon
thread; callers submit coroutines to it and await the result from wherever they are. After a
fork (Celery prefork) the child starts its own thread and browser on first use.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from playwright.async_api import Browser, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from crawler.fetch.policy import FetchPolicy, SiteRules
from crawler.fetch.ssrf import system_resolve
from crawler.render.egress import PROXY_HOST, EgressProxy
from crawler.render.noudp import launcher
from crawler.render.relay import Relay

T = TypeVar("T")

CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-gpu",
    # Egress. Loopback goes through the proxy too (Chromium bypasses it for loopback unless
    # told not to); no name resolves but the proxy's address, so DNS prefetches and
    # preconnects reach nothing; QUIC and WebRTC's own UDP would not go through an HTTP proxy:
    # the browser is started with UDP refused (`crawler.render.noudp.launcher`).
    # No --disable-features here: Chromium keeps only the last one, which would drop
    # Playwright's own list (HttpsUpgrades among them).
    "--proxy-bypass-list=<-loopback>",
    f"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE {PROXY_HOST}",
    "--dns-prefetch-disable",
    "--disable-quic",
    "--no-pings",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
)


def launch_args(proxy_server: str) -> list[str]:
    """Return Chromium's arguments with `proxy_server` as every context's default proxy."""
    return [*CHROMIUM_ARGS, f"--proxy-server={proxy_server}"]


class BrowserError(RuntimeError):
    """Chromium could not be started, or could not do what it was asked."""


class BrowserHost:
    """Own the process's browser thread, loop, Playwright driver and Chromium."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._executable = ""  # the path the running browser was launched from
        self._launching: asyncio.Lock | None = None
        self._pages: asyncio.Semaphore | None = None
        self._proxy: EgressProxy | None = None  # for contexts that name no site

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run `coro` on the browser loop; return a thread-safe future of its result."""
        return asyncio.run_coroutine_threadsafe(coro, self._ensure_loop())

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await `coro` on the browser loop from any other event loop."""
        return await asyncio.wrap_future(self.submit(coro))

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            alive = self._thread is not None and self._thread.is_alive()
            if self._loop is None or self._pid != os.getpid() or not alive:
                # A forked child inherits the parent's objects but not its thread: start over.
                self._playwright = self._browser = None
                self._launching = self._pages = None
                self._proxy = None
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._loop.run_forever, name="webclip-browser", daemon=True
                )
                self._thread.start()
                self._pid = os.getpid()
            return self._loop

    async def browser(self, policy: FetchPolicy) -> Browser:
        """Return the running Chromium, launching (or relaunching after a crash) as needed.

        A policy naming another executable than the running browser's replaces it. Raises
        BrowserError when Chromium does not start.
        """
        if self._launching is None:
            self._launching = asyncio.Lock()
        async with self._launching:
            if self._browser is not None and self._executable != policy.chromium_path:
                browser, self._browser = self._browser, None
                with contextlib.suppress(PlaywrightError):
                    await browser.close()
            if self._browser is None or not self._browser.is_connected():
                if self._playwright is None:
                    self._playwright = await async_playwright().start()
                if self._proxy is None:
                    relay = Relay(policy, system_resolve, SiteRules(), hosts=None)
                    self._proxy = await EgressProxy(relay).start()
                try:
                    self._browser = await self._playwright.chromium.launch(
                        executable_path=launcher(policy.chromium_path),
                        headless=True,
                        args=launch_args(self._proxy.server),
                    )
                except PlaywrightError as exc:
                    self._browser = None
                    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    raise BrowserError(
                        f"Chromium at {policy.chromium_path} did not start: {message}"
                    ) from exc
                self._executable = policy.chromium_path
            return self._browser

    def page_slots(self, policy: FetchPolicy) -> asyncio.Semaphore:
        """Return the semaphore that caps pages rendered at once (on the browser loop)."""
        if self._pages is None:
            self._pages = asyncio.Semaphore(policy.render_concurrency)
        return self._pages

    def shutdown(self, timeout: float = 10.0) -> None:
        """Close Chromium and the driver, then stop the thread (atexit, tests)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            if loop is None or thread is None or not thread.is_alive() or self._pid != os.getpid():
                return
        future = asyncio.run_coroutine_threadsafe(self._close(), loop)
        with contextlib.suppress(Exception):  # best effort: the process is going away
            future.result(timeout)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)
        with self._lock:
            self._loop = self._thread = None

    async def _close(self) -> None:
        browser, playwright, proxy = self._browser, self._playwright, self._proxy
        self._browser = self._playwright = self._proxy = None
        if browser is not None:
            await browser.close()
        if playwright is not None:
            await playwright.stop()
        if proxy is not None:
            await proxy.close()
            await proxy.relay.close()


HOST = BrowserHost()
atexit.register(HOST.shutdown)
