"""DownloadAllAuthorities: fetch every page a topical hub lists, and judge the list as it goes.

Part of `XCrawl` (crawler.strategies.xcrawl.strategy), on the state it keeps.

When FindHubs marks a hub, the DOM subtree that holds its links to authorities
(`walk.authority_subtrees`) is downloaded: every same-site link in it not fetched yet that is
shaped as the list's items (the URL shape of the articles it holds, or of most of its links:
not the tag and category pages each item names) is queued, ahead of the candidates the run
values (an unread list page included), and so are the other pages of the hub's own
paginated list, whose items sit in the same subtree of the same template. Each page fetched
through the download is validated; the subtree's harvest (validated share of its fetched
items) is kept per hub. After `download_probe` items a subtree whose share is below
`download_min_share` (or, where few pages validate, below twice the share of the information
pages fetched so far) is not topical (a "recent posts" sidebar is a hub of everything): its
queue is dropped and no further page of its list is harvested. The seeds' own paginated
lists (a blog's post list, a paper's front page) list everything the site has: only their
opening is downloaded (opening.py), the items of their later pages are valued one by one.

A list whose own address names the topic (a "maemo" category or tag) needs one authority
among its items to be a hub and is downloaded whole, as the paper downloads a hub's
authorities: its name is the evidence a probe would seek. Such lists go first, in turn;
those whose own name is the topic's words alone (a "python" category, not a "python-tips"
tag) before the others, with no authority needed (their items are the links shaped as the
site's articles), and their first pages are fetched as soon as a page links them. The pages
of such a list that its pager numbers, up to `LIST_PAGES_AHEAD` past the page read, are
queued after that page's items: a pager links the next page and the last, and read one by
one a list of ten pages would take ten rounds of the fetches in flight. A list judged by a
probe has at most a probe's worth of items in flight, and waits while the run knows a page
worth more than its expected share. A page several lists hold is queued by each, and each
download is judged only by the items it drew itself (an item another list's download drew is
no random sample of this list), so an archive of everything neither takes a category's items
nor passes its probe on the category's harvest. A later page of a list that lays its items
out in another element gives the links shaped as the list's items.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from crawler.canonical import pager_key, url_shape
from crawler.strategies.xcrawl.priority import TOPICAL
from crawler.strategies.xcrawl.walk import authority_subtrees, links_in_subtrees

DOWNLOADS_REPORTED = 50  # downloads listed on a run's record at most
# Links a subtree of authorities holds at least to be a list worth downloading (a pair of
# "previous / next" links or three related posts below an article are not).
MIN_LIST_ITEMS = 5
# The most a hub's subtree adds to the evidence of the links in it: below the value of an
# unread list page, so a list that only holds some authorities never outbids reading on.
HARVEST_SHARE = 0.15
LIFT = 2.0  # a topical subtree's validated share over the run's, at least
FEED_ENDINGS = (".xml", ".rss", ".atom", ".json", "/feed/", "/rss/")


@dataclass
class Download:
    """One hub's DownloadAllAuthorities: what it queued, fetched and found."""

    hub: int
    subtrees: list[str]
    queue: deque[int] = field(default_factory=deque)
    items: set[int] = field(default_factory=set)  # queued item nodes (not list pages)
    pages: set[int] = field(default_factory=set)  # the hub list's own pages
    fetched: int = 0  # items fetched through the download
    accepted: int = 0  # of which the validator accepted
    known: int = 0  # subtree items fetched before, not on their own words' evidence
    known_accepted: int = 0
    handed: int = 0  # pages handed out through the download
    handed_items: int = 0  # of which items (not list pages)
    stopped: bool = False
    named: bool = False  # the list's own address or link names the topic
    in_order: bool = False  # a seed's own list: read in page order, newest first
    opening: set[int] = field(default_factory=set)  # its first pages and their items
    blind: set[int] = field(default_factory=set)  # of which handed before any verdict
    wholly: bool = False  # and each word of its own name does
    shapes: frozenset[str] = frozenset()  # URL shapes of the articles it lists
    # Items handed out and not observed yet -> the run's hand-out count when handed.
    in_flight: dict[int, int] = field(default_factory=dict)

    # The share of its items whose own words name the topic: the prior of the share expected
    # of the others, two items strong (a list of everything names the topic in few titles).
    titled: float = 0.5

    def expected(self) -> float:
        """Return the share expected of its next items."""
        judged = self.fetched + self.known
        return (self.accepted + self.known_accepted + 2 * self.titled) / (judged + 2)

    def share(self) -> float:
        """Return the validated share of the subtree's items judged so far."""
        judged = self.fetched + self.known
        return (self.accepted + self.known_accepted) / judged if judged else 0.0


