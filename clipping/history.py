"""A page's change history as its follower sees it: the versions stored, and a diff of two.

A person may see the history of a page that made one of their clips, or of any page of a
site they follow. The crawler stores a new version only when the content changes; each
version's text is its visible text, one block (paragraph, heading, list item, cell) a line,
and two versions are compared line by line.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q, QuerySet

from analyzer.pipeline import read_input
from clipping.models import Match
from clipping.reader import drop, parse_stored
from crawler.models import Page, PageVersion

# Elements whose end ends a line of the version's text.
BLOCKS = frozenset(
    {
        *("p", "div", "li", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th"),
        *("pre", "blockquote", "section", "article", "header", "footer", "br", "hr", "title"),
        *("figcaption", "caption", "summary", "main", "aside", "nav", "ul", "ol", "table"),
    }
)
SILENT = ("script", "style", "noscript", "template", "svg", "head")
CONTEXT = 2  # unchanged lines shown around each change
MAX_LINES = 5000


def pages_of(user: object) -> QuerySet[Page]:
    """Return the pages whose history the user may read."""
    clipped = Match.objects.filter(owner=user, clip__page=OuterRef("pk"))
    return Page.objects.filter(Q(Exists(clipped)) | Q(site__subscribers=user)).distinct()


def versions_of(page: Page) -> QuerySet[PageVersion]:
    """Return the page's stored versions, newest first, without their bodies."""
    return page.versions.defer("body", "article", "analysis").order_by("-fetched_at", "-id")


def version_lines(version: PageVersion) -> list[str] | None:
    """Return the version's visible text, a block a line; None when its body was pruned."""
    body = version.raw_body()
    if body is None:
        return None
    text, _codec = read_input(body, version.encoding or None)
    root = parse_stored(text)
    if root is None:
        return []
    for element in list(root.iter(*SILENT)):
        drop(element)
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag in BLOCKS:
            element.tail = "\n" + (element.tail or "")
    lines = (" ".join(line.split()) for line in "".join(root.itertext()).split("\n"))
    return [line for line in lines if line][:MAX_LINES]


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "same", "added", "removed" or "gap" (unchanged lines not shown)
    text: str


def diff(old: list[str], new: list[str]) -> list[DiffLine]:
    """Return what changed from `old` to `new`, with CONTEXT unchanged lines around changes."""
    rows: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT):
        if rows:
            rows.append(DiffLine("gap", ""))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows.extend(DiffLine("same", line) for line in old[i1:i2])
                continue
            rows.extend(DiffLine("removed", line) for line in old[i1:i2])
            rows.extend(DiffLine("added", line) for line in new[j1:j2])
    return rows
