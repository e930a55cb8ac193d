"""The demo's archive: stories reachable only through the site's search forms.

Two collections, linked from nowhere but their search results:

- the story archive (/archive/story/<slug>/), searched by GET at /archive/search?q=&page=:
  words match whole and as written (no stemming: "wildfire" does not find "wildfires"),
  every word must occur, and a "quoted phrase" must occur as written; 4 results a page
  with page numbers and a "Next" link;
- the reports (/reports/<slug>/), searched only by the advanced search at /archive/advanced:
  a POST form laid out in a table, its labels in the cells beside opaque field names
  (f1 "All of these words", f2 "Exact phrase", f3 "Section", f4 "Published after"). Its
  search stems its own way (a word matches every word it begins: "strike" finds
  "strikes"), reads quotes as characters (a quoted word matches nothing), answers 3
  results a page, and its further pages are POST forms with a "Next" button.

Result links carry where they were clicked (`?ref=search-2-3`); every story names its clean
URL in rel=canonical. The archive page also has a login form and a newsletter form: `WRITES` counts what is
posted to them (a crawler must never).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from urllib.parse import quote_plus

# What the demo's users follow, as they typed it (the benchmarks' keyword lists).
KEYWORDS = [
    "solar subsidies",
    "rail strike",
    "Zelmora",
    "wildfire",
    "drought",
    "heat pumps",
    "tram line",
    "interest rates",
    "wind farm",
    "olive harvest",
    "car sharing",
]
# Another form of each keyword (what the site's search does not find for the keyword).
INFLECTED = {
    "solar subsidies": "solar subsidy",
    "rail strike": "rail strikes",
    "Zelmora": "Zelmora",
    "wildfire": "wildfires",
    "drought": "droughts",
    "heat pumps": "heat pump",
    "tram line": "tram lines",
    "interest rates": "interest rate",
    "wind farm": "wind farms",
    "olive harvest": "olive harvests",
    "car sharing": "car sharing",
}
PLACES = ["Larnaca", "Tromsø", "Valencia", "Kraków", "Porto", "Gdańsk", "Bergen", "Bari"]
SECTIONS = {"all": "Any section", "energy": "Energy", "transport": "Transport", "world": "World"}
FILLER = [
    "Officials said the plans would be reviewed again before the end of the month.",
    "Residents gathered near the town hall to hear what would change for them.",
    "The report, published on a Monday, runs to more than two hundred pages.",
    "Local businesses welcomed the decision but asked for clearer guidance.",
    "A spokesperson declined to give further details while talks continue.",
]
NOISE_TOPICS = ["museum", "harbour", "bridge", "library", "festival", "stadium", "orchard"]
ARCHIVE_PAGE = 4
REPORTS_PAGE = 3
REPORTS_PER_KEYWORD = 4
WRITES: dict[str, int] = {"/account/login": 0, "/newsletter": 0}
Layout = Callable[..., str]  # the site's page around a title, a body (and its canonical URL)


@dataclass(frozen=True)
class Story:
    """One archived story or report."""

    slug: str
    title: str
    section: str
    year: int
    paragraphs: tuple[str, ...]
    kind: str  # "archive" or "report"

    @property
    def url(self) -> str:
        return (
            f"/archive/story/{self.slug}/" if self.kind == "archive" else f"/reports/{self.slug}/"
        )

    @property
    def text(self) -> str:
        return " ".join((self.title, *self.paragraphs))


def _section(keyword: str) -> str:
    if keyword in {"rail strike", "tram line", "car sharing"}:
        return "transport"
    if keyword in {"solar subsidies", "heat pumps", "wind farm", "interest rates"}:
        return "energy"
    return "world"


def _story(
    rng: random.Random, kind: str, number: int, title: str, lead: str, section: str
) -> Story:
    place = rng.choice(PLACES)
    paragraphs = (f"{lead} in {place}.", *rng.sample(FILLER, 2))
    slug = f"{number:03d}-" + re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return Story(slug, title, section, 1990 + number % 30, paragraphs, kind)


def build_archive() -> list[Story]:
    """Return every archived story and report, deterministic."""
    rng = random.Random(11)
    stories: list[Story] = []
    number = 0
    for keyword in KEYWORDS:
        section = _section(keyword)
        forms = [keyword] * 6 + [INFLECTED[keyword]] * 2
        for index, form in enumerate(forms):
            number += 1
            title = f"Archive {index + 1}: {form.capitalize()} in the news"
            lead = f"Reporters looked back at the {form} story"
            stories.append(_story(rng, "archive", number, title, lead, section))
        words = keyword.split()
        if len(words) > 1:  # the words apart: no phrase, found only by an unquoted search
            number += 1
            lead = f"A {words[-1]} was noted near the {words[0]} depot"
            stories.append(
                _story(rng, "archive", number, f"Notes from the {words[0]} depot", lead, section)
            )
        for index in range(REPORTS_PER_KEYWORD):
            number += 1
            title = f"Report {index + 1} on {keyword}"
            lead = f"The yearly report covered {keyword}"
            stories.append(_story(rng, "report", number, title, lead, section))
    for topic in NOISE_TOPICS:
        for index in range(3):
            number += 1
            lead = f"The {topic} reopened after repairs"
            stories.append(
                _story(rng, "archive", number, f"The {topic}, year {index + 1}", lead, "world")
            )
    return stories


ARCHIVE = build_archive()


# --- The searches ------------------------------------------------------------------------------

_TOKEN = re.compile(r"[\w']+")


def _words(text: str) -> list[str]:
    return [w.lower() for w in _TOKEN.findall(text)]


def archive_search(query: str) -> list[Story]:
    """Search the story archive: whole words as written, "quoted phrases" as written."""
    phrases = re.findall(r'"([^"]+)"', query)
    loose = _words(re.sub(r'"[^"]*"', " ", query))
    if not phrases and not loose:
        return []
    found = []
    for story in ARCHIVE:
        if story.kind != "archive":
            continue
        words = _words(story.text)
        joined = " " + " ".join(words) + " "
        if all(w in words for w in loose) and all(
            f" {' '.join(_words(p))} " in joined for p in phrases
        ):
            found.append(story)
    return found


def reports_search(all_words: str, phrase: str, section: str, after: str) -> list[Story]:
    """Search the reports: a word matches words it begins; quotes are characters."""
    wanted = [w.lower() for w in all_words.split()]
    exact = " ".join(_words(phrase))
    if not wanted and not exact:
        return []
    year = int(after) if after.strip().isdigit() else 0
    found = []
    for story in ARCHIVE:
        if story.kind != "report" or story.year < year:
            continue
        if section not in {"", "all"} and story.section != section:
            continue
        words = _words(story.text)
        if not all(any(w.startswith(want) for w in words) for want in wanted):
            continue
        if exact and f" {exact} " not in " " + " ".join(words) + " ":
            continue
        found.append(story)
    return found


# --- Pages ---------------------------------------------------------------------------------------


Layout = Callable[..., str]  # the site's page around a title, a body (and its canonical URL)


def archive_home(layout: Layout) -> str:
    body = """<h1>The archive</h1>
