"""The shared real blog (../shared/eval/sites/andreagrandi) served on 127.0.0.1 with its search.

The dump is a Hugo site whose search is JavaScript only (the Stack theme's search.ts reads
/search/index.json, left out of the dump, and fills the /search/ page in the browser). To
measure what the papers measure on a search engine nobody here wrote, the server answers
/search/?keyword= the way that script renders it into the real /search/ page: every word is
looked for, case-insensitively, in each post's title and text; the list is sorted by the
number of matches; each result is an <article> with the title and a preview around the
first match, under the theme's title "N pages (S seconds)". Everything else is the dump's
own bytes.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from lxml import html as lxml_html

from tests.crawler.hiddenweb_site import LocalSite, PageHandler

ROOT = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "sites" / "andreagrandi"
_TYPES = {".html": "text/html; charset=utf-8", ".xml": "application/xml", ".txt": "text/plain",
          ".css": "text/css"}  # fmt: skip


@dataclass(frozen=True)
class Post:
    path: str
    title: str
    text: str


def load_posts(root: Path = ROOT) -> list[Post]:
    """Return the blog's posts: path, title and article text, read from the dump."""
    posts = []
    for page in sorted((root / "posts").glob("*/index.html")):
        doc = lxml_html.fromstring(page.read_bytes())
        titles = doc.xpath("//h2[contains(@class,'article-title')]")
        bodies = doc.xpath("//section[contains(@class,'article-content')]")
        title = titles[0].text_content().strip() if titles else page.parent.name
        for junk in doc.xpath("//section[contains(@class,'article-content')]//style"):
            junk.drop_tree()
        text = " ".join(bodies[0].text_content().split()) if bodies else ""
        posts.append(Post(f"/posts/{page.parent.name}/", title, text))
    return posts


class RealBlog(LocalSite):
    """Serve the dump, with the theme's search answered on the server, in a thread."""

    def __init__(self, root: Path = ROOT) -> None:
        self.root = root
        self.requests: list[str] = []
        super().__init__(_Handler)

    @cached_property
    def posts(self) -> list[Post]:
        return load_posts(self.root)

    @cached_property
    def search_page(self) -> str:
        return (self.root / "search" / "index.html").read_text(encoding="utf-8")

    def search(self, query: str) -> list[Post]:
        """Return the posts the theme's script lists for `query`, most matches first."""
        words = [re.escape(w) for w in query.split() if w]
        if not words:
            return []
        pattern = re.compile("|".join(words), re.IGNORECASE)
        scored = []
        for post in self.posts:
            count = len(pattern.findall(post.title)) + len(pattern.findall(post.text))
            if count:
                scored.append((-count, post.path, post))
        return [post for _, _, post in sorted(scored)]

    def results_html(self, query: str) -> str:
        """Return the /search/ page as the theme's script leaves it after searching."""
        found = self.search(query)
        words = [re.escape(w) for w in query.split() if w]
        items = "".join(
            f'<article><a href="{post.path}"><div class="article-details">'
            f'<h2 class="article-title">{html.escape(post.title)}</h2>'
            f'<section class="article-preview">{_preview(post.text, words)}</section>'
            "</div></a></article>"
            for post in found
        )
        title = f"{len(found)} pages (0.{len(query) % 9 + 1:03d} seconds)"
        page = self.search_page.replace(
            '<h3 class="search-result--title section-title"></h3>',
            f'<h3 class="search-result--title section-title">{title}</h3>',
        )
        page = page.replace(
            '<div class="search-result--list article-list--compact"></div>',
            f'<div class="search-result--list article-list--compact">{items}</div>',
        )
        value = html.escape(query, quote=True)
        return page.replace('<input name="keyword"', f'<input name="keyword" value="{value}"', 1)


def _preview(text: str, words: list[str]) -> str:
    """Return about 140 characters around the first match, matches marked as the theme does."""
    match = re.search("|".join(words), text, re.IGNORECASE) if words else None
    start = max(0, match.start() - 40) if match else 0
    piece = html.escape(text[start : start + 140])
    if words:
        piece = re.sub(f"({'|'.join(words)})", r"<mark>\1</mark>", piece, flags=re.IGNORECASE)
    return piece


class _Handler(PageHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        blog: RealBlog = self.server.site  # type: ignore[attr-defined]
        parts = urlsplit(self.path)
        blog.requests.append(self.path)
        query = parse_qs(parts.query).get("keyword", [""])[0]
        if parts.path == "/search/" and query.strip():
            self._send(blog.results_html(query))
            return
        path = unquote(parts.path)
        target = (blog.root / path.lstrip("/")).resolve()
        if target.is_dir():
            target = target / "index.html"
        if blog.root.resolve() not in target.parents or not target.is_file():
            self._send((blog.root / "404.html").read_bytes(), 404)
            return
        kind = _TYPES.get(target.suffix, "application/octet-stream")
        self._send(target.read_bytes(), kind=kind)
