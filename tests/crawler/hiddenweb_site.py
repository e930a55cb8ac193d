"""A local news site whose archive is reachable only through its search forms.

    with DeepWebSite(build_stories(150)) as site:
        site.url("/")                      # home: GET search, login, newsletter, 5 latest
        site.url("/search/advanced")       # advanced POST search laid out in a table
        site.posts("/newsletter")          # how many times the newsletter form was submitted

The GET search (/search?q=&section=&sort=) answers 10 results a page with sort links,
section facets, pages, related searches and a `ref` tracking argument on all of them; no
match gives a "no results" page. The advanced search takes `w`, `sec` and `order` by POST
(its further pages by GET). Every request is recorded with its method, path and body.
"""

from __future__ import annotations

import random
import re
import threading
from dataclasses import dataclass, field
from datetime import date, timedelta
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qsl, quote_plus, urlsplit

SECTIONS = {
    "world": "World",
    "politics": "Politics",
    "science": "Science",
    "sports": "Sports",
    "culture": "Culture",
}
TOPICS = {
    "world": ["border", "summit", "earthquake", "refugee", "embassy"],
    "politics": ["election", "parliament", "tariff", "budget", "senator"],
    "science": ["climate", "vaccine", "telescope", "genome", "glacier"],
    "sports": ["football", "marathon", "cycling", "tennis", "stadium"],
    "culture": ["orchestra", "museum", "novel", "cinema", "festival"],
}
PLACES = ["Lisbon", "Oslo", "Nairobi", "Quito", "Hanoi", "Tbilisi", "Perth", "Dakar"]
FILLER = [
    "Officials said the plans would be reviewed again before the end of the month.",
    "Residents gathered near the town hall to hear what would change for them.",
    "The report, published on Monday, runs to more than two hundred pages.",
    "Critics argued that the timetable left too little room for public comment.",
    "Local businesses welcomed the decision but asked for clearer guidance.",
    "A spokesperson declined to give further details while talks continue.",
]
PAGE_SIZE = 10
STOP = frozenset({"the", "a", "of", "in", "and", "to", "for", "on", "new", "over", "after"})


@dataclass(frozen=True)
class Story:
    """One archived article."""

    slug: str
    title: str
    section: str
    published: date
    paragraphs: tuple[str, ...]

    @property
    def path(self) -> str:
        return f"/articles/{self.slug}"

    @property
    def words(self) -> list[str]:
        return re.findall(r"[a-z0-9]+", f"{self.title} {' '.join(self.paragraphs)}".lower())

    def mentions(self, term: str) -> bool:
        """Tell whether the story contains the word `term` (or its plural)."""
        words = set(self.words)
        return term.lower() in words or f"{term.lower()}s" in words


def build_stories(count: int = 150, seed: int = 7) -> list[Story]:
    """Return `count` deterministic stories spread over the sections, newest first."""
    rng = random.Random(seed)
    stories = []
    start = date(2031, 1, 1)
    for index in range(count):
        section = list(SECTIONS)[index % len(SECTIONS)]
        own = rng.sample(TOPICS[section], 2)
        other = rng.choice(TOPICS[rng.choice([s for s in SECTIONS if s != section])])
        place = rng.choice(PLACES)
        title = f"{own[0].capitalize()} talks in {place} turn to the {own[1]}"
        paragraphs = (
            f"In {place}, the debate over the {own[0]} took a new turn this week as "
            f"delegates met to discuss the {own[1]} and what it means for the region.",
            f"{rng.choice(FILLER)} Observers linked the {own[0]} to the wider question "
            f"of the {other}, which has divided opinion for years.",
            f"{rng.choice(FILLER)} {rng.choice(FILLER)}",
            f"Story number {index} in the archive closes with a look at the next steps "
            f"for the {own[1]} and the people of {place}.",
        )
        stories.append(
            Story(
                slug=f"{index:04d}-{own[0]}-{place.lower()}",
                title=title,
                section=section,
                published=start + timedelta(days=index),
                paragraphs=paragraphs,
            )
        )
    return sorted(stories, key=lambda s: s.published, reverse=True)