<p>Thirty years of stories. Search them by word, or "an exact phrase" in quotes.</p>
<form class="archive-search" action="/archive/search" method="get">
<label for="aq">Search the archive</label> <input id="aq" name="q" type="search">
<button type="submit">Search</button></form>
<p><a href="/archive/advanced">Advanced search</a> for the yearly reports.</p>
<aside class="account"><h2>Your account</h2>
<form action="/account/login" method="post"><label>User <input name="user"></label>
<label>Password <input name="pw" type="password"></label><button>Log in</button></form>
<h2>Newsletter</h2><form action="/newsletter" method="post">
<label>Email <input name="address" type="email"></label><button>Subscribe</button></form></aside>"""
    return layout("Archive", body)


def archive_results(query: str, page: int, layout: Layout) -> str:
    hits = archive_search(query)
    if not hits:
        body = f'<h1>Archive search</h1><p class="none">Nothing in the archive matches “{escape(query)}”.</p>'
        return layout("Archive search", body)
    pages = (len(hits) + ARCHIVE_PAGE - 1) // ARCHIVE_PAGE
    page = min(max(page, 1), pages)
    chunk = hits[(page - 1) * ARCHIVE_PAGE : page * ARCHIVE_PAGE]
    # Result links say where they were clicked (page and rank), as on many news sites.
    items = "".join(
        f'<li><h3><a href="{s.url}?ref=search-{page}-{rank}">{escape(s.title)}</a></h3>'
        f"<p>{escape(s.paragraphs[0])}</p></li>"
        for rank, s in enumerate(chunk, 1)
    )
    link = f"/archive/search?q={quote_plus(query)}&amp;page="
    pager = " ".join(
        f"<b>{n}</b>" if n == page else f'<a href="{link}{n}">{n}</a>' for n in range(1, pages + 1)
    )
    if page < pages:
        pager += f' <a rel="next" href="{link}{page + 1}">Next</a>'
    body = (
        f"<h1>{len(hits)} results for “{escape(query)}”</h1>"
        f'<ol class="results">{items}</ol><nav class="pager">{pager}</nav>'
    )
    return layout("Archive search", body)


def advanced_page(layout: Layout) -> str:
    options = "".join(f'<option value="{k}">{escape(v)}</option>' for k, v in SECTIONS.items())
    body = f"""<h1>Advanced search</h1>
