"""The reader view: a clip's article as the analyzer chose it, safe to show inside Webclip.

The area is found again in the stored body by the analyzer's node path ("html/body/div[2]/
article[1]", `analyzer.paths`), parsed by lxml as the analyzer parses it, so the same element
comes back. Its links are made absolute, the words that matched are marked, and the HTML goes
through nh3 (the ammonia allow list): no script, style, form, frame or event attribute
survives, links open outside without a referrer, images load lazily without one. When the
body is gone (retention) or the path no longer leads anywhere, the text the crawler kept of
the area is shown as paragraphs.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urljoin

import nh3
from django.core.cache import cache
from lxml import etree
from lxml.html import HtmlElement, fromstring, tostring

from analyzer.pipeline import read_input
from clipping.models import Clip, HandClip

ALLOWED_TAGS = frozenset(
    {
        *("a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "dd", "del"),
        *("details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h2", "h3"),
        *("h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre"),
        *("q", "s", "samp", "small", "span", "strong", "sub", "summary", "sup", "table"),
        *("tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul", "var"),
    }
)
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan", "scope"},
    "time": {"datetime"},
    "ol": {"start"},
    "abbr": {"title"},
}
SET_ATTRIBUTES = {
    "a": {"target": "_blank"},
    "img": {"loading": "lazy", "referrerpolicy": "no-referrer", "decoding": "async"},
}
# The page's own h1 repeats the clip's title, which the view shows above the article.
_RENAMED = {"h1": "h2"}
_WORD = re.compile(r"\w+", re.UNICODE)
# Stored bodies are capped by the fetcher; this bounds the marking's patterns, not the page.
MAX_MARKED_WORDS = 20
# Bumped when what the reader makes of a page changes: older cached copies are not read.
READER_VERSION = 1
CACHE_SECONDS = 24 * 3600


@dataclass(frozen=True)
class ReaderArticle:
    """What the reader view shows: safe HTML and whether it is the page's own markup."""

    html: str
    from_page: bool  # False: the kept text, the page's markup being gone


def reader_article(clip: Clip, words: Iterable[str] = ()) -> ReaderArticle:
    """Return the clip's article, safe to show, with `words` marked.

    A clip's stored page never changes, so what was made of it is kept in the cache for a day:
    reading it again costs no parse.
    """
    marked = sorted({w for w in words if w.strip()}, key=len, reverse=True)[:MAX_MARKED_WORDS]
    # seen_at changes when a page clipped by hand is clipped again.
    parts = [clip.area_path, clip.url, clip.seen_at.isoformat(), *marked]
    digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()
    key = f"reader:{READER_VERSION}:{clip.pk}:{clip.page_version_id or 0}:{digest[:24]}"
    found = cache.get(key)
    if isinstance(found, ReaderArticle):
        return found
    article = _made(clip, marked)
    cache.set(key, article, CACHE_SECONDS)
    return article


def _made(clip: Clip, marked: list[str]) -> ReaderArticle:
    hand = HandClip.objects.filter(clip=clip).first()
    if hand is not None:
        area = _without_title(_fragment(hand.article_html()), clip.title)
        return ReaderArticle(_safe(area, clip.url, marked), True)
    version = clip.page_version
    body = version.raw_body() if version is not None else None
    if body is not None and version is not None:
        text, _codec = read_input(body, version.encoding or None)
        area = find_area(parse_stored(text), clip.area_path)
        if area is not None:
            return ReaderArticle(_safe(_without_title(area, clip.title), clip.url, marked), True)
    return ReaderArticle(_safe(_fragment(_kept_text(clip)), clip.url, marked), False)


def parse_stored(text: str) -> HtmlElement | None:
    """Parse a stored body as the analyzer does (lxml, comments and PIs dropped)."""
    parser = etree.HTMLParser(
        recover=True, huge_tree=True, remove_comments=True, remove_pis=True, no_network=True
    )
    if not text.strip():
        return None
    try:
        parser.feed(text)
        root = parser.close()
    except etree.XMLSyntaxError:
        return None
    return root


def find_area(root: etree._Element | None, path: str) -> etree._Element | None:
    """Return the element an analyzer node path names, None when the page has no such one."""
    if root is None or not path:
        return None
    steps = path.split("/")
    if steps[0] != root.tag:
        return None
    current = root
    for step in steps[1:]:
        name, _, rest = step.partition("[")
        nth = int(rest.rstrip("]") or 1) if rest else 1
        same = [child for child in current if child.tag == name]
        if len(same) < nth:
            return None
        current = same[nth - 1]
    return current


