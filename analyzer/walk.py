"""Walk the tag tree once, in document order, and measure every element on the way out.

The walker is the sink of the parser's events (analyzer.tree): no tree is built, each
element is measured as the parser opens and closes it. One pass gives, per element, the
paper's metrics (T, L, Ltext, IV, HV) computed bottom-up when the element closes, and, in
document order, the page's text cut into blocks at block-level boundaries, with invisible
format characters (soft hyphens, zero-width spaces) left out. No recursion, so nesting
depth costs nothing but memory, and no per-node searches, so the walk is linear in the
page.

Units: T, Ltext and Ctext count non-space characters (the paper counts bytes; characters
make Greek and English pages comparable, and spaces depend on indentation only).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from analyzer.encoding import visible
from analyzer.markup import (
    ARTICLE_TAGS,
    BLOCK_TAGS,
    CHROME_ROLES,
    CHROME_TAGS,
    HEADINGS,
    PAGE_TAGS,
    WEIGHT_IV_TAGS,
    is_prose,
    names_chrome,
    non_space,
)
from analyzer.tree import Source, feed


class Node:
    """One element of the tag tree with its bottom-up metrics."""

    __slots__ = (
        "attrs",
        "name",
        "parent",
        "index",
        "end",
        "nth",
        "depth",
        "text",
        "own",
        "link_text",
        "links",
        "iv",
        "hv",
        "good",
        "chrome",
        "heading",
    )

    def __init__(
        self,
        name: str,
        attrs: dict[str, str],
        parent: Node | None,
        index: int,
        nth: int,
        depth: int,
    ) -> None:
        self.attrs = attrs  # as parsed; the analysis reads class, id, style, role, href, rel
        self.name = name
        self.parent = parent
        self.index = index
        self.end = index + 1  # one past the last descendant's index
        self.nth = nth  # position among same-name siblings, from 1
        self.depth = depth
        self.text = 0  # T(p)
        self.own = 0  # characters of the node's own text children
        self.link_text = 0  # Ltext
        self.links = 0  # L(p)
        self.iv = 0.0  # I_p
        self.hv = 0  # H_p
        self.good = 0  # characters of prose blocks below
        self.chrome = False  # this element marks its subtree as site chrome
        self.heading = 0  # 1..6 for h1..h6

    @property
    def clean_text(self) -> int:
        """Return Ctext, the characters outside links."""
        return self.text - self.link_text

    @property
    def ltr(self) -> float:
        """Return LTR = Ctext / Ltext, with Ltext counted as 1 when there is no link text."""
        return self.clean_text / max(self.link_text, 1)

    @property
    def lar(self) -> float:
        """Return LAR = L(p) / Ltext, with Ltext counted as 1 when there is no link text."""
        return self.links / max(self.link_text, 1)

    def contains(self, other: Node) -> bool:
        """Say whether other is this node or one of its descendants."""
        return self.index <= other.index < self.end


class Block:
    """A run of text between block-level boundaries, in document order."""

    __slots__ = (
        *("text", "chars", "link_chars", "owner", "chrome", "heading", "index", "words"),
        *("links", "prose"),
    )

    def __init__(
        self,
        text: str,
        chars: int,
        link_chars: int,
        owner: Node,
        chrome: tuple[Node, ...],
        heading: int,
        links: int = 0,
    ) -> None:
        self.text = text
        self.chars = chars
        self.link_chars = link_chars
        self.owner = owner
        self.chrome = chrome  # the open elements that mark it as site chrome, outermost first
        self.heading = heading
        self.index = 0
        self.words = text.count(" ") + 1
        self.links = links  # links that start in the block
        self.prose = is_prose(self)  # reads like running text (markup.is_prose)

    @property
    def link_density(self) -> float:
        """Return the share of the block's characters inside links."""
        return self.link_chars / self.chars if self.chars else 0.0


class Anchor:
    """An <a href> element with its anchor text and the block it starts in."""

    __slots__ = ("node", "href", "rel", "parts", "block", "_text")

    def __init__(self, node: Node, href: str, rel: str) -> None:
        self.node = node
        self.href = href
        self.rel = rel
        self.parts: list[str] = []
        self.block: Block | None = None
        self._text: str | None = None

    @property
    def text(self) -> str:
        """Return the anchor text, white space collapsed (read after the walk)."""
        if self._text is None:
            self._text = " ".join("".join(self.parts).split())
        return self._text


