"""The demo's live desks: sections whose menu items and story lists exist only through scripts.

- /static/live.js adds "Climate desk" and "Markets live" to every page's menu;
- /live/climate/ shows an empty list and a "Load more" button; the list and each further
  page come from the JSON API /api/live/climate?page=N (4 stories a page);
- /live/markets/ is an infinite list: a script loads /api/live/markets?page=N each time a
  sentinel below the list scrolls into view;
- the stories themselves (/live/story/<slug>/) are plain HTML, linked from nowhere else.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from html import escape

DESKS = {"climate": "Climate desk", "markets": "Markets live"}
Layout = Callable[[str, str], str]  # the site's page around a title and a body
PAGE_SIZE = 4
PER_DESK = 14
TOPICS = {
    "climate": ["wildfire", "drought", "heat pumps", "glacier melt", "flood defences", "wind farm"],
    "markets": ["interest rates", "bond yields", "solar subsidies", "rail strike", "copper prices"],
}
LINES = [
    "Analysts said the figures would be revised again next week.",
    "The desk will keep this story updated as new numbers arrive.",
    "Several readers wrote in with questions, answered below.",
    "Officials promised a fuller statement on Friday.",
]

MENU_JS = """\
document.addEventListener("DOMContentLoaded", function () {
  var menu = document.getElementById("more-menu");
  if (!menu) return;
  [["Climate desk", "/live/climate/"], ["Markets live", "/live/markets/"]].forEach(function (item) {
    var a = document.createElement("a");
    a.href = item[1];
    a.textContent = item[0];
    menu.appendChild(a);
  });
});
"""

LIST_JS = """\
(function () {
  var list = document.getElementById("live-list");
  var api = list.getAttribute("data-api");
  var page = 0, busy = false, done = false;
  function more() {
    if (busy || done) return;
    busy = true;
    fetch(api + "?page=" + (page + 1)).then(function (r) { return r.json(); }).then(function (data) {
      page += 1;
      data.items.forEach(function (item) {
        var li = document.createElement("li");
        li.innerHTML = '<h3><a></a></h3><p></p>';
        li.querySelector("a").href = item.url;
        li.querySelector("a").textContent = item.title;
        li.querySelector("p").textContent = item.summary;
        list.appendChild(li);
      });
      done = !data.next;
      var button = document.getElementById("load-more");
      if (done && button) button.remove();
      busy = false;
    });
  }
  var button = document.getElementById("load-more");
  if (button) {
    button.addEventListener("click", more);
  } else {
    var sentinel = document.getElementById("sentinel");
    new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; })) more();
    }).observe(sentinel);
  }
  more();
})();
"""


@dataclass(frozen=True)
class LiveStory:
    """One story of a live desk."""

    desk: str
    slug: str
    title: str
    paragraphs: tuple[str, ...]

    @property
    def url(self) -> str:
        return f"/live/story/{self.slug}/"


def build_stories() -> list[LiveStory]:
    """Return every live story, newest first per desk, deterministic."""
    rng = random.Random(5)
    stories = []
    for desk, topics in TOPICS.items():
        for index in range(PER_DESK):
            topic = topics[index % len(topics)]
            title = f"{DESKS[desk]}: {topic} update {index + 1}"
            lead = f"The latest on {topic}, as the {DESKS[desk].lower()} followed it today."
            slug = f"{desk}-{index + 1:02d}-{topic.replace(' ', '-')}"
            stories.append(LiveStory(desk, slug, title, (lead, *rng.sample(LINES, 2))))
    return stories


STORIES = build_stories()


Layout = Callable[[str, str], str]  # the site's page around a title and a body


def desk_page(desk: str, layout: Layout) -> str:
    """Return a desk's page: an empty list the script fills, a button or a sentinel."""
    more = (
        '<button type="button" id="load-more">Load more</button>'
        if desk == "climate"
        else '<div id="sentinel" style="height:10px"></div>'
    )
    body = (
        f"<h1>{escape(DESKS[desk])}</h1>"
        # Tall items, as on real desks: the sentinel leaves the screen once a page is in.
        "<style>#live-list li { min-height: 320px; }</style>"
        f'<ul id="live-list" data-api="/api/live/{desk}"></ul>{more}'
        '<script src="/static/live-list.js" defer></script>'
    )
    return layout(DESKS[desk], body)


def api_page(desk: str, page: int) -> str:
    """Return one page of a desk's JSON list."""
    own = [s for s in STORIES if s.desk == desk]
    chunk = own[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    more = page * PAGE_SIZE < len(own)
    return json.dumps(
        {
            "items": [{"title": s.title, "url": s.url, "summary": s.paragraphs[0]} for s in chunk],
            "next": f"/api/live/{desk}?page={page + 1}" if more else None,
        }
    )


def story_page(story: LiveStory, layout: Layout) -> str:
    paragraphs = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs)
    return layout(story.title, f"<article><h1>{escape(story.title)}</h1>{paragraphs}</article>")


def get(path: str, query: dict[str, list[str]], layout: Layout) -> tuple[int, str, str] | None:
    """Answer a GET of the live desks (status, body, content type) in the site's `layout`,
    None for other paths."""
    html = "text/html; charset=utf-8"
    if path == "/static/live.js":
        return 200, MENU_JS, "application/javascript"
    if path == "/static/live-list.js":
        return 200, LIST_JS, "application/javascript"
    for desk in DESKS:
        if path == f"/live/{desk}/":
            return 200, desk_page(desk, layout), html
        if path == f"/api/live/{desk}":
            page = query.get("page", ["1"])[0]
            return 200, api_page(desk, int(page) if page.isdigit() else 1), "application/json"
    if path.startswith("/live/story/"):
        slug = path.strip("/").split("/")[-1]
        for story in STORIES:
            if story.slug == slug:
                return 200, story_page(story, layout), html
        return 404, layout("Not found", "<h1>Not found</h1>"), html
    return None
