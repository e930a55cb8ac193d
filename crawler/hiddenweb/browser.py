"""Chromium for forms: lay a form page out to read labels, and submit forms that need a browser.

The browser is the process's one Chromium (`crawler.render.host`), launched from the
configured path; each call gets a fresh context on the browser's own loop. Layout needs no
network: the page's HTML is set into a blank tab with every request aborted and scripts
off, which is all HiWE's own layout engine did (no images, no style sheets). Submitting in
the browser navigates for real, so requests are limited to the site's hosts and checked like
the fetcher's (`crawler.fetch.check_url`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError

from crawler.fetch import SiteRules, check_url
from crawler.fetch.policy import FetchPolicy, policy_from_settings
from crawler.render.egress import site_proxy
from crawler.render.host import HOST, BrowserError, BrowserHost
from crawler.render.noudp import harden
from crawler.sitesearch.labels import measure_forms

__all__ = ["BrowserAnswer", "BrowserError", "FormBrowser"]

TIMEOUT_MS = 20_000

# Sets the filled values, then submits as a person pressing Enter would (requestSubmit runs
# the form's validation and submit handlers, unlike form.submit()).
FILL_AND_SUBMIT = """
([index, pairs]) => {
  const form = document.forms[index];
  if (!form) return false;
  for (const [name, value] of pairs) {
    for (const el of form.querySelectorAll('[name]')) {
      if (el.name !== name) continue;
      const type = (el.type || '').toLowerCase();
      if (type === 'radio' || type === 'checkbox') el.checked = el.value === value;
      else if (el.tagName === 'SELECT') el.value = value;
      else if (!['hidden', 'submit', 'button', 'image', 'reset'].includes(type)) el.value = value;
    }
  }
  if (form.requestSubmit) form.requestSubmit(); else form.submit();
  return true;
}
"""


@dataclass
class BrowserAnswer:
    """What a form submitted in the browser led to."""

    url: str
    status: int | None
    html: str


class FormBrowser:
    """A crawl run's form work in the process's shared Chromium; usable as `async with`."""

    def __init__(self, policy: FetchPolicy | None = None, *, host: BrowserHost = HOST) -> None:
        self.policy = policy or policy_from_settings()
        self.host = host

    async def __aenter__(self) -> FormBrowser:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def form_labels(self, html: str, url: str) -> list[dict[str, str]]:
        """Return visual labels (element name -> text) for each form of the page, in order."""
        return await self.host.call(self._form_labels(html, url))

    async def submit(
        self,
        page_url: str,
        form_index: int,
        pairs: list[tuple[str, str]],
        *,
        hosts: list[str],
        rules: SiteRules,
    ) -> BrowserAnswer:
        """Open the form's page, fill the form with `pairs`, submit it, return what came back."""
        return await self.host.call(self._submit(page_url, form_index, pairs, hosts, rules))

    async def close(self) -> None:
        """Release this handle; the shared browser stays up for the next caller."""
        return None

    async def _form_labels(self, html: str, url: str) -> list[dict[str, str]]:
        async with self.host.page_slots(self.policy):
            browser = await self.host.browser(self.policy)
            context = await harden(await browser.new_context(java_script_enabled=False))
            try:
                page = await context.new_page()
                page.set_default_timeout(TIMEOUT_MS)
                await page.route("**/*", lambda route: route.abort())
                await page.set_content(html, wait_until="domcontentloaded")
                return await measure_forms(page)
            except PlaywrightError as exc:
                raise BrowserError(f"{url}: laying out the forms failed: {exc}") from exc
            finally:
                await context.close()

    async def _submit(
        self,
        page_url: str,
        form_index: int,
        pairs: list[tuple[str, str]],
        hosts: list[str],
        rules: SiteRules,
    ) -> BrowserAnswer:
        allowed = {h.lower() for h in hosts}

        async def guard(route: Any) -> None:
            url = route.request.url
            host = (urlsplit(url).hostname or "").lower()
            if host in allowed and check_url(url, rules) is None:
                await route.continue_()
            else:
                await route.abort()

        scoped = rules.scoped_to(page_url)
        async with (
            self.host.page_slots(self.policy),
            site_proxy(self.policy, scoped, hosts) as proxy,  # what Chromium connects to
        ):
            browser = await self.host.browser(self.policy)
            context = await harden(await browser.new_context(proxy=proxy.settings))
            try:
                page = await context.new_page()
                page.set_default_timeout(TIMEOUT_MS)
                await page.route("**/*", guard)
                await page.goto(page_url, wait_until="load")
                async with page.expect_navigation(wait_until="load") as navigation:
                    submitted = await page.evaluate(FILL_AND_SUBMIT, [form_index, pairs])
                    if not submitted:
                        raise BrowserError(f"{page_url}: the page has no form #{form_index}.")
                response = await navigation.value
                return BrowserAnswer(
                    url=page.url,
                    status=response.status if response else None,
                    html=await page.content(),
                )
            except PlaywrightError as exc:
                raise BrowserError(
                    f"{page_url}: submitting form #{form_index} failed: {exc}"
                ) from exc
            finally:
                await context.close()
