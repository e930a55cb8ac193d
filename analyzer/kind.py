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
"""

from __future__ import annotations

import math

from analyzer.content import Content
from analyzer.model import PageKind
from analyzer.walk import Page

AVG_INFO_TEXT = 2200.0
AVG_HUB_TEXT = 10.0
AVG_INFO_LTR = 2.0
AVG_HUB_LTR = 0.25
TEXT_WEIGHT = 0.75


def page_kind(page: Page, content: Content) -> tuple[PageKind, float, str]:
    """Return ("information" | "hub", kind_score, reason) for a walked page."""
    body = page.body
    if body is None:
        return "hub", 0.0, "empty page"
    prose = sum(block.chars for block in content.blocks if block.prose)
    ltr = (body.text - body.link_text) / max(body.link_text, 1)
    amount = _position(prose, AVG_HUB_TEXT, AVG_INFO_TEXT)
    ratio = _position(ltr, AVG_HUB_LTR, AVG_INFO_LTR)
    score = round(TEXT_WEIGHT * amount + (1 - TEXT_WEIGHT) * ratio, 4)
    kind: PageKind = "information" if score >= 0.5 else "hub"
    reason = (
        f"article prose {prose} chars (hub avg {AVG_HUB_TEXT:g}, information avg "
        f"{AVG_INFO_TEXT:g}) -> {amount:.2f}; LTR {ltr:.2f} (hub avg {AVG_HUB_LTR:g}, "
        f"information avg {AVG_INFO_LTR:g}) -> {ratio:.2f}; score {score:.2f}"
    )
    return kind, score, reason


def _position(value: float, low: float, high: float) -> float:
    """Return where value sits between low (0) and high (1) on a log scale, clamped."""
    if value <= low:
        return 0.0
    if value >= high:
        return 1.0
    return math.log(value / low) / math.log(high / low)
