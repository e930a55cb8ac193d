"""Decide whether fetched HTML is a script shell that only a browser can fill in."""

from __future__ import annotations

import lxml.html
from lxml import etree

# Text inside these never shows as page text.
_INVISIBLE = ("script", "style", "noscript", "template")
DEFAULT_MIN_TEXT = 200  # characters of visible text below which a scripted page is a shell


def needs_rendering(html: str | bytes, *, min_text: int = DEFAULT_MIN_TEXT) -> bool:
    """Tell whether `html` has scripts and less than `min_text` characters of visible text."""
    if isinstance(html, str):
        # lxml refuses str input that carries an XML encoding declaration.
        html = html.encode("utf-8", "surrogatepass")
    if not html.strip():
        return False
    try:
        doc = lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return False
    if not doc.xpath("//script[@src or normalize-space()]"):
        return False
    body = doc.find("body")
    root = body if body is not None else doc
    etree.strip_elements(root, *_INVISIBLE, with_tail=False)
    text = " ".join(root.text_content().split())
    return len(text) < min_text
