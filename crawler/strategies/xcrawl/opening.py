"""The opening: a seed's own list read first, newest first, as breadth-first reads it.

Part of `XCrawl` (crawler.strategies.xcrawl.strategy), on the state it keeps.

A seed's paginated list (a blog's post list, a news site's front page) holds the site's
newest items: where a recent topic is, and what breadth-first reads first. Before any
verdict is in, the run's link evidence cannot tell a recent topic whose titles lack its
words (posts filed under "development" that never say so) from the rest, and breadth-first
finds it sooner. So the items of the list's first `opening_pages` pages, and those pages,
go out ahead of everything the run values, in page order, without menus, sidebars or the
lists each item names: the items are the links of the page's shape whose anchors are
titles (the most words per link), in the areas outside menus that hold such links. The seed page's items and the opening's pages go at
once, the next pages' items once `download_probe` of the list's items are judged: the list
is a download (harvest.py) judged by the share of the items it handed out that validate,
and stops, its queue dropped, below the share a topical list needs. The list's pages past
the opening are valued one by one like any list page's (topics cluster in time: the yields
of the pages read predict their neighbours).

A topic far from the seeds costs the seed page's items and the next page, once per run. A
revisit reads only the items not fetched before: the new ones. The opening replaces a share
of fetches taken in the frontier's breadth-first order (`explore_share`, still available):
on the shared real blog that share's picks were the menus' pages and the list's last page.
"""

from __future__ import annotations

from crawler.canonical import pager_key, url_shape
from crawler.strategies.xcrawl.harvest import Download
from crawler.strategies.xcrawl.walk import common_path, links_in_subtrees


class OpeningLists:
    """XCrawl's opening on its seeds' own lists."""

    def _open_seed_list(self, seed: int, links) -> None:
        """Start the download of a seed's own list, its first pages read first."""
        url = self.graph.urls[seed]
        key, number = pager_key(url)
        if not self.config.opening_pages or key in self.downloads or number != 1:
            return
        shape = _item_shape(links, key)
        if shape is None:
            return
        self.harvested.add(seed)
        stored = self.links.get(seed, [])
        subtrees = self._list_areas(stored, shape, key)
        download = Download(seed, subtrees, shapes=frozenset({shape}), in_order=True)
        self.downloads[key] = download
        listed = self._listed_items(download, stored)
        download.titled = self._titled_share(listed)
        self._judge_known(download, listed)
        self._queue_opening(download, seed, stored)

    def _queue_opening(self, download: Download, page: int, links) -> None:
        """Queue a page of a seed's own list: within its opening, the next page (before this
        one's items, so its items are known a round sooner), then this page's items; past
        it, nothing (the items of later pages are valued one by one)."""
        download.pages.add(page)
        if not self._opening_page(page):
            return
        key, number = pager_key(self.graph.urls[page])
        for target in self._numbered_pages(key, number)[:1]:
            if target in download.pages or not self._opening_page(target):
                continue
            if self.graph.is_visited(target):
                # Read before its list was opened: its items now.
                self._queue_opening(download, target, self.links.get(target, []))
            elif self._open(target):
                download.pages.add(target)
                self._enqueue(download, target, opening=True, blind=True)
        for target in self._listed_items(download, links):
            if pager_key(self.graph.urls[target])[0] == key:
                continue  # the list's own pages
            if target not in download.items and self._open(target):
                download.items.add(target)
                self._enqueue(download, target, opening=True, blind=page == download.hub)

    def _list_areas(self, links, shape: str, key: str) -> list[str]:
        """Return where a list page's items are: the areas outside menus holding links of
        their shape nearest the list's pager (a sidebar of older or popular posts is not
        read as the newest), as their common parent."""
        urls = self.graph.urls
        areas = {
            area
            for target, area, kind in links
            if area and kind != "navigation" and url_shape(urls[target]) == shape
        }
        pagers = []  # the areas of its links to its own later pages
        for target, area, _ in links:
            list_key, number = pager_key(urls[target])
            if area and list_key == key and number > 1:
                pagers.append(area)
        if areas and pagers:
            near = {a: max(_steps(common_path([a, p])) for p in pagers) for a in areas}
            areas = {area for area in areas if near[area] == max(near.values())}
        if len(areas) <= 1:
            return sorted(areas)
        return [common_path(sorted(areas))]

    def _listed_items(self, download: Download, links) -> list[int]:
        """Return a seed list page's items: its links of the items' shape in the areas where
        the first page has them (on any page laid out otherwise: anywhere), in page order."""
        inside = links_in_subtrees(links, download.subtrees)
        shaped = [target for target in inside if self._is_item(download, target)]
        if shaped:
            return shaped
        return [
            target
            for target in dict.fromkeys(target for target, _, _ in links)
            if self._is_item(download, target)
        ]

    def _opening_next(self, download: Download) -> bool:
        """Tell whether a download's next page is of its opening and may go now: the seed
        page's items and the opening's pages at once, the later pages' items once a probe's
        worth of the list's items is judged (and the list not stopped)."""
        head = download.queue[0]
        if head not in download.opening:
            return False
        return head in download.blind or download.fetched + download.known >= (
            self.config.download_probe
        )

    def _opening_page(self, page: int) -> bool:
        """Tell whether `page` of a seed's own list is one its opening reads first."""
        return pager_key(self.graph.urls[page])[1] <= self.config.opening_pages


def _item_shape(links, key: str) -> str | None:
    """Return the URL shape of a list page's items: of the shapes at least two of its links
    have, outside its own pages, the one whose anchors hold the most words (titles, not the
    names of the categories and tags each item shows); None with no such shape."""
    words: dict[str, dict[str, int]] = {}
    for link in links:
        if pager_key(link.url)[0] == key:
            continue  # the list's own pages
        titles = words.setdefault(url_shape(link.url), {})
        titles[link.url] = max(titles.get(link.url, 0), len(link.anchor.split()))
    shapes = {shape: sum(t.values()) / len(t) for shape, t in words.items() if len(t) >= 2}
    if not shapes:
        return None
    best = max(shapes, key=lambda shape: (shapes[shape], len(words[shape])))
    return best if shapes[best] >= 2 else None


def _steps(path: str) -> int:
    return path.count("/") + 1 if path else 0