<p>Search the yearly reports.</p>
<form action="/archive/advanced/results" method="post"><table class="advanced">
<tr><td>All of these words</td><td><input name="f1" size="30"></td></tr>
<tr><td>Exact phrase</td><td><input name="f2" size="30"></td></tr>
<tr><td>Section</td><td><select name="f3">{options}</select></td></tr>
<tr><td>Published after</td><td><input name="f4" size="4"></td></tr>
<tr><td></td><td><input type="submit" value="Go"></td></tr>
</table><input type="hidden" name="pg" value="1"></form>"""
    return layout("Advanced search", body)


def reports_results(fields: dict[str, str], layout: Layout) -> str:
    hits = reports_search(
        fields.get("f1", ""), fields.get("f2", ""), fields.get("f3", ""), fields.get("f4", "")
    )
    if not hits:
        return layout("Reports", '<h1>Reports</h1><p class="none">No report matches.</p>')
    pages = (len(hits) + REPORTS_PAGE - 1) // REPORTS_PAGE
    page = int(fields.get("pg", "1")) if fields.get("pg", "1").isdigit() else 1
    page = min(max(page, 1), pages)
    chunk = hits[(page - 1) * REPORTS_PAGE : page * REPORTS_PAGE]
    items = "".join(
        f'<tr><td><a href="{s.url}">{escape(s.title)}</a></td><td>{s.year}</td></tr>' for s in chunk
    )
    pager = ""
    if page < pages:
        kept = "".join(
            f'<input type="hidden" name="{n}" value="{escape(fields.get(n, ""))}">'
            for n in ("f1", "f2", "f3", "f4")
        )
        pager = (
            f'<form action="/archive/advanced/results" method="post">{kept}'
            f'<input type="hidden" name="pg" value="{page + 1}"><button>Next</button></form>'
        )
    body = f"<h1>Reports: page {page} of {pages}</h1><table>{items}</table>{pager}"
    return layout("Reports", body)


def story_page(story: Story, layout: Layout) -> str:
    paragraphs = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs)
    body = f"<article><h1>{escape(story.title)}</h1><p class='byline'>{story.year}</p>{paragraphs}</article>"
    return layout(story.title, body, canonical=story.url)  # type: ignore[call-arg]


def get(path: str, query: dict[str, list[str]], layout: Layout) -> tuple[int, str] | None:
    """Answer a GET of the archive in the site's `layout`, None for paths it does not serve."""
    if path == "/archive/":
        return 200, archive_home(layout)
    if path == "/archive/search":
        page = query.get("page", ["1"])[0]
        number = int(page) if page.isdigit() else 1
        return 200, archive_results(query.get("q", [""])[0], number, layout)
    if path == "/archive/advanced":
        return 200, advanced_page(layout)
    if path.startswith(("/archive/story/", "/reports/")):
        slug = path.strip("/").split("/")[-1]
        for story in ARCHIVE:
            if story.slug == slug and story.url == path:
                return 200, story_page(story, layout)
        return 404, layout("Not found", "<h1>Not found</h1>")
    return None


def post(path: str, fields: dict[str, str], layout: Layout) -> tuple[int, str] | None:
    """Answer a POST to the archive in the site's `layout`, None for paths it does not serve."""
    if path == "/archive/advanced/results":
        return 200, reports_results(fields, layout)
    if path in WRITES:
        WRITES[path] += 1
        return 200, layout("Thanks", "<h1>Thank you</h1>")
    return None
