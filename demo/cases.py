"""Three shapes of real sites the demo also serves, each a site of its own under its path.

- /mirror/: an encyclopedia mirror. Its articles (/mirror/wiki/<Title>) link on to each
  other, and each names its original on the public encyclopedia in rel=canonical, as an
  offline-encyclopedia server does.
- /library/: a script-built entry page. The page holds no link: its script reads the
  catalogue (/library/catalog.json), lists the books, and gives the page a new address (its
  filter settings) as an offline library's home page does. The book (/library/book/) lists
  its chapters.
- /db/: a database front end. Its home links the table; the table's page (/db/stories)
  lists the five newest rows and holds the only search form (`_search`, with a filter row
  and a sort, as a Datasette table page does); the other rows are linked from search
  results only.
"""

from __future__ import annotations

import json
from html import escape
from urllib.parse import quote, unquote

from demo.archive import KEYWORDS

MIRROR_TOWNS = [
    "Larnaca", "Tromsø", "Valencia", "Kraków", "Porto", "Gdańsk", "Bergen", "Bari",
    "Tallinn", "Split", "Cádiz", "Nantes",
]  # fmt: skip
CHAPTERS = 10
DB_KEYWORDS = KEYWORDS[:3]  # each names ROWS_PER_KEYWORD rows of the table
ROWS_PER_KEYWORD = 10
NOISE_ROWS = 30
SHOWN_ROWS = 5

LIBRARY_SHELL = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Library</title></head><body><h1>Library</h1><div id="books"></div>
<script>
  history.replaceState(null, "", "/library/?lang=eng");
  fetch("/library/catalog.json").then(r => r.json()).then(books => {
    const list = document.getElementById("books");
    for (const book of books) {
      const a = document.createElement("a");
      a.href = book.href; a.textContent = book.title;
      list.appendChild(a);
    }
  });
</script></body></html>"""

Answer = tuple[int, str, str]
HTML = "text/html; charset=utf-8"


def get(path: str, query: dict[str, list[str]]) -> Answer | None:
    """Answer a page of the three sites, or None when the path is none of theirs."""
    if path == "/mirror/":
        return 200, _page("Mirror", _links([("/mirror/wiki/Larnaca", "Larnaca")])), HTML
    if path.startswith("/mirror/wiki/"):
        return _mirror_article(unquote(path.removeprefix("/mirror/wiki/")))
    if path == "/library/":
        return 200, LIBRARY_SHELL, HTML
    if path == "/library/catalog.json":
        books = [{"href": "/library/book/", "title": "Harbour towns of the north"}]
        return 200, json.dumps(books), "application/json"
    if path == "/library/book/":
        chapters = [(f"/library/book/{n}/", f"Chapter {n}") for n in range(1, CHAPTERS + 1)]
        return 200, _page("Harbour towns of the north", _links(chapters)), HTML
    if path.startswith("/library/book/"):
        return _chapter(path.removeprefix("/library/book/").strip("/"))
    if path == "/db/":
        return 200, _page("Town records", _links([("/db/stories", "stories")])), HTML
    if path == "/db/stories":
        return 200, _table(query.get("_search", [""])[0]), HTML
    if path.startswith("/db/stories/"):
        return _row(path.removeprefix("/db/stories/"))
    return None


def mirror_paths() -> list[str]:
    """Return the paths of the mirror's articles."""
    return [f"/mirror/wiki/{quote(town)}" for town in MIRROR_TOWNS]  # as canonical URLs spell them


def library_paths() -> list[str]:
    """Return the paths of the library book's chapters."""
    return [f"/library/book/{n}/" for n in range(1, CHAPTERS + 1)]


def db_rows() -> dict[str, str]:
    """Return the table's rows, id -> title: ROWS_PER_KEYWORD per keyword, then noise."""
    rows = {}
    for k, keyword in enumerate(DB_KEYWORDS):
        for i in range(ROWS_PER_KEYWORD):
            rows[f"{k * 100 + i}"] = f"Council notes {i} on the {keyword}"
    for i in range(NOISE_ROWS):
        rows[f"{900 + i}"] = f"Council notes {i} on the museum opening hours"
    return rows


def db_paths(keyword: str) -> list[str]:
    """Return the paths of the rows that name `keyword`."""
    return [f"/db/stories/{r}" for r, title in db_rows().items() if keyword in title]


def _page(title: str, body: str, head: str = "") -> str:
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}'
        f"</title>{head}</head><body><h1>{escape(title)}</h1>{body}</body></html>"
    )


def _links(links: list[tuple[str, str]]) -> str:
    items = "".join(f'<li><a href="{href}">{escape(text)}</a></li>' for href, text in links)
    return f"<ul>{items}</ul>"


def _prose(subject: str) -> str:
    return "".join(
        f"<p>{escape(subject)} lies by the sea; its harbour, market and old town are described"
        f" here in part {i}, with its history and the people who live there.</p>"
        for i in range(5)
    )


def _mirror_article(title: str) -> Answer | None:
    if title not in MIRROR_TOWNS:
        return None
    at = MIRROR_TOWNS.index(title)
    onward = [(f"/mirror/wiki/{t}", t) for t in MIRROR_TOWNS[at + 1 : at + 3]]
    original = f'<link rel="canonical" href="https://en.wikipedia.org/wiki/{title}">'
    return 200, _page(title, _prose(title) + _links(onward), original), HTML


def _chapter(number: str) -> Answer | None:
    if not number.isdigit() or not 1 <= int(number) <= CHAPTERS:
        return None
    back = _links([("/library/book/", "Contents")])
    return 200, _page(f"Chapter {number}", _prose(f"Harbour town {number}") + back), HTML


def _table(search: str) -> str:
    rows = db_rows()
    words = search.lower().split()
    shown = (
        [r for r, title in rows.items() if all(w in title.lower() for w in words)]
        if words
        else list(rows)[-SHOWN_ROWS:]
    )
    form = (
        '<form class="core" action="/db/stories" method="get">'
        '<label for="_search">Search:</label> '
        f'<input id="_search" type="search" name="_search" value="{escape(search)}"> '
        '<div class="filter-row"><select name="_filter_column"><option value="">- column -'
        '</option><option>title</option></select> <select name="_filter_op">'
        '<option value="exact">=</option><option value="contains">contains</option></select> '
        '<input type="text" name="_filter_value" placeholder="value"></div> '
        '<label for="_sort">Sort by</label> <select id="_sort" name="_sort">'
        '<option value="id" selected>id</option><option value="title">title</option></select> '
        '<input type="submit" value="Apply"></form>'
    )
    listed = _links([(f"/db/stories/{r}", rows[r]) for r in shown])
    return _page("stories", f"<p>{len(rows)} rows</p>{form}{listed}")


def _row(row: str) -> Answer | None:
    title = db_rows().get(row)
    if title is None:
        return None
    return 200, _page(title, _prose(title) + _links([("/db/stories", "stories")])), HTML
