"""analyze(): HTML in, a PageAnalysis out. Pure and in-process; no I/O."""

from __future__ import annotations

from dataclasses import dataclass

from analyzer import settings
from analyzer import text as text_tools
from analyzer.areas import (
    Found,
    area_of,
    characterize,
    filter_navigation,
    innermost,
    mark_teasers,
    merge_main,
    thresholds,
)
from analyzer.content import Content, find_content
from analyzer.encoding import clean, decode, printable
from analyzer.errors import NotHTMLError, PageTooLargeError
from analyzer.kind import Averages, page_kind, page_measures
from analyzer.links import CONTEXT_CHARS, Resolver
from analyzer.model import (
    AreaKind,
    HubArea,
    InfoArea,
    Link,
    NavArea,
    PageAnalysis,
)
from analyzer.paths import Namer
from analyzer.pubdate import declared_times
from analyzer.titles import Titler
from analyzer.tree import parse
from analyzer.walk import Block, Page, walk

_BINARY_MAGIC = (
    b"%PDF-",
    b"\x89PNG",
    b"GIF87a",
    b"GIF89a",
    b"\xff\xd8\xff",
    b"PK\x03\x04",
    b"\x1f\x8b",
    b"RIFF",
    b"OggS",
    b"ID3",
    b"\x00asm",
    b"\x7fELF",
    b"Rar!",
    b"7z\xbc\xaf",
    b"wOFF",
    b"wOF2",
)
_CONTROL = frozenset(chr(code) for code in range(32) if chr(code) not in "\t\n\r\x0c")
FALLBACK_RATIO = 2
"""How much more text an informational area needs than the article run to replace it."""
FALLBACK_MIN_CHARS = 200
"""An article run shorter than this is a crumb; an area standing in for it needs as much."""
_LANGUAGE_SAMPLE = 1500  # enough words to vote on stop words; more costs time


@dataclass
class Run:
    """One analysis with the intermediate results --explain shows."""

    analysis: PageAnalysis
    page: Page
    content: Content
    found: list[Found]
    namer: Namer
    kind_reason: str


def analyze(
    html: str | bytes,
    url: str | None = None,
    *,
    declared_encoding: str | None = None,
    averages: Averages | None = None,
) -> PageAnalysis:
    """Analyse one page: kind, areas, main text, title, language and links.

    html: the page as fetched (bytes, decoded by BOM > declared_encoding (the HTTP
    charset) > <meta> > detection) or as text. url: where it came from, to resolve links.
    averages: the page averages its kind is weighed against (the site's learnt ones; None:
    the dev-set values).
    Raises AnalyzerError (NotHTMLError, PageTooLargeError, PageTooDeepError,
    PageTooComplexError) and nothing else for input it cannot analyse.
    """
    return run(html, url, declared_encoding=declared_encoding, averages=averages).analysis


def run(
    html: str | bytes,
    url: str | None = None,
    *,
    declared_encoding: str | None = None,
    averages: Averages | None = None,
) -> Run:
    """Analyse one page and keep the intermediate results."""
    text, encoding = read_input(html, declared_encoding)
    page = walk(parse(text))
    resolver = Resolver(url, page.base_href)
    content = find_content(page, resolver.is_same_page if url else None)
    limits = thresholds(page)
    found = characterize(page, limits)
    mark_teasers(found, content.teasers)
    filter_navigation(found, page.anchors)
    kind, score, kind_reason = page_kind(page, content, averages or Averages())
    if kind == "information":
        found = merge_main(found, content, limits)
    main_text = content.text
    visible = "\n".join(block.text for block in page.blocks)
    language = text_tools.detect_language((main_text or visible)[:_LANGUAGE_SAMPLE], page.lang)
    namer = Namer(page.ids)
    analysis = PageAnalysis(
        url=url,
        kind=kind,
        kind_score=score,
        title="",
        language=language,
        main_text=main_text,
        text=visible,
        encoding=encoding,
        thresholds=limits,
        measures=page_measures(page, content),
    )
    others = _add_areas(analysis, page, content, found, resolver, namer)
    analysis.main_text = _main_text(main_text, others)
    if kind == "information" and any(not area.teaser for area in analysis.informational_areas):
        # Only an article is clipped, and its clips are dated by what it declares.
        analysis.published = declared_times(html if isinstance(html, str) else bytes(html), url)
    return Run(analysis, page, content, found, namer, kind_reason)


def _main_text(text: str, others: list[list[Block]]) -> str:
    """Return the page's main text: the article body, else its largest informational area.

    The article run can miss a page whose content is no article (a results table, a poem
    of short lines, a landing page of short sections) or come out as a crumb (under
    FALLBACK_MIN_CHARS); then the informational area of Algorithm 1 (no teaser, its site
    chrome left out: others holds each such area's other blocks) with the most text, if it
    holds FALLBACK_RATIO times more, is the page's content, whatever the page's kind.
    """
    if len(text) >= FALLBACK_MIN_CHARS or not others:
        return text
    best = max(others, key=lambda blocks: sum(b.chars - b.link_chars for b in blocks))
    if sum(b.chars - b.link_chars for b in best) >= max(
        FALLBACK_RATIO * len(text), FALLBACK_MIN_CHARS
    ):
        return "\n\n".join(block.text for block in best)
    return text


