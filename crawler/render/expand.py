"""Grow a rendered page's lists: click "Load more", scroll infinite lists, read JSON APIs.

Runs after a page has loaded and settled (`crawler.render.page`). A list that grows only on
demand hides most of its items from a crawler that reads the first DOM:

1. A visible "Load more" / "Show more" control (a button, or a link going nowhere) is
   clicked; a page that watches scrolling (a scroll listener or an IntersectionObserver,
   noted by `WATCH_SCRIPT` before the page's own scripts run) is scrolled to its bottom.
2. After each step the page gets time only if it asked the network for something; the
   links and text of the DOM are measured, and the expansion stops at the first step that
   brings neither a new link nor new text, or after MAX_STEPS steps or the page's time.
3. Navigations of the main frame are refused while expanding: a "Load more" that is really a
   link to another page is the crawl's to follow, not a click.

JSON the page receives (through the relay) is read for links (`api_links`): an item's
"url", "href", "link", "permalink" or "path", with its "title" or "headline".
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from html import escape
from typing import Protocol
from urllib.parse import urljoin, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from crawler.canonical import same_site

MAX_STEPS = 30  # clicks and scrolls per page
STEP_WAIT = 2.0  # seconds a step may wait for the network to go quiet
API_LINKS = 1000  # links kept from the JSON one page loads
_URL_KEYS = ("url", "href", "link", "permalink", "path", "canonical_url", "share_url")
_TITLE_KEYS = ("title", "headline", "name", "label")

# Before the page's scripts: note whether the page watches scrolling.
WATCH_SCRIPT = """
(() => {
  const note = () => { window.__webclipWatchesScroll = true; };
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, ...rest) {
    if (type === 'scroll' || type === 'wheel') note();
    return add.call(this, type, ...rest);
  };
  if (window.IntersectionObserver) {
    const Original = window.IntersectionObserver;
    window.IntersectionObserver = function (...args) { note(); return new Original(...args); };
    window.IntersectionObserver.prototype = Original.prototype;
  }
})();
"""

# Click the first visible control that loads more items; return its text, or "".
CLICK_MORE = r"""
() => {
  const wanted = /^\s*((load|show|see|view) more|more (stories|articles|news|posts|results|items)|more)\b[^<]{0,20}$/i;
  const candidates = document.querySelectorAll('button, [role=button], a, input[type=button]');
  for (const el of candidates) {
    const text = (el.innerText || el.value || '').trim();
    if (!text || text.length > 40 || !wanted.test(text)) continue;
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') continue;
    if (el.tagName === 'A') {
      const href = (el.getAttribute('href') || '').trim();
      if (href && href !== '#' && !href.startsWith('javascript:')) continue;
    }
    if (el.tagName === 'BUTTON' && el.form && (el.getAttribute('type') || 'submit') === 'submit') continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    el.scrollIntoView({block: 'center'});
    el.click();
    return text;
  }
  return '';
}
"""

# What a step may add: links, or text (items whose links only the JSON carries).
COUNT_ITEMS = (
    "() => [document.querySelectorAll('a[href]').length,"
    " document.body ? document.body.innerText.length : 0]"
)
SCROLL = """
() => {
  if (!window.__webclipWatchesScroll) return false;
  window.scrollTo(0, document.documentElement.scrollHeight);
  window.dispatchEvent(new Event('scroll'));
  return true;
}
"""


@dataclass
class Expansion:
    """What growing a page did."""

    clicks: int = 0
    scrolls: int = 0

    @property
    def steps(self) -> int:
        return self.clicks + self.scrolls


class Traffic(Protocol):
    """The page's requests as the route handler sees them."""

    def started(self) -> int:
        """Return how many requests the page has made so far."""

    def pending(self) -> int:
        """Return how many of them are not answered yet."""


async def expand(page: Page, traffic: Traffic, deadline: float) -> Expansion:
    """Click "Load more" and scroll until no new links come or time is up (see module doc)."""
    done = Expansion()
    try:
        seen = await page.evaluate(COUNT_ITEMS)
        for _ in range(MAX_STEPS):
            if deadline - time.monotonic() < STEP_WAIT + 0.5:
                break
            before = traffic.started()
            clicked = await page.evaluate(CLICK_MORE)
            scrolled = False if clicked else await page.evaluate(SCROLL)
            if not clicked and not scrolled:
                break
            await _settle(page, traffic, before)
            now = await page.evaluate(COUNT_ITEMS)
            if now[0] <= seen[0] and now[1] <= seen[1]:
                break
            seen = now
            if clicked:
                done.clicks += 1
            else:
                done.scrolls += 1
    except PlaywrightError:
        pass  # the page went away or navigated: keep what was read
    return done


async def _settle(page: Page, traffic: Traffic, before: int) -> None:
    """Give the page time for what its step asked of the network, and no more."""
    await asyncio.sleep(0.05)
    if traffic.started() == before:
        await asyncio.sleep(0.1)  # a script may answer on a later tick without the network
        if traffic.started() == before:
            return
    give_up = time.monotonic() + STEP_WAIT
    while traffic.pending() and time.monotonic() < give_up:
        await asyncio.sleep(0.05)
    # Items are often added just after the answer arrives.
    await page.evaluate("() => new Promise((done) => setTimeout(() => done(true), 50))")


def json_links(body: bytes, base: str, hosts: Iterable[str] | None) -> dict[str, str]:
    """Return the links (absolute URL -> title) that a JSON answer carries for these hosts."""
    try:
        data = json.loads(body.decode("utf-8", "replace"))
    except ValueError:
        return {}
    found: dict[str, str] = {}
    allowed = tuple(hosts) if hosts is not None else None
    _collect(data, base, allowed, found, depth=0)
    return found


def _collect(
    node: object, base: str, hosts: tuple[str, ...] | None, found: dict[str, str], depth: int
) -> None:
    if depth > 12 or len(found) >= API_LINKS:
        return
    if isinstance(node, list):
        for item in node:
            _collect(item, base, hosts, found, depth + 1)
        return
    if not isinstance(node, dict):
        return
    title = next((str(node[k]) for k in _TITLE_KEYS if isinstance(node.get(k), str)), "")
    for key in _URL_KEYS:
        value = node.get(key)
        if isinstance(value, str) and _looks_like_url(value):
            url = urljoin(base, value.strip())
            if urlsplit(url).scheme in {"http", "https"} and (
                hosts is None or same_site(url, hosts)
            ):
                found.setdefault(url.split("#", 1)[0], title[:300])
    for value in node.values():
        if isinstance(value, dict | list):
            _collect(value, base, hosts, found, depth + 1)


def _looks_like_url(value: str) -> bool:
    value = value.strip()
    return value.startswith(("http://", "https://", "/")) and " " not in value and len(value) < 2000


def links_block(links: dict[str, str]) -> str:
    """Return the HTML block added to a rendered DOM for the links its JSON carried."""
    items = "".join(
        f'<li><a href="{escape(url)}">{escape(title or url)}</a></li>'
        for url, title in links.items()
    )
    return f'<aside data-webclip="api-links"><ul>{items}</ul></aside>'