@dataclass(frozen=True)
class Request:
    """One request the site received."""

    method: str
    path: str
    query: str
    body: str = ""


@dataclass
class SiteState:
    stories: list[Story]
    visible: int
    js_token: bool
    extra_home: str = ""  # more markup for the home page's sidebar (more forms)
    robots: str = ""  # /robots.txt when set (else 404: everything allowed)
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class LocalSite:
    """A threaded HTTP server on 127.0.0.1, started and stopped by `with`.

    Its handler class reads this object as `self.server.site`; a subclass sets what the
    handler needs before calling `__init__`. The real blog's bench server is one too.
    """

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._server.site = self  # type: ignore[attr-defined]
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"


class PageHandler(BaseHTTPRequestHandler):
    """Answer whole pages with a Content-Length over kept-alive connections, quietly."""

    protocol_version = "HTTP/1.1"

    def _send(
        self, body: str | bytes, status: int = 200, kind: str = "text/html; charset=utf-8"
    ) -> None:
        payload = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return


class DeepWebSite(LocalSite):
    """Serve the archive on 127.0.0.1 in a background thread."""

    def __init__(
        self,
        stories: list[Story] | None = None,
        *,
        visible: int = 5,
        js_token: bool = False,
        extra_home: str = "",
        robots: str = "",
    ) -> None:
        stories = stories if stories is not None else build_stories()
        self.state = SiteState(stories, visible, js_token, extra_home, robots)
        super().__init__(_Handler)

    @property
    def requests(self) -> list[Request]:
        with self.state.lock:
            return list(self.state.requests)

    def posts(self, path: str) -> int:
        """Return how many POST requests `path` received."""
        return sum(1 for r in self.requests if r.method == "POST" and r.path == path)

    def hits(self, path: str) -> int:
        """Return how many requests (any method) `path` received."""
        return sum(1 for r in self.requests if r.path == path)

    @property
    def stories(self) -> list[Story]:
        return self.state.stories

    def hidden(self) -> list[Story]:
        """Return the stories no page links to: only a search reaches them."""
        return self.state.stories[self.state.visible :]

    def matching(self, terms: list[str]) -> list[Story]:
        """Return the hidden stories that mention any of `terms`."""
        return [s for s in self.hidden() if any(s.mentions(t) for t in terms)]


# --- Pages -----------------------------------------------------------------------------------


def layout(title: str, body: str, query: str = "") -> str:
    options = "".join(f'<option value="{key}">{name}</option>' for key, name in SECTIONS.items())
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)} | The Archive Times</title></head>
<body>
<header><a href="/" class="logo">The Archive Times</a>
<nav><ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li>
<li><a href="/contact">Contact</a></li><li><a href="/search/advanced">Advanced search</a></li></ul></nav>
<form class="site-search" role="search" action="/search" method="get">
<label for="q">Search</label> <input id="q" name="q" type="search" value="{escape(query)}">
<label for="section">in</label> <select id="section" name="section"><option value="all" selected>All sections</option>{options}</select>
<label for="sort">Sort by</label> <select id="sort" name="sort"><option value="relevance">Relevance</option><option value="newest">Newest</option><option value="oldest">Oldest</option></select>
<button type="submit">Search</button></form>
</header>
<main>{body}</main>
<footer><p>The Archive Times. Every story since 2031.</p><p><a href="/about">About us</a></p></footer>
</body></html>"""


def home(state: SiteState) -> str:
    latest = "".join(
        f'<li><h2><a href="{s.path}">{escape(s.title)}</a></h2><p>{escape(s.paragraphs[0][:120])}</p></li>'
        for s in state.stories[: state.visible]
    )
    return layout(
        "Home",
        f"""<section class="latest"><h1>Latest stories</h1><ul>{latest}</ul></section>