@dataclass
class Page:
    """What one walk learns about a page."""

    nodes: list[Node] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    anchors: list[Anchor] = field(default_factory=list)
    title: str = ""
    base_href: str | None = None
    lang: str | None = None
    meta: dict[str, str] = field(default_factory=dict)
    ids: dict[str, int] = field(default_factory=dict)
    class_uses: dict[str, int] = field(default_factory=dict)  # class attribute -> elements
    style_uses: dict[str, int] = field(default_factory=dict)  # style attribute -> elements

    @property
    def root(self) -> Node | None:
        """Return the <html> node, if the page has one."""
        return self.nodes[0] if self.nodes else None

    @property
    def body(self) -> Node | None:
        """Return the <body> node (or <html> when there is no body)."""
        for node in self.nodes[:3]:
            if node.name == "body":
                return node
        return self.root


def walk(source: Source) -> Page:
    """Measure every element and cut the page's text into blocks, in one pass."""
    walker = _Walker(Page())
    feed(source, walker)
    return walker.finish()


class _Walker:
    """State of one walk: a parser sink that measures each element as it closes."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.buffer: list[str] = []
        self.buffer_chars = 0
        self.buffer_link_chars = 0
        self.pending: list[Anchor] = []
        self.owners: list[Node] = []
        self.chrome: tuple[Node, ...] = ()
        self.heading = 0
        self.link_depth = 0  # <a> elements open around the current position
        self.anchor: Anchor | None = None  # the innermost open <a href>
        # The open elements, each with its per-name child counts and the anchor it opened.
        self.stack: list[tuple[Node, dict[str, int], Anchor | None]] = []
        self.roots: dict[str, int] = {}
        self.head: list[str] | None = None  # inside <head>: the <title> text read so far
        self.in_head = False
        self.articles = 0  # open <article> and <main> elements

    def flush(self) -> None:
        """Close the current block and credit its owner."""
        if not self.buffer:
            return
        text = " ".join("".join(self.buffer).split())
        self.buffer.clear()
        if self.buffer_chars:
            owner = self.owners[-1]
            block = Block(
                text,
                self.buffer_chars,
                self.buffer_link_chars,
                owner,
                self.chrome,
                self.heading,
                len(self.pending),
            )
            block.index = len(self.page.blocks)
            self.page.blocks.append(block)
            if block.prose:
                owner.good += block.chars
            for anchor in self.pending:
                anchor.block = block
        self.pending.clear()
        self.buffer_chars = 0
        self.buffer_link_chars = 0

    def finish(self) -> Page:
        """Close what the parser left open and return the page."""
        while self.stack:
            self.close(self.stack[-1][0].name)
        if self.buffer:
            self.flush()
        return self.page

    def open(self, name: str, attrs: dict[str, str]) -> None:
        """Make the node of an element the parser enters."""
        if self.in_head or name == "head":
            self.read_head(name, attrs)
            return
        stack = self.stack
        if stack:
            parent, counts, _ = stack[-1]
        elif self.page.nodes:
            return  # a second root: lxml gives none, a page has one <html>
        else:
            parent, counts = None, self.roots
        nodes = self.page.nodes
        nth = counts[name] = counts.get(name, 0) + 1
        node = Node(name, attrs, parent, len(nodes), nth, parent.depth + 1 if parent else 0)
        nodes.append(node)
        if parent is None:  # <html>: its block and attributes say nothing of the content
            self.page.lang = attrs.get("lang") or None
            self.owners.append(node)
            stack.append((node, {}, None))
            return
        if name in ARTICLE_TAGS:
            self.articles += 1
        if name in CHROME_TAGS and not (name == "header" and self.articles):
            node.chrome = True
        if attrs:
            self.read_attributes(node, attrs)
        stack.append((node, {}, self.enter(node, attrs)))

    def text(self, text: str) -> None:
        """Credit a text node to its element, the open block and the open link."""
        if self.in_head:
            if self.head is not None:
                self.head.append(text)
            return
        if not self.stack:
            return
        node = self.stack[-1][0]
        if not text.isascii():
            text = visible(text)
            if not text:
                return
        if text.isspace():
            if self.buffer:
                self.buffer.append(" ")
            self._space_anchor()
            return
        chars = non_space(text)
        node.text += chars
        node.own += chars
        node.iv += chars
        self.buffer.append(text)
        self.buffer_chars += chars
        if self.link_depth:
            node.link_text += chars
            self.buffer_link_chars += chars
            if self.anchor is not None:
                self.anchor.parts.append(text)

    def _space_anchor(self) -> None:
        """Part the open link's text where white space or a block boundary parts it."""
        if self.anchor is not None:
            self.anchor.parts.append(" ")

    def read_attributes(self, node: Node, attrs: dict[str, str]) -> None:
        """Count the element's id, class and style; mark it chrome when they name chrome."""
        page = self.page
        ident = attrs.get("id")
        classes = attrs.get("class")
        if ident:
            page.ids[ident] = page.ids.get(ident, 0) + 1
        if classes:
            page.class_uses[classes] = page.class_uses.get(classes, 0) + 1
        style = attrs.get("style")
        if style:
            page.style_uses[style] = page.style_uses.get(style, 0) + 1
        if not node.chrome and node.name not in PAGE_TAGS:
            node.chrome = (
                (classes is not None and names_chrome(classes))
                or (ident is not None and names_chrome(ident))
                or attrs.get("role") in CHROME_ROLES
            )

    def enter(self, node: Node, attrs: dict[str, str]) -> Anchor | None:
        """Open what an element starts (chrome, block, heading, link); return its anchor."""
        name = node.name
        if node.chrome:
            self.chrome = (*self.chrome, node)
        if name in BLOCK_TAGS:
            if self.buffer:
                self.flush()
            self.owners.append(node)
            self._space_anchor()  # a heading and a date inside one link are two words
        if name in HEADINGS:
            node.heading = HEADINGS[name]
            self.heading = node.heading
        if name != "a":
            return None
        self.link_depth += 1
        href = attrs.get("href")
        if href is None:
            return None
        anchor = Anchor(node, str(href), str(attrs.get("rel") or ""))
        self.page.anchors.append(anchor)
        self.pending.append(anchor)
        self.anchor = anchor
        return anchor

    def close(self, name: str) -> None:
        """Finish an element: close what it opened and add its measures to its parent."""
        if self.in_head:
            if name == "head":
                self.in_head = False
            elif name == "title" and self.head is not None:
                if not self.page.title:
                    self.page.title = " ".join(visible("".join(self.head)).split())
                self.head = None
            return
        if not self.stack:
            return
        node, _, own_anchor = self.stack.pop()
        name = node.name
        if name in ARTICLE_TAGS:
            self.articles -= 1
        if name in BLOCK_TAGS:
            if self.buffer:
                self.flush()
            self.owners.pop()
            self._space_anchor()
        if node.heading:
            self.heading = 0
        if node.chrome:
            self.chrome = self.chrome[:-1]
        if name == "a":
            node.links += 1
            node.hv += 1
            node.link_text = node.text
            self.link_depth -= 1
            if own_anchor is not None:
                self.anchor = None
        if name in WEIGHT_IV_TAGS:
            node.iv *= 2
        node.end = len(self.page.nodes)
        parent = node.parent
        if parent is not None:
            parent.text += node.text
            parent.link_text += node.link_text
            parent.links += node.links
            parent.iv += node.iv
            parent.hv += node.hv
            parent.good += node.good

    def read_head(self, name: str, attrs: dict[str, str]) -> None:
        """Read the title, <base href> and meta properties from <head>."""
        page = self.page
        if name == "head":
            self.in_head = True
        elif name == "meta":
            key = attrs.get("property") or attrs.get("name")
            content = attrs.get("content")
            if key and content:
                page.meta.setdefault(key.lower(), content)
        elif name == "title":
            self.head = []
        elif name == "base" and page.base_href is None:
            href = attrs.get("href")
            page.base_href = href.strip() if href else None
