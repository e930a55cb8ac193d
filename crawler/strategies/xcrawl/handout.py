"""Which queued download pages go out next: the opening, the lists the topic names, then
the others by expected share, each judged by a probe at the pace its verdicts come.

Part of `XCrawl` (crawler.strategies.xcrawl.strategy), on the state DownloadAllAuthorities
(harvest.py) and the opening (opening.py) keep.
"""

from __future__ import annotations

from crawler.canonical import pager_key, url_shape
from crawler.strategies.xcrawl.harvest import Download

DOWNLOAD_TIE = 0.15  # expected shares this close are served in turn
# Hand-outs after which an item not observed counts as dropped by the loop, not in flight.
IN_FLIGHT_KEPT = 64
# Unfetched lists the topic names (a "python" category an article names) fetched ahead of
# the downloads, per run at most: a site names few lists after one word.
NAMED_LISTS = 8


class HandingOutDownloads:
    """XCrawl's hand-out of the pages its downloads queued."""

    def _pick_named_lists(self, picked: list[int], limit: int) -> None:
        """Hand out the unfetched lists the topic names (not shaped as the site's articles),
        ahead of the downloads: a "python" category is downloaded whole once fetched, and a
        download of the "python" tag would otherwise take every fetch before it."""
        if not self.article_shapes:
            return  # an article's shape is not known yet: the list's might be it
        kept = []
        for node in self.named_lists:
            url = self.graph.urls[node]
            if not self._open(node) or pager_key(url)[0] in self.downloads:
                continue
            if url_shape(url) in self.article_shapes or self._refused(node):
                continue  # an article whose address names the topic, or a page refused
            if len(picked) >= limit or self.named_fetched >= NAMED_LISTS:
                kept.append(node)
                continue
            self.named_fetched += 1
            picked.append(node)
        self.named_lists = kept

    def _pick_downloads(self, picked: list[int], limit: int) -> None:
        """Hand out queued download pages, up to `limit` in all.

        Lists the topic names (a "python" category and a "python" tag) go first, in turn:
        their names say more of the rest of their items than a probe of a few, and one list's
        download takes the items both hold, so the other's share says little. Among the
        other downloads, those whose expected share is within `DOWNLOAD_TIE` of the best, the
        one that handed out least, so equally topical hubs progress together and a better
        one goes first; and only while no candidate the run values is worth more than its
        expected share (an archive of everything waits while the posts its titles name
        remain).
        """
        self._pick_named_lists(picked, limit)
        waiting: list[tuple[Download, int]] = []  # of a new shape while one of it is out
        while len(picked) < limit:
            queued = [d for d in self.downloads.values() if d.queue]
            opening = [d for d in queued if self._opening_next(d)]
            if opening:
                queued = opening  # a seed list's first pages, as breadth-first reads them
            elif any(d.named for d in queued):
                queued = [d for d in queued if d.named]  # the others wait on their verdicts
                if any(d.wholly for d in queued):
                    queued = [d for d in queued if d.wholly]  # "development" before "web-…"
            active = opening or [d for d in queued if not self._probing(d) and not self._ahead(d)]
            if not active:
                break
            if opening or active[0].named:
                tied = active  # lists the topic names, in turn whatever their shares
            else:
                best = max(d.expected() for d in active)
                if best < self._best_value(picked):
                    break  # the run knows a page worth more than a download's next item
                tied = [d for d in active if d.expected() >= best - DOWNLOAD_TIE]
            download = min(tied, key=lambda d: d.handed)
            node = self._next_of(download)
            if node in picked or (node in self.blocked and not self.graph.is_visited(node)):
                continue  # another download handed it out: counted for both when it comes
            if not self._open(node) or self._refused(node):
                self.download_of.pop(node, None)
                continue
            if self._shape_out(self.graph.urls[node], picked):
                waiting.append((download, node))  # after the first of its shape is judged
                continue
            download.handed += 1
            if node in download.items:
                download.handed_items += 1
                download.in_flight[node] = self.handed + len(picked)
                self.handed_by[node] = download
            picked.append(node)
        for download, node in reversed(waiting):
            download.queue.appendleft(node)

    def _next_of(self, download: Download) -> int:
        """Take a download's next page: during its probe an item at random (the run's seeded
        generator), so the probe samples the whole list rather than its first items."""
        queue = download.queue
        if download.in_order or download.fetched + download.known >= self._probe_size(download):
            return queue.popleft()
        items = [i for i, node in enumerate(queue) if node in download.items]
        if not items:
            return queue.popleft()
        index = items[self.rng.randrange(len(items))]
        node = queue[index]
        del queue[index]
        return node

    def _ahead(self, download: Download) -> bool:
        """Tell whether a download a probe judges has a probe's worth of items in flight: its
        verdicts come a few fetches late, and a list that only passed its probe by chance
        would otherwise take every fetch until they came. A list the topic names is
        downloaded whole and never waits."""
        if download.named:
            return False
        recent = self.handed - IN_FLIGHT_KEPT
        for node, handed in list(download.in_flight.items()):
            if handed < recent or self.graph.is_visited(node):
                del download.in_flight[node]  # dropped by the loop, or observed for another
        return len(download.in_flight) >= self.config.download_probe

    def _probing(self, download: Download) -> bool:
        """Tell whether a download handed out its whole probe and awaits the verdicts."""
        judged = download.fetched + download.known
        probe = self._probe_size(download)
        return judged < probe and download.handed_items >= probe - download.known