<aside>
<h2>Member login</h2>
<form class="login" action="/account/login" method="post">
<label for="user">Username</label> <input id="user" name="username">
<label for="pw">Password</label> <input id="pw" name="password" type="password">
<button type="submit">Log in</button></form>
<h2>Our newsletter</h2>
<form class="newsletter" action="/newsletter" method="post">
<input name="email" type="email" placeholder="Your e-mail address">
<button type="submit">Subscribe</button></form>
{state.extra_home}
</aside>""",
    )


def advanced_form(state: SiteState) -> str:
    options = "".join(f'<option value="{k}">{n}</option>' for k, n in SECTIONS.items())
    token = ""
    if state.js_token:
        # The server wants a token only the page's script writes: a browser is needed.
        token = (
            '<input type="hidden" name="token" value="">'
            "<script>document.forms[1].elements.token.value = 'js-' + (6 * 7);</script>"
        )
    return layout(
        "Advanced search",
        f"""<h1>Advanced search</h1>
<form action="/search/advanced" method="post">{token}
<table class="advanced">
<tr><td>Words</td><td><input name="w" size="30"></td></tr>
<tr><td>Section</td><td><select name="sec"><option value="any">Any section</option>{options}</select></td></tr>
<tr><td>Order</td><td><select name="order"><option value="best">Best match</option><option value="date">Date</option></select></td></tr>
<tr><td></td><td><input type="submit" value="Find articles"></td></tr>
</table></form>""",
    )


def article(story: Story) -> str:
    paragraphs = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs)
    return layout(
        story.title,
        f"""<article><h1>{escape(story.title)}</h1>
