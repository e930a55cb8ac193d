"""Tell an information page from a hub page, by the paper's page-level heuristic.

The paper weighs the page's ratio of text to links and its amount of text against the
averages of hub and information pages. Here:

- amount: the prose of the page's article run (content.py), placed on a log scale between
  AVG_HUB_TEXT (0) and AVG_INFO_TEXT (1);
- ratio: the page's LTR = Ctext / Ltext, placed on a log scale between AVG_HUB_LTR (0) and
  AVG_INFO_LTR (1);
- kind_score = TEXT_WEIGHT * amount + (1 - TEXT_WEIGHT) * ratio; information from 0.5 up.

The information averages are the geometric means over the 60 article pages of the
extraction dev set (2,200 characters of article prose, LTR 2.0). The dev set has no hub
pages; the hub averages are estimates for news and blog front pages: once teasers are set
aside they keep next to no article prose (the demo site's and the tests' front pages keep
none), and their links outweigh their text about four to one. With these anchors all 60
dev articles, every article of the demo site (three short paragraphs each) and the test
articles score 0.54 or more; the demo and test front pages about 0.2.

These values are only the prior: as in the paper, a crawl weighs each page against running
averages of the pages its site has had classified (`Averages.learnt`, kept per site by
`crawler.run.averages`), and `analyze(..., averages=...)` takes them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from analyzer.content import Content
from analyzer.model import PageKind
from analyzer.walk import Page

AVG_INFO_TEXT = 2200.0
AVG_HUB_TEXT = 10.0
AVG_INFO_LTR = 2.0
AVG_HUB_LTR = 0.25
TEXT_WEIGHT = 0.75


PRIOR_PAGES = 20  # pages of each kind the dev-set averages count for in learnt averages
MIN_LTR = 0.01  # a page of links only: its LTR counts as this in a geometric mean


@dataclass(frozen=True)
class Averages:
    """The averages a page is weighed against, and how many pages of each kind made them."""

    info_text: float = AVG_INFO_TEXT
    hub_text: float = AVG_HUB_TEXT
    info_ltr: float = AVG_INFO_LTR
    hub_ltr: float = AVG_HUB_LTR
    info_pages: int = PRIOR_PAGES
    hub_pages: int = PRIOR_PAGES

    def learnt(self, prose: int, ltr: float, kind: PageKind) -> Averages:
        """Return the averages with one more classified page in its kind's geometric means
        (the paper's running averages; the dev-set values weigh as PRIOR_PAGES pages)."""
        if kind == "information":
            n = self.info_pages
            return replace(
                self,
                info_text=_mean(self.info_text, max(prose, 1), n),
                info_ltr=_mean(self.info_ltr, max(ltr, MIN_LTR), n),
                info_pages=n + 1,
            )
        n = self.hub_pages
        return replace(
            self,
            hub_text=_mean(self.hub_text, max(prose, 1), n),
            hub_ltr=_mean(self.hub_ltr, max(ltr, MIN_LTR), n),
            hub_pages=n + 1,
        )

    def to_data(self) -> dict[str, float]:
        """Return the averages as JSON-ready numbers (`from_data` reads them back)."""
        return {name: round(getattr(self, name), 4) for name in _FIELDS}

    @classmethod
    def from_data(cls, data: object) -> Averages:
        """Return the averages `to_data` wrote; the dev-set values for anything else (a
        missing, damaged or hand-edited record must not skew a site's page kinds)."""
        if not isinstance(data, dict):
            return cls()
        values: dict[str, float] = {}
        for name, kind in _FIELDS.items():
            value = data.get(name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                return cls()
            if not math.isfinite(value) or value < (PRIOR_PAGES if kind is int else MIN_LTR):
                return cls()
            values[name] = kind(value)
        return cls(**values)  # type: ignore[arg-type]


_FIELDS = {
    "info_text": float,
    "hub_text": float,
    "info_ltr": float,
    "hub_ltr": float,
    "info_pages": int,
    "hub_pages": int,
}
DEV_AVERAGES = Averages()


def page_measures(page: Page, content: Content) -> tuple[int, float] | None:
    """Return the page's article prose (characters) and LTR, None for an empty page."""
    body = page.body
    if body is None:
        return None
    prose = sum(block.chars for block in content.blocks if block.prose)
    return prose, (body.text - body.link_text) / max(body.link_text, 1)


def page_kind(
    page: Page, content: Content, averages: Averages = DEV_AVERAGES
) -> tuple[PageKind, float, str]:
    """Return ("information" | "hub", kind_score, reason) for a walked page."""
    measures = page_measures(page, content)
    if measures is None:
        return "hub", 0.0, "empty page"
    return kind_of(*measures, averages)


def kind_of(
    prose: int, ltr: float, averages: Averages = DEV_AVERAGES
) -> tuple[PageKind, float, str]:
    """Return the kind, score and reason of a page with this prose and LTR."""
    a = averages
    amount = _position(prose, a.hub_text, a.info_text)
    ratio = _position(ltr, a.hub_ltr, a.info_ltr)
    score = round(TEXT_WEIGHT * amount + (1 - TEXT_WEIGHT) * ratio, 4)
    kind: PageKind = "information" if score >= 0.5 else "hub"
    reason = (
        f"article prose {prose} chars (hub avg {a.hub_text:g}, information avg "
        f"{a.info_text:g}) -> {amount:.2f}; LTR {ltr:.2f} (hub avg {a.hub_ltr:g}, "
        f"information avg {a.info_ltr:g}) -> {ratio:.2f}; score {score:.2f}"
    )
    return kind, score, reason


def _mean(average: float, value: float, count: int) -> float:
    """Return the geometric mean of `count` values averaging `average` and one more value."""
    return math.exp((math.log(average) * count + math.log(value)) / (count + 1))


def _position(value: float, low: float, high: float) -> float:
    """Return where value sits between low (0) and high (1) on a log scale, clamped."""
    if value <= low:
        return 0.0
    if value >= high:
        return 1.0
    return math.log(value / low) / math.log(high / low)