def read_input(html: str | bytes, declared_encoding: str | None) -> tuple[str, str | None]:
    """Return (text, codec) for the input, refusing what is too large or not HTML."""
    if isinstance(html, str):
        if len(html) > settings.MAX_BYTES:
            raise PageTooLargeError(
                f"page has {len(html):,} characters, over MAX_BYTES ({settings.MAX_BYTES:,})"
            )
        return clean(html), None
    if not isinstance(html, (bytes, bytearray, memoryview)):
        raise NotHTMLError(f"expected HTML as str or bytes, got {type(html).__name__}")
    data = bytes(html)
    if len(data) > settings.MAX_BYTES:
        raise PageTooLargeError(
            f"page has {len(data):,} bytes, over MAX_BYTES ({settings.MAX_BYTES:,})"
        )
    if data.startswith(_BINARY_MAGIC):
        raise NotHTMLError("input is binary data (a PDF, image, archive or font), not HTML")
    text, codec = decode(data, declared_encoding)
    head = text[:2048]
    junk = sum(1 for char in head if char in _CONTROL or char == "\ufffd")
    if head and junk > 0.1 * len(head):
        raise NotHTMLError(
            f"input looks binary: {junk} of its first {len(head)} characters are control "
            f"characters or undecodable bytes"
        )
    return printable(text), codec


def _add_areas(
    analysis: PageAnalysis,
    page: Page,
    content: Content,
    found: list[Found],
    resolver: Resolver,
    namer: Namer,
) -> list[list[Block]]:
    """Add Algorithm 1's areas, with their text, titles and links, and the page's links.

    Return the blocks outside site chrome of each informational area that is neither a
    teaser nor the article body (the candidates for _main_text).
    """
    areas = area_of(found)
    memo: dict[int, Found | None] = {}
    blocks_of = _blocks_of(page, content, found, areas, memo)
    analysis.links, links_of = _links(page, resolver, namer, areas, memo)
    info_blocks = {
        block.index
        for area in found
        if area.kind == "information"
        for block in blocks_of.get(area.node.index, ())
    }
    fallbacks = [
        [block for block in blocks_of.get(area.node.index, ()) if block.index not in content.chrome]
        for area in found
        if area.kind == "information" and area.teaser is None and not area.main
    ]
    language = analysis.language
    titler = Titler(page, lambda text: text_tools.split_sentences(text, language))
    for area in found:
        own = blocks_of.get(area.node.index, [])
        common = _common(area, own, namer, links_of.get(area.node.index, []))
        if area.kind == "information":
            others = info_blocks.difference(block.index for block in own)
            title = titler.title(area.node, own, others, area.main)
            follow = None
            if area.teaser is not None and area.teaser.anchor is not None:
                follow = resolver.resolve(area.teaser.anchor.href)
            analysis.informational_areas.append(
                InfoArea(
                    *common,
                    title=title,
                    teaser=area.teaser is not None,
                    follow_url=follow,
                    main=area.main,
                )
            )
        elif area.kind == "hub":
            analysis.hub_areas.append(HubArea(*common))
        else:
            analysis.navigational_areas.append(NavArea(*common))
    analysis.title = _page_title(page, analysis.informational_areas)
    return [blocks for blocks in fallbacks if blocks]


def _blocks_of(
    page: Page,
    content: Content,
    found: list[Found],
    areas: dict[int, Found],
    memo: dict[int, Found | None],
) -> dict[int, list[Block]]:
    """Return the text blocks of each area (by its node's index): those it holds innermost,
    and for the article body the blocks of the article run."""
    blocks_of: dict[int, list[Block]] = {}
    for block in page.blocks:
        holder = innermost(block.owner, areas, memo)
        if holder is not None:
            blocks_of.setdefault(holder.node.index, []).append(block)
    main = next((area for area in found if area.main), None)
    if main is not None:
        blocks_of[main.node.index] = list(content.blocks)
    return blocks_of


_Common = tuple[str, str, str, float, int, float, float, int, int, int, str, tuple[Link, ...]]


def _common(area: Found, own: list[Block], namer: Namer, links: list[Link]) -> _Common:
    """Return the fields every kind of area shares, in Area's field order."""
    return (
        namer.path(area.node),
        namer.selector(area.node),
        "\n\n".join(block.text for block in own),
        float(area.iv),
        area.hv,
        round(area.ltr, 4),
        round(area.lar, 4),
        area.text,
        area.link_text,
        area.links,
        area.reason,
        tuple(links),
    )


def _links(
    page: Page,
    resolver: Resolver,
    namer: Namer,
    areas: dict[int, Found],
    memo: dict[int, Found | None],
) -> tuple[list[Link], dict[int, list[Link]]]:
    """Return every crawlable link of the page, and the links grouped by area node."""
    links: list[Link] = []
    links_of: dict[int, list[Link]] = {}
    for anchor in page.anchors:
        url = resolver.resolve(anchor.href)
        if url is None:
            continue
        holder = innermost(anchor.node, areas, memo)
        node = anchor.node
        kind: AreaKind
        if holder is not None:
            kind = holder.kind
            area_path = namer.path(holder.node)
        else:
            kind = "other"
            area_path = namer.path(node.parent if node.parent is not None else node)
        rel = tuple(anchor.rel.lower().split())
        context = anchor.block.text[:CONTEXT_CHARS] if anchor.block is not None else ""
        link = Link(
            url=url,
            text=anchor.text,
            context=context,
            area_kind=kind,
            area_path=area_path,
            path=namer.path(node),
            rel=rel,
            nofollow="nofollow" in rel,
        )
        links.append(link)
        if holder is not None:
            links_of.setdefault(holder.node.index, []).append(link)
    return links, links_of


def _page_title(page: Page, info: list[InfoArea]) -> str:
    """Return the page's title: the article's heading, else og:title, else <title>."""
    main = next((area for area in info if area.main), None)
    if main is not None:
        headings = {block.text for block in page.blocks if block.heading}
        if main.title in headings:
            return main.title
    return page.meta.get("og:title") or page.title or (main.title if main else "")