<p class="byline">{SECTIONS[story.section]} · <time datetime="{story.published.isoformat()}">{story.published:%d %B %Y}</time></p>
{paragraphs}</article>""",
    )


def search(state: SiteState, query: str, section: str, sort: str) -> list[Story]:
    """Return the stories whose words start with every query word, in the asked order."""
    wanted = re.findall(r"[a-z0-9]+", query.lower())
    if not wanted:
        return []
    found = []
    for story in state.stories:
        words = story.words
        if section not in {"", "all", "any"} and story.section != section:
            continue
        if all(any(w.startswith(q) for w in words) for q in wanted):
            score = sum(1 for w in words for q in wanted if w.startswith(q))
            found.append((score, story))
    if sort in {"newest", "date"}:
        found.sort(key=lambda item: item[1].published, reverse=True)
    elif sort == "oldest":
        found.sort(key=lambda item: item[1].published)
    else:
        found.sort(key=lambda item: (-item[0], -item[1].published.toordinal()))
    return [story for _, story in found]


def results_page(
    stories: list[Story], query: str, page: int, link: Any, *, facets: dict[str, int]
) -> str:
    """Return a result page; `link(**changes)` builds this search's URL with some changes."""
    if not stories:
        return layout(
            "No results",
            f'<h1>Search</h1><p class="empty">Sorry, no articles match “{escape(query)}”. '
            "Check the spelling or try fewer words.</p>",
            query,
        )
    pages = (len(stories) + PAGE_SIZE - 1) // PAGE_SIZE
    shown = stories[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    items = "".join(
        f'<li><h2><a href="{s.path}">{escape(s.title)}</a></h2><p>{escape(s.paragraphs[0][:160])}…</p></li>'
        for s in shown
    )
    sorts = " | ".join(
        f'<a href="{escape(link(sort=key, page=None, ref="sort"))}">{name}</a>'
        for key, name in (("relevance", "Relevance"), ("newest", "Newest"), ("oldest", "Oldest"))
    )
    facet_links = "".join(
        f'<li><a href="{escape(link(section=key, page=None, ref="facet"))}">{SECTIONS[key]} ({count})</a></li>'
        for key, count in facets.items()
    )
    pager = " ".join(
        f'<a href="{escape(link(page=n, ref="pager"))}">{n}</a>' for n in range(1, pages + 1)
    )
    if page < pages:
        pager += f' <a rel="next" href="{escape(link(page=page + 1, ref="pager"))}">Next</a>'
    related = "".join(
        f'<li><a href="/search?q={quote_plus(word)}&amp;ref=related">{escape(word)}</a></li>'
        for word in related_words(stories, query)
    )
    return layout(
        f"{query} - search",
        f"""<h1>Search results</h1><p class="count">{len(stories)} results for “{escape(query)}”</p>
<p class="sort">Sort by: {sorts}</p>
<ul class="facets">{facet_links}</ul>
<ol class="results">{items}</ol>
<nav class="pager">Pages: {pager}</nav>
<aside class="related"><h2>Related searches</h2><ul>{related}</ul></aside>""",
        query,
    )


def related_words(stories: list[Story], query: str, count: int = 3) -> list[str]:
    """Return the commonest title words of the results that are not the query."""
    asked = set(re.findall(r"[a-z0-9]+", query.lower()))
    tally: dict[str, int] = {}
    for story in stories:
        for word in re.findall(r"[a-z]+", story.title.lower()):
            if word not in STOP and word not in asked and len(word) > 3 and word != "talks":
                tally[word] = tally.get(word, 0) + 1
    return [w for w, _ in sorted(tally.items(), key=lambda item: (-item[1], item[0]))[:count]]


def facet_counts(state: SiteState, query: str, sort: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for story in search(state, query, "all", sort):
        counts[story.section] = counts.get(story.section, 0) + 1
    return counts


def _page_number(value: str) -> int:
    return int(value) if value.isdigit() and 0 < int(value) < 1000 else 1


def get_results(state: SiteState, params: dict[str, str]) -> str:
    query = params.get("q", "")
    section = params.get("section", "all")
    sort = params.get("sort", "relevance")
    page = _page_number(params.get("page", "1"))

    def link(**changes: Any) -> str:
        values = {"q": query, "section": section, "sort": sort, "page": page, **changes}
        return "/search?" + "&".join(
            f"{k}={quote_plus(str(v))}" for k, v in values.items() if v not in (None, "")
        )

    stories = search(state, query, section, sort)
    return results_page(
        stories, query, page, link, facets=facet_counts(state, query, sort) if stories else {}
    )


def advanced_results(state: SiteState, params: dict[str, str]) -> str:
    query = params.get("w", "")
    section = params.get("sec", "any")
    order = params.get("order", "best")
    page = _page_number(params.get("page", "1"))

    def link(**changes: Any) -> str:
        values = {"w": query, "sec": section, "order": order, "page": page}
        renamed = {"section": "sec", "sort": "order"}
        for key, value in changes.items():
            if key in renamed:
                values[renamed[key]] = value
            elif key == "page":
                values["page"] = value
        return "/search/advanced?" + "&".join(
            f"{k}={quote_plus(str(v))}" for k, v in values.items() if v not in (None, "")
        )

    stories = search(state, query, section, order)
    return results_page(stories, query, page, link, facets={})


# --- HTTP --------------------------------------------------------------------------------------


class _Handler(PageHandler):
    @property
    def state(self) -> SiteState:
        return self.server.site.state  # type: ignore[attr-defined]

    def _record(self, method: str, body: str = "") -> tuple[str, dict[str, str]]:
        parts = urlsplit(self.path)
        with self.state.lock:
            self.state.requests.append(Request(method, parts.path, parts.query, body))
        return parts.path, dict(parse_qsl(parts.query, keep_blank_values=True))

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        path, params = self._record("GET")
        state = self.state
        stories = {s.path: s for s in state.stories}
        if path == "/":
            self._send(home(state))
        elif path == "/robots.txt" and state.robots:
            self._send(state.robots, kind="text/plain")
        elif path == "/search":
            self._send(get_results(state, params))
        elif path == "/search/advanced":
            if "w" in params:
                self._send(advanced_results(state, params))
            else:
                self._send(advanced_form(state))
        elif path in stories:
            self._send(article(stories[path]))
        elif path in {"/about", "/contact"}:
            self._send(
                layout(path[1:].title(), f"<h1>{path[1:].title()}</h1><p>A local test site.</p>")
            )
        else:
            self._send("not found", 404, "text/plain")

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        path, _ = self._record("POST", body)
        params = dict(parse_qsl(body, keep_blank_values=True))
        if path == "/search/advanced":
            if self.state.js_token and params.get("token") != "js-42":
                self._send("missing token", 403, "text/plain")
            else:
                self._send(advanced_results(self.state, params))
        elif path != "/search":
            self._send(layout("Thanks", "<p>Thank you.</p>"))
        else:
            self._send("not found", 404, "text/plain")
