"""What a page says about itself in its head: the URL it declares canonical.

Read straight from the served bytes (the analyzer looks at the body's areas), so the run can
tell copies (print views, AMP pages, session URLs) from the pages they copy, and learn the
production host of a site served under another origin.
"""

from __future__ import annotations

import html as html_module
import re
from urllib.parse import urljoin

_HEAD_BYTES = 64 * 1024  # <link rel=canonical> belongs in the head
_LINK_TAG = re.compile(rb"<link\b[^>]*>", re.IGNORECASE)
_ATTR = re.compile(rb"""([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")


def declared_canonical(body: bytes, base_url: str) -> str | None:
    """Return the absolute URL of the page's <link rel="canonical">, None without one."""
    head = body[:_HEAD_BYTES]
    if b"canonical" not in head.lower():
        return None
    for tag in _LINK_TAG.findall(head):
        attrs = {m[0].lower(): (m[1] or m[2] or m[3]) for m in _ATTR.findall(tag)}
        if b"canonical" in attrs.get(b"rel", b"").lower().split():
            href = html_module.unescape(attrs.get(b"href", b"").decode("utf-8", "replace")).strip()
            return urljoin(base_url, href) if href else None
    return None