class HarvestingHubs:
    """XCrawl's DownloadAllAuthorities, as a download."""

    def _start_downloads(self) -> None:
        self.downloads: dict[str, Download] = {}  # the hub's list key -> its download
        # Queued node -> the downloads that queued it: a page two hubs list is judged for both,
        # and one stopped download does not take it from the other.
        self.download_of: dict[int, list[Download]] = {}
        # Item node -> the download that handed it out: only that one judges by it (an item
        # another list's download picked is no random sample of this list).
        self.handed_by: dict[int, Download] = {}
        self.linked_from: dict[int, list[int]] = {}  # node -> fetched pages linking to it
        self.articles: set[int] = set()  # fetched pages the analyser found information pages
        self.article_shapes: set[str] = set()  # their URL shapes
        self.named_lists: list[int] = []  # unfetched first pages of lists the topic names
        self.named_fetched = 0  # of which handed out ahead of the downloads
        self.download_fetches = 0
        self.download_accepted = 0

    def _harvest(self, hub: int, *, force: bool = False) -> None:
        """Start the download of a hub's subtree of authorities, or extend it to a list page."""
        if hub in self.harvested and not force:
            return
        key = pager_key(self.graph.urls[hub])[0]
        download = self.downloads.get(key)
        links = self.links.get(hub, [])
        if download is not None:
            self.harvested.add(hub)
            if not download.stopped:
                self._queue_subtree(download, hub, links, download.subtrees)
            return
        if hub in self.articles:
            return  # an article beside its related links is an authority, not a hub
        if key in self._seed_lists():
            return  # the seeds' own lists list everything the site has
        named = self._named_list(key)
        wholly = named and self._named_wholly(key)
        subtrees = authority_subtrees(links, self.graph.is_accepted)
        if not subtrees and wholly:
            # A list called by the topic's own words whose items are all unknown: they are
            # where its links shaped as the site's articles are.
            subtrees = authority_subtrees(links, self._shaped_as_article)
        targets = links_in_subtrees(links, subtrees)
        # A list called by the topic's words alone needs no authority to be a hub; one whose
        # name says more (a "web-camera" tag), one to show where its items are; any other, two.
        needed = 0 if wholly else 1 if named else max(2, self.config.hub_min_authorities)
        if len(targets) < MIN_LIST_ITEMS or sum(map(self.graph.is_accepted, targets)) < needed:
            return  # not a hub of authorities (yet): asked again as authorities are found
        self.harvested.add(hub)
        download = Download(
            hub,
            subtrees,
            named=named,
            wholly=wholly,
            shapes=self._item_shapes(targets),
        )
        self.downloads[key] = download
        listed = [t for t in targets if self._is_item(download, t)]
        download.titled = self._titled_share(listed)
        self._judge_known(download, listed)
        if self._probe_failed(download):
            return
        self._queue_subtree(download, hub, links, subtrees)

    def _raise_evidence(self, hub: int) -> None:
        """Raise the evidence of every unfetched link in a HITS hub's subtrees of authorities.

        Whether or not the subtree is downloaded: a link beside links to authorities in the
        same list is as likely topical as the list's share of authorities among the fetched
        links whose own words did not name the topic.
        """
        links = self.links.get(hub, [])
        at_fetch = self.priorities.evidence_at_fetch
        for subtree in authority_subtrees(links, self.graph.is_accepted):
            targets = links_in_subtrees(links, [subtree])
            fetched = [
                t for t in targets if self.graph.is_visited(t) and at_fetch.get(t, 1.0) < TOPICAL
            ]
            if len(fetched) < 3:
                continue
            share = sum(self.graph.is_accepted(t) for t in fetched) / len(fetched)
            for target in targets:
                candidate = self.priorities.candidates.get(target)
                if candidate is not None:
                    candidate.boost = max(candidate.boost, HARVEST_SHARE * share)
                    candidate.evidence = max(candidate.text_evidence, candidate.boost)

    def _seed_lists(self) -> set[str]:
        return {pager_key(url)[0] for url in self._seeds}

    def _hubs_around(self, node: int) -> None:
        """Start downloads of the fetched pages whose lists hold a new authority `node`.

        FindHubs by HITS marks the pages whose hub weight is near the largest, which a
        sitemap or an archive of everything holds; a category of a few dozen items only
        stands out by the share of authorities in its list, which the download's probe
        measures.
        """
        for page in self.linked_from.get(node, ()):
            if page not in self.harvested and self.graph.is_visited(page):
                self._harvest(page)

    def _titled_share(self, items: list[int]) -> float:
        """Return the share of `items` whose links' words name the topic."""
        at_fetch = self.priorities.evidence_at_fetch
        candidates = self.priorities.candidates
        titled = 0
        for item in items:
            if item in at_fetch:
                titled += at_fetch[item] >= TOPICAL
            elif item in candidates:
                titled += candidates[item].text_evidence >= TOPICAL
        return titled / len(items) if items else 0.5

    def _judge_known(self, download: Download, targets: list[int]) -> None:
        """Count the subtree's items fetched before that their own words did not call topical.

        Items picked for naming the topic, or by another list's download, say nothing of the
        rest of the list.
        """
        at_fetch = self.priorities.evidence_at_fetch
        for target in targets:
            if (
                self.graph.is_visited(target)
                and at_fetch.get(target, 1.0) < TOPICAL
                and target not in self.handed_by
            ):
                download.known += 1
                download.known_accepted += self.graph.is_accepted(target)

    def _queue_subtree(self, download: Download, page: int, links, subtrees: list[str]) -> None:
        """Queue the unfetched items of `subtrees` on `page`, then the page's list pages."""
        if download.in_order:
            self._queue_opening(download, page, links)  # a seed's own list (opening.py)
            return
        key, number = pager_key(self.graph.urls[page])
        targets = links_in_subtrees(links, subtrees)
        if not targets and page != download.hub:
            # Another template on a later page of the list: its own subtree of authorities
            # outside its menus and sidebars (which list posts fetched long ago), else its
            # links shaped as the list's items (a short last page laid out apart).
            content = [link for link in links if link[2] != "navigation"]
            targets = links_in_subtrees(
                content, authority_subtrees(content, self.graph.is_accepted)
            )
            targets = targets or self._shaped_as_items(download, links)
        in_list = {t for t, _, _ in links if pager_key(self.graph.urls[t])[0] == key}
        pagers = [target for target in in_list if target != page]
        download.pages.add(page)
        if download.named:
            # Downloaded whole: the next pages its pager numbers go out after this page's
            # items, so its items are known a round of fetches later, not one page of the
            # list per round (a pager links the next and the last).
            ahead = self._numbered_pages(key, number)
            pagers += [target for target in ahead if target not in in_list]
        for target in targets:
            if target in in_list or not self._is_item(download, target):
                continue  # the list's own pages, and the other lists its items name
            if target not in download.items and self._open(target):
                download.items.add(target)
                self._enqueue(download, target)
        for target in pagers:
            if target in download.pages:
                continue
            if self.graph.is_visited(target):
                # A page of the list read before the hub was known: its items now.
                self._queue_subtree(download, target, self.links.get(target, []), subtrees)
            elif self._open(target):
                download.pages.add(target)
                self._enqueue(download, target)

    def _item_shapes(self, targets: list[int]) -> frozenset[str]:
        """Return the URL shapes of a list's items: those of the articles and authorities it
        holds, and the shape most of its links have (a post list's posts, not the few tag
        and category pages every item names)."""
        count: dict[str, int] = {}
        shapes = set()
        for target in targets:
            shape = url_shape(self.graph.urls[target])
            count[shape] = count.get(shape, 0) + 1
            if self.graph.is_accepted(target) or target in self.articles:
                shapes.add(shape)
        if count:
            shapes.add(max(count, key=count.__getitem__))
        return frozenset(shapes)

    def _is_item(self, download: Download, node: int) -> bool:
        return url_shape(self.graph.urls[node]) in download.shapes

    def _shaped_as_items(self, download: Download, links) -> list[int]:
        """Return the page's links outside menus whose URL shape the list's items have (the
        first page's items may all have been fetched before the list was read)."""
        shapes = download.shapes | {url_shape(self.graph.urls[item]) for item in download.items}
        return list(
            dict.fromkeys(
                target
                for target, _, kind in links
                if kind != "navigation" and url_shape(self.graph.urls[target]) in shapes
            )
        )

    def _enqueue(
        self, download: Download, node: int, *, opening: bool = False, blind: bool = False
    ) -> None:
        download.queue.append(node)
        if opening:
            download.opening.add(node)
        if blind:
            download.blind.add(node)
        owners = self.download_of.setdefault(node, [])
        if download not in owners:
            owners.append(download)

    def _disown(self, download: Download, node: int) -> None:
        owners = self.download_of.get(node, [])
        if download in owners:
            owners.remove(download)
        if not owners:
            self.download_of.pop(node, None)

    def _download_observed(self, node: int, accepted: bool) -> None:
        """Count a page fetched through a download (for the one that handed it out, and, a list
        page, for each that queued it); stop a download whose probe failed."""
        owners = self.download_of.pop(node, [])
        if not owners:
            return
        if not all(d.in_order for d in owners):  # an opening is no DownloadAll
            self.download_fetches += 1
            self.download_accepted += accepted
        for download in owners:
            if node in download.pages:
                if not download.stopped:
                    self._harvest(node, force=True)
                continue
            if self.handed_by.get(node) is not download:
                continue
            download.in_flight.pop(node, None)
            download.fetched += 1
            download.accepted += accepted
            self._probe_failed(download)

    def _probe_size(self, download: Download) -> int:
        return 0 if download.named else self.config.download_probe

    def _probe_failed(self, download: Download) -> bool:
        """Stop a download whose probe shows a subtree that is not topical; say if it did.

        A list the topic names (a "maemo" category whose posts' words do not all say maemo)
        has no probe: it is downloaded whole, as the paper downloads every hub's authorities.
        """
        judged = download.fetched + download.known
        if download.stopped or download.named or judged < self._probe_size(download):
            return download.stopped
        if download.share() >= self._needed_share():
            return False
        download.stopped = True
        for node in download.queue:
            self._disown(download, node)
        download.queue.clear()
        return True

    def _note_article(self, node: int) -> None:
        self.articles.add(node)
        self.article_shapes.add(url_shape(self.graph.urls[node]))

    def _shaped_as_article(self, node: int) -> bool:
        return url_shape(self.graph.urls[node]) in self.article_shapes

    def _note_named_list(self, node: int, url: str) -> None:
        """Remember an unfetched first page of a list whose address names the topic."""
        key, number = pager_key(url)
        if number == 1 and not url.lower().endswith(FEED_ENDINGS) and self._named_wholly(key):
            self.named_lists.append(node)

    def _needed_share(self) -> float:
        """Return the validated share a subtree needs: `download_min_share`, or less on a
        site where few pages validate, as long as the subtree holds `LIFT` times the share
        of the information pages fetched so far (a list of everything holds about as
        many).
        """
        accepted, rejected = self.learner.pages
        base = (accepted + 1) / (accepted + rejected + 2)
        return min(self.config.download_min_share, LIFT * base)

    def _refused(self, node: int) -> bool:
        candidate = self.priorities.candidates.get(node)
        depth = candidate.depth if candidate is not None else 0
        return self.frontier.refusal(self.graph.urls[node], depth) is not None

    def download_report(self) -> list[dict[str, object]]:
        """Return each download's list (its first page's address), fetches and harvest, for
        the run's record."""
        return [
            {
                "hub": key,
                "fetched": d.fetched,
                "accepted": d.accepted,
                "harvest": round(d.accepted / d.fetched, 3) if d.fetched else None,
                "stopped": d.stopped,
                "opening": d.in_order,
            }
            for key, d in list(self.downloads.items())[:DOWNLOADS_REPORTED]
        ]
