"""Adaptive revisit intervals from a page's observed changes (Cho & Garcia-Molina, 2003).

A page's history is a list of visits, each (seconds since the previous visit, changed?). A
visit only tells whether the page changed at least once in the interval, not how often, so the
naive rate (changes / time) underestimates. "Estimating Frequency of Change" gives:

- regular intervals I, n visits, X of them changed: r = -log((n - X + 0.5) / (n + 0.5)), rate = r / I
  (the +0.5 terms remove the bias and keep the estimate finite when every visit saw a change);
- irregular intervals: the maximum-likelihood rate solves
  sum over changed intervals of t / (exp(rate * t) - 1) = sum of the unchanged intervals.

The next visit comes after 1 / rate, bounded by the site's minimum and maximum. A page never
seen changing is waited for as long as it has been watched (so the wait doubles), because
both estimators say "rate 0" from a few quiet visits and would jump straight to the maximum.

Where news appears, the crawler looks often; elsewhere rarely (`visit_wait`):

- feeds and sitemaps are asked on the site's own poll interval, with conditional requests;
- hubs (seeds, analyzer hubs) count a visit as a change only when it brought links the hub
  did not have before, and come back between the site's hub minimum and its maximum;
- articles and other pages count any new content, between the page minimum and maximum,
  starting from the site's crawl interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING

from scipy.optimize import brentq

if TYPE_CHECKING:
    from crawler.models import Page, Site

# How many recent visits a page keeps for the estimate: old behaviour stops counting.
HISTORY_LENGTH = 50
# Intervals within this ratio of each other count as regular.
REGULAR_SPREAD = 1.1

Visit = tuple[float, bool]


def record_visit(
    history: Sequence[Sequence[object]], seconds: float, changed: bool
) -> list[list[object]]:
    """Return the history with one more visit, trimmed to the last HISTORY_LENGTH visits."""
    kept = [list(item) for item in history][-(HISTORY_LENGTH - 1) :]
    kept.append([round(max(seconds, 0.0), 3), bool(changed)])
    return kept


def change_rate(history: Sequence[Sequence[object]]) -> float | None:
    """Return the estimated changes per second, or None without a usable visit."""
    visits = [(float(t), bool(c)) for t, c in history if float(t) > 0]  # type: ignore[arg-type]
    if not visits:
        return None
    changed = [t for t, c in visits if c]
    unchanged = [t for t, c in visits if not c]
    if not changed:
        return 0.0
    intervals = [t for t, _ in visits]
    if not unchanged or max(intervals) <= REGULAR_SPREAD * min(intervals):
        return _regular_rate(len(visits), len(changed), sum(intervals) / len(intervals))
    return _irregular_rate(changed, unchanged)


def _regular_rate(n: int, changes: int, interval: float) -> float:
    return -math.log((n - changes + 0.5) / (n + 0.5)) / interval


def _irregular_rate(changed: list[float], unchanged: list[float]) -> float:
    quiet = sum(unchanged)

    def balance(rate: float) -> float:
        # Decreasing in rate: +inf near 0, -quiet as rate grows.
        return sum(t / math.expm1(min(rate * t, 700.0)) for t in changed) - quiet

    low = 1e-9 / max(changed)
    high = 1.0 / min(changed)
    while balance(high) > 0:
        high *= 4
    while balance(low) < 0:
        low /= 4
    return float(brentq(balance, low, high, xtol=1e-15, rtol=1e-10))


def revisit_interval(
    history: Sequence[Sequence[object]],
    minimum: timedelta,
    maximum: timedelta,
    *,
    default: timedelta | None = None,
) -> timedelta:
    """Return how long to wait before the next visit, within [minimum, maximum].

    Without history the wait is `default` (the site's crawl interval), bounded the same way.
    """
    rate = change_rate(history)
    if rate is None:
        return _clamp(default if default is not None else minimum, minimum, maximum)
    watched = sum(float(t) for t, _ in history if float(t) > 0)  # type: ignore[arg-type]
    rate = max(rate, 1.0 / watched)
    return _clamp(timedelta(seconds=1.0 / rate), minimum, maximum)


def _clamp(value: timedelta, minimum: timedelta, maximum: timedelta) -> timedelta:
    return max(minimum, min(maximum, value))


def is_polled(page: Page) -> bool:
    """Tell whether a page is a feed or sitemap, asked on the site's poll interval.

    A seed counts when its body is one (a person's site lists its feed among its seeds, and
    a feed's own address may be the site's root): it is no hub to be looked at every few
    minutes at best. The same rule as `PageQuerySet.hubs_due` orders by.
    """
    from crawler.models import Page
    from crawler.models.pages import is_xml_type

    if page.role in {Page.Role.FEED, Page.Role.SITEMAP}:
        return True
    return page.role == Page.Role.SEED and is_xml_type(page.content_type)


def is_hub(page: Page) -> bool:
    """Tell whether a page is a hub whose changes are the links it gains (feeds included)."""
    from crawler.models import Page

    return page.role != Page.Role.PAGE or page.kind == Page.Kind.HUB


def visit_wait(page: Page, site: Site) -> timedelta:
    """Return how long to wait before the page's next visit, by what kind of page it is."""
    if is_polled(page):
        return site.feed_poll_interval
    if is_hub(page):
        return revisit_interval(
            page.revisit_history,
            site.min_hub_revisit,
            max(site.min_hub_revisit, site.max_page_revisit),
            default=site.min_hub_revisit,
        )
    return revisit_interval(
        page.revisit_history,
        site.min_page_revisit,
        site.max_page_revisit,
        default=site.revisit_interval,
    )