def _without_title(area: etree._Element, title: str) -> etree._Element:
    """Drop the area's first heading when it repeats the title the view shows above it."""
    wanted = " ".join(title.split()).casefold()
    for heading in area.iter("h1", "h2", "h3"):
        said = " ".join("".join(heading.itertext()).split()).casefold()
        if said and wanted.startswith(said):
            drop(heading)
        break
    return area


def drop(element: etree._Element) -> None:
    """Remove the element and its content, keeping the text that follows it."""
    parent = element.getparent()
    if parent is None:
        return
    tail, previous = element.tail, element.getprevious()
    parent.remove(element)
    if not tail:
        return
    if previous is not None:
        previous.tail = (previous.tail or "") + tail
    else:
        parent.text = (parent.text or "") + tail


def _fragment(markup: str) -> etree._Element:
    return fromstring(f"<div>{markup}</div>")


def _kept_text(clip: Clip) -> str:
    """Return the area's kept text as paragraphs, or the summary when nothing was kept."""
    version = clip.page_version
    kept = version.article_text() if version is not None else None
    text = ""
    if kept is not None:
        text = next((area.text for area in kept.areas if area.path == clip.area_path), "")
    paragraphs = [line.strip() for line in (text or clip.summary).split("\n") if line.strip()]
    return "".join(f"<p>{html.escape(line)}</p>" for line in paragraphs)


def _safe(area: etree._Element, base: str, words: list[str]) -> str:
    """Return the area as safe HTML: links absolute, headings one level down, words marked."""
    for old, new in _RENAMED.items():
        for element in area.iter(old):
            element.tag = new
    if base:
        _absolute_links(area, base)
    markup = nh3.clean(
        tostring(area, encoding="unicode", method="html"),
        tags=set(ALLOWED_TAGS),
        clean_content_tags={"script", "style", "template", "noscript", "iframe", "object"},
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
        set_tag_attribute_values=SET_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    if not words:
        return markup
    return _mark(markup, words)


def _absolute_links(area: etree._Element, base: str) -> None:
    """Make every link and image address absolute against the page's URL."""
    joined: dict[str, str] = {}
    for element in area.iter("a", "img"):
        name = "href" if element.tag == "a" else "src"
        value = (element.get(name) or "").strip()
        if not value:
            continue
        if value not in joined:
            try:
                joined[value] = urljoin(base, value)
            except ValueError:
                joined[value] = ""
        element.set(name, joined[value])


def _mark(markup: str, words: list[str]) -> str:
    """Wrap each occurrence of the words in the markup's text (never in a tag) in <mark>.

    In nh3's output text never holds "<" or ">" (they are escaped), so an occurrence is inside
    a tag exactly when the last "<" before it comes after the last ">". Case is ignored: each
    word is looked for with str.find in a lower-cased copy (a literal scan, many times faster
    than an ignore-case pattern) when lowering keeps every offset, as it does but for a few
    letters (Turkish dotted I); a whole-word pattern otherwise.
    """
    lowered = markup.lower()
    if len(lowered) != len(markup):
        alternatives = "|".join(map(re.escape, words))
        spans = [m.span() for m in re.finditer(rf"\b(?:{alternatives})\b", markup, re.I)]
    else:
        spans = sorted(span for word in words for span in _whole_words(lowered, word.lower()))
    pieces: list[str] = []
    done = 0
    for start, end in spans:
        if start < done or markup.rfind("<", 0, start) > markup.rfind(">", 0, start):
            continue  # overlapping a longer word already marked, or in a tag's attribute
        pieces.append(markup[done:start])
        pieces.append(f"<mark>{markup[start:end]}</mark>")
        done = end
    pieces.append(markup[done:])
    return "".join(pieces)


def _whole_words(text: str, word: str) -> list[tuple[int, int]]:
    """Return the spans where `word` stands in `text` as a whole word."""
    spans: list[tuple[int, int]] = []
    if not word:
        return spans
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not _word_char(before) and not _word_char(after):
            spans.append((start, end))
        start = text.find(word, start + 1)
    return spans


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def matched_words(summaries: Iterable[tuple[str, list]]) -> list[str]:
    """Return the words the person's matches found, read off their summaries' spans."""
    words: list[str] = []
    for summary, spans in summaries:
        for span in spans or []:
            found = summary[int(span[0]) : int(span[1])]
            if _WORD.search(found):
                words.append(found)
    return words
