"""Algorithm 1 (page and node characterisation) with page-adaptive thresholds and the
navigational filtering step the paper named as its next step.

1. Bottom-up over the tag tree, each node adds its children's IV and HV and its own text
   (IV) or 1 if it is a link (HV); WeightIV doubles IV at table and list tags.
2. Stop criteria: IV > ThrIV, with text outside links at least as long as the text inside
   them (LTR >= 1, else a long menu would pass as text), makes an informational area; else
   HV > ThrHV makes a hub area. An area stops climbing: its IV and HV do not reach its
   ancestors, which go on with what is left.
3. Thresholds adapt to the page (settings.THR_*): ThrIV is a share of the page's Ctext,
   ThrHV a share of its link count, both clamped. A small page gets small areas, a large
   portal no hundred-character crumbs.
4. Filtering: a hub area whose anchors are short (median under NAV_MAX_WORDS words: menus,
   tag clouds, share bars, pagers) and whose LAR (links per character of anchor text, the
   paper's link density beside HV) is above HUB_MAX_LAR, or that sits in navigation markup
   (nav, header, footer, menu roles and names) with anchors under NAV_CONTEXT_MAX_WORDS
   words, is navigational, not a hub that leads to articles.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from functools import lru_cache

from analyzer import settings
from analyzer.content import Content, Teaser
from analyzer.markup import PAGE_TAGS, WEIGHT_IV_TAGS
from analyzer.model import AreaKind, Thresholds
from analyzer.walk import Anchor, Node, Page

NAV_MAX_WORDS = 4
"""Anchors shorter than this (median words) make a hub area navigational."""
HUB_MAX_LAR = 1 / 12
"""A LAR at most this (links average 12 characters of anchor or more) keeps a hub whose
median anchor is short: headline links among category and tag links (a blog's post list).
Chosen by cross-validation on the shared real blog (bench/seed_analyzer.py)."""
NAV_CONTEXT_MAX_WORDS = 6
"""In navigation markup, anchors shorter than this make a hub area navigational."""
_CHROME_TEXT_NAME = re.compile(
    r"footer|copyright|cookie|consent|gdpr|newsletter|subscribe|legal|disclaimer|"
    r"masthead|site-header|nav",
    re.IGNORECASE,
)
_NAV_TAGS = frozenset({"nav", "header", "footer", "menu"})
_NAV_ROLES = frozenset({"navigation", "banner", "contentinfo", "menu", "menubar"})
_NAV_NAME = re.compile(
    r"nav|menu|breadcrumb|footer|header|masthead|share|sharing|social|tags|tagcloud|"
    r"pagination|pager|toolbar|topbar",
    re.IGNORECASE,
)


@dataclass
class Found:
    """A node that Algorithm 1 stopped at, with its residual metrics."""

    node: Node
    kind: AreaKind  # "information", "hub" or "navigation", never "other"
    iv: float
    hv: int
    text: int
    link_text: int
    links: int
    reason: str
    teaser: Teaser | None = None
    main: bool = False

    @property
    def ltr(self) -> float:
        """Return Ctext / Ltext (Ltext counted as 1 when zero)."""
        return (self.text - self.link_text) / max(self.link_text, 1)

    @property
    def lar(self) -> float:
        """Return L(p) / Ltext (Ltext counted as 1 when zero)."""
        return self.links / max(self.link_text, 1)


def thresholds(page: Page) -> Thresholds:
    """Return ThrIV and ThrHV adapted to the page's amount of text and links."""
    body = page.body
    if body is None:
        return Thresholds(float(settings.THR_IV_MIN), float(settings.THR_HV_MIN))
    clean = body.text - body.link_text
    iv = _clamp(settings.THR_IV_SHARE * clean, settings.THR_IV_MIN, settings.THR_IV_MAX)
    hv = _clamp(settings.THR_HV_SHARE * body.links, settings.THR_HV_MIN, settings.THR_HV_MAX)
    return Thresholds(iv, hv)


def characterize(page: Page, limits: Thresholds) -> list[Found]:
    """Run Algorithm 1 over the page; return the areas it stops at, in document order."""
    nodes = page.nodes
    size = len(nodes)
    acc_iv = [0.0] * size
    acc_hv = [0] * size
    acc_text = [0] * size
    acc_link = [0] * size
    acc_links = [0] * size
    found: list[Found] = []
    for node in reversed(nodes):  # pre-order reversed: every child before its parent
        index = node.index
        is_link = node.name == "a"
        iv = (node.own + acc_iv[index]) * (2 if node.name in WEIGHT_IV_TAGS else 1)
        hv = acc_hv[index] + is_link
        text = node.own + acc_text[index]
        link_text = text if is_link else acc_link[index]
        links = acc_links[index] + is_link
        if node.name in PAGE_TAGS and found:
            continue  # what is left over at <body> is not an area; a bare page may be one
        if iv > limits.iv and text - link_text >= link_text:
            reason = (
                f"IV {iv:.0f} > ThrIV {limits.iv:.0f} and Ctext {text - link_text} >= "
                f"Ltext {link_text}: text, not links"
            )
            found.append(Found(node, "information", iv, hv, text, link_text, links, reason))
            continue
        if hv > limits.hv:
            reason = f"HV {hv} > ThrHV {limits.hv:.0f}"
            if iv > limits.iv:
                reason += f" (IV {iv:.0f} > ThrIV, but Ltext {link_text} > Ctext)"
            found.append(Found(node, "hub", iv, hv, text, link_text, links, reason))
            continue
        parent = node.parent
        if parent is not None:
            position = parent.index
            acc_iv[position] += iv
            acc_hv[position] += hv
            acc_text[position] += text
            acc_link[position] += link_text
            acc_links[position] += links
    found.reverse()
    return found


def filter_navigation(found: list[Found], anchors: list[Anchor]) -> None:
    """Relabel hub areas that are site navigation (menus, footers, share bars), and text in
    site chrome (a footer's copyright line, a cookie notice): no clip should come from it."""
    by_node = _anchors_by_area(found, anchors)
    for area in found:
        if area.kind == "information":
            if area.teaser is None and _in_markup(area.node, _CHROME_TEXT_NAME):
                area.kind = "navigation"
                area.reason += "; navigational: text of site chrome (footer, header, notice)"
            continue
        if area.kind != "hub":
            continue
        words = [len(anchor.text.split()) for anchor in by_node.get(area.node.index, ())]
        median = statistics.median(words) if words else 0.0
        if median < NAV_MAX_WORDS and area.lar > HUB_MAX_LAR:
            area.kind = "navigation"
            area.reason += (
                f"; navigational: short anchors (median {median:g} words, LAR {area.lar:.3f})"
            )
        elif median < NAV_CONTEXT_MAX_WORDS and _in_markup(area.node, _NAV_NAME):
            area.kind = "navigation"
            area.reason += f"; navigational: in navigation markup, median {median:g} words"
        else:
            area.reason += f"; leads to articles: headline-like anchors (median {median:g} words)"


def mark_teasers(found: list[Found], teasers: list[Teaser]) -> None:
    """Flag informational areas that are (inside) a teaser card."""
    for area in found:
        if area.kind != "information":
            continue
        for teaser in teasers:
            card = teaser.card
            if card.contains(area.node) or (
                area.node.contains(card) and area.node.text <= card.text + 50
            ):
                area.teaser = teaser
                area.reason += "; a teaser: headline link and short summary of another page"
                break


def merge_main(found: list[Found], content: Content, limits: Thresholds) -> list[Found]:
    """Make the article container one informational area, absorbing those inside it."""
    container = content.container
    if container is None or not content.blocks:
        return found
    kept = [
        area
        for area in found
        if area.node is not container
        and not (area.kind == "information" and container.contains(area.node))
        # A wrapper left with the headline and byline is the same article.
        and not (
            area.kind == "information"
            and area.node.contains(container)
            and area.text - area.link_text < container.text
        )
    ]
    share = 100 * content.container_prose / max(content.prose, 1)
    main = Found(
        container,
        "information",
        container.iv,
        container.hv,
        container.text,
        container.link_text,
        container.links,
        f"the article body: the container of the page's prose ({share:.0f}% of it), "
        f"ThrIV {limits.iv:.0f}",
        main=True,
    )
    kept.append(main)
    kept.sort(key=lambda area: area.node.index)
    return kept


def area_of(found: list[Found]) -> dict[int, Found]:
    """Map each area node's index to its area."""
    return {area.node.index: area for area in found}


def innermost(node: Node, areas: dict[int, Found], memo: dict[int, Found | None]) -> Found | None:
    """Return the innermost area holding node (memo speeds up siblings)."""
    chain: list[int] = []
    current: Node | None = node
    result: Found | None = None
    while current is not None:
        index = current.index
        if index in memo:
            result = memo[index]
            break
        chain.append(index)
        area = areas.get(index)
        if area is not None:
            result = area
            break
        current = current.parent
    for index in chain:
        memo[index] = result
    return result


def _anchors_by_area(found: list[Found], anchors: list[Anchor]) -> dict[int, list[Anchor]]:
    """Group anchors by the innermost area holding them."""
    areas = area_of(found)
    memo: dict[int, Found | None] = {}
    grouped: dict[int, list[Anchor]] = {}
    for anchor in anchors:
        area = innermost(anchor.node, areas, memo)
        if area is not None:
            grouped.setdefault(area.node.index, []).append(anchor)
    return grouped


def _in_markup(node: Node, names: re.Pattern[str]) -> bool:
    """Say whether a node or an ancestor is a nav, header, footer or menu element, has a
    navigation role, or has a class or id matching names."""
    current: Node | None = node
    while current is not None:
        if current.name in _NAV_TAGS:
            return True
        attrs = current.attrs
        if attrs and current.name not in PAGE_TAGS:
            if attrs.get("role") in _NAV_ROLES:
                return True
            if _names_match(names, str(attrs.get("class") or ""), str(attrs.get("id") or "")):
                return True
        current = current.parent
    return False


@lru_cache(maxsize=4096)
def _names_match(names: re.Pattern[str], classes: str, ident: str) -> bool:
    """Say whether a class or id matches a pattern (cached: sites repeat them)."""
    return bool(names.search(classes) or names.search(ident))


def _clamp(value: float, low: float, high: float) -> float:
    """Return value limited to [low, high]."""
    return max(float(low), min(float(high), value))
