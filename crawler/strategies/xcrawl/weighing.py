"""How xCrawl values the links of a fetched page: their evidence, the page's yield as a hub,
the pages of the numbered lists it links, and the links a browser finds by probing it.

Part of `XCrawl` (crawler.strategies.xcrawl.strategy), on the state it keeps.
"""

from __future__ import annotations

import logging
from urllib.parse import parse_qsl, urlsplit

from crawler.canonical import pager_key, pager_url, url_shape
from crawler.strategies.base import ANNOUNCED, HUB, PageObservation
from crawler.strategies.xcrawl.evidence import address_words, item_texts, url_words
from crawler.strategies.xcrawl.priority import TOPICAL, Candidate, ListRecord
from crawler.strategies.xcrawl.reading import Reading, dom_item_texts
from crawler.strategies.xcrawl.validator import required_score
from crawler.strategies.xcrawl.weights import Variant

logger = logging.getLogger(__name__)

NAMED_ITEM = TOPICAL  # the evidence of an item listed by a list the topic names

MAX_LIST_PAGES = 1000  # pages of one numbered list made candidates at most
LIST_PAGES_AHEAD = 10  # pages of a list downloaded whole queued past the page read, at most


class WeighingLinks:
    """XCrawl's valuation of the links of each fetched page."""

    def _weigh_links(
        self, node: int, observation: PageObservation, links, reading: Reading | None
    ) -> None:
        """Value the page's links by their evidence; record the page's own yield as a hub.

        The yield is the number of its links with topical evidence (weaker evidence counts
        in part; pager links and pages already fetched not at all); the gain, the evidence
        its links gained by it (a feed repeating its list page teaches nothing).
        """
        texts = self._item_texts(observation, links, reading)
        texts.update(observation.link_texts)
        pagers = observation.pager_links()
        found = 0.0
        url = observation.url
        lists: set[str] = set()
        counted: set[str] = set()
        gained = 0.0
        named = observation.kind != "information" and self._named_list(url)
        for link in links:
            target = self.graph.index[link.url]
            if self.graph.is_visited(target) or target in self.blocked:
                continue
            pager = link.url in pagers
            words = f"{link.anchor} {texts.get(link.url, '')} {url_words(link.url)}"
            found_stems = self.evidence.stems(words)
            score = self.evidence.score(found_stems)
            candidate = self.priorities.candidates.get(target)
            if candidate is None:
                depth = observation.depth if pager else observation.depth + 1
                candidate = Candidate(depth=depth, shape=url_shape(link.url))
                self.priorities.candidates[target] = candidate
                self._note_named_list(target, link.url)
            if not pager and link.url not in counted:
                # How topical the stretch of the list is, whether its items were known or
                # not: topics cluster, so a dense page predicts dense neighbours.
                counted.add(link.url)
                found += 1.0 if score >= TOPICAL else score / 2
                if score > candidate.text_evidence:
                    # What reading it taught: what a hub of its shape is expected to teach.
                    gained += score - candidate.text_evidence
            if pager:
                lists.add(self._place_in_list(candidate, link.url, observation))
            _boost(candidate, link.area_kind, seed=url in self._seeds, named=named and not pager)
            if len(candidate.stems) < 400:
                candidate.stems |= found_stems
            candidate.text_evidence = max(candidate.text_evidence, score)
            candidate.evidence = max(candidate.text_evidence, candidate.boost)
        for key in sorted(lists):
            self._fill_list(key, observation.depth)
        self.priorities.fetched(
            node,
            url_shape(url),
            pager_key(url),
            hub=observation.kind != "information",
            found=found,
            gained=gained,
        )

    def _named_list(self, url: str) -> bool:
        """Tell whether the words of a list's address (its pages' common part) name the topic."""
        return self.evidence.score(self.evidence.stems(url_words(pager_key(url)[0]))) >= TOPICAL

    def _named_wholly(self, url: str) -> bool:
        """Tell whether each word of a list's own name (the last part of its address) names
        the topic: a "development" category, not a "web-development" tag."""
        words = [w for w in address_words(list_name(pager_key(url)[0])) if len(w) > 2]
        return bool(words) and all(
            self.evidence.score(self.evidence.stems(word)) >= TOPICAL for word in words
        )

    def _item_texts(
        self, observation: PageObservation, links, reading: Reading | None
    ) -> dict[str, str]:
        """Return the text of the list item around each of the page's links, per target."""
        if not any(self._unfetched(link.url) for link in links):
            return {}  # the item texts would only describe pages already fetched
        if reading is not None:
            return dict(reading.items)  # read as the page arrived: `read_ahead`
        if observation.body:
            return dom_item_texts(
                observation.body, observation.url, self._canonical, self._unfetched
            )
        if observation.analysis is not None:
            return item_texts(observation.analysis.links, self._canonical)
        return {}

    def _place_in_list(
        self, candidate: Candidate, link_url: str, observation: PageObservation
    ) -> str:
        """Place the page a pager link leads to in its numbered list; return the list's key."""
        candidate.list_key, candidate.number = pager_key(link_url)
        here, number = pager_key(observation.url)
        if candidate.list_key != here:
            # Named by its anchor or rel ("Next day"), not by a page number: the
            # next page of the list this page belongs to.
            candidate.list_key, candidate.number = here, number + 1
        candidate.depth = min(candidate.depth, observation.depth)
        record = self.priorities.lists.setdefault(candidate.list_key, ListRecord())
        if candidate.number >= 2 and candidate.number > record.last:
            record.last, record.example = candidate.number, link_url
        return candidate.list_key

    def _unfetched(self, url: str) -> bool:
        node = self.graph.index.get(url)
        return node is None or not (self.graph.is_visited(node) or node in self.blocked)

    def _fill_list(self, key: str, depth: int) -> None:
        """Make every page of a numbered list a candidate, up to the highest number linked.

        A pager shows a few numbers (first, previous, next, last); the pages between follow
        the same URL pattern, and a date-ordered list holds a topic's posts in a stretch of
        pages: reading the middle of an unread stretch finds it sooner than paging on.
        """
        record = self.priorities.lists[key]
        if not record.example or record.last <= record.filled:
            return
        numbers = range(max(2, record.filled + 1), min(record.last, MAX_LIST_PAGES) + 1)
        record.filled = record.last
        urls = [pager_url(record.example, n) for n in numbers]
        wanted = [u for u in (self._canonical(u) for u in urls if u) if u not in self.graph.index]
        admitted = [u for u in wanted if self.frontier.refusal(u, depth) is None]
        if not admitted:
            return
        stored = self.frontier.add(admitted, depth=depth)
        for url in admitted:
            if url not in stored:
                continue
            target = self.graph.node(url)
            list_key, number = pager_key(url)
            self.priorities.candidates.setdefault(
                target,
                Candidate(depth=depth, shape=url_shape(url), list_key=list_key, number=number),
            )

    def _numbered_pages(self, key: str, after: int) -> list[int]:
        """Return the known pages of a numbered list that follow page `after`, at most
        `LIST_PAGES_AHEAD` of them (a list of a thousand pages is read as its items come)."""
        record = self.priorities.lists.get(key)
        if record is None or not record.example:
            return []
        pages = []
        last = min(record.last, MAX_LIST_PAGES, after + LIST_PAGES_AHEAD)
        for number in range(max(2, after + 1), last + 1):
            url = pager_url(record.example, number)
            node = self.graph.index.get(self._canonical(url)) if url else None
            if node is not None:
                pages.append(node)
        return pages

    def _note_anchors(self, links) -> None:
        """Record, per linked page, the best topic affinity of an anchor text pointing to it."""
        if self.config.variant != Variant.HITS_TOPIC_PAGERANK.value:
            return
        needed = required_score(self.topic, self.config.validator_min_score)
        for link in links:
            if not link.anchor:
                continue
            score = self.topic.score(self.evidence.stems(link.anchor)) / needed
            if score > 0:
                target = self.graph.index[link.url]
                best = self.weights.anchor_affinity.get(target, 0.0)
                self.weights.anchor_affinity[target] = max(best, min(1.0, score))

    def _maybe_probe(self, node: int, observation: PageObservation) -> None:
        """Probe seeds and navigation pages of a site that needs a browser, up to a cap.

        Hovers and clicks find links that menus and "load more" buttons build; each one
        admissible enters the frontier and the graph as a link of the probed page.
        """
        config = self.config
        if (
            not (config.probe and self.site.needs_browser)
            or self.stats.probes >= config.probe_pages
        ):
            return
        if observation.url not in self._seeds and observation.kind != "hub":
            return
        from crawler.fetch import SiteRules
        from crawler.strategies.xcrawl.probe import probe_url

        self.stats.probes += 1
        result = probe_url(
            observation.url,
            SiteRules.of(self.site),
            self.site.host_list(),
            max_states=config.probe_states,
            seconds=config.probe_seconds,
        )
        depth = observation.depth + 1
        found = [self.frontier.canonical(url) for url in result.urls()]
        admitted = [url for url in dict.fromkeys(found) if self._admissible(url, depth)]
        if not admitted:
            return
        ids = self.frontier.add(admitted, depth=depth)
        added = self.graph.add_links(observation.url, [url for url in admitted if url in ids])
        self.links.setdefault(node, []).extend((target, "", "probe") for target in added)
        for url in admitted:
            target = self.graph.index.get(url)
            if target is None or target in self.priorities.candidates:
                continue
            # A link only a menu builds carries no text here but its URL's words; it is
            # navigation the page offers, so it competes like any other link of the page.
            found_stems = self.evidence.stems(url_words(url))
            score = self.evidence.score(found_stems)
            self.priorities.candidates[target] = Candidate(
                depth=depth,
                shape=url_shape(url),
                stems=frozenset(found_stems),
                text_evidence=score,
                evidence=score,
            )
        logger.debug("probed %s: %d new links", observation.url, len(added))


def list_name(key: str) -> str:
    """Return a list's own name: its query's values, else the last part of its path."""
    parts = urlsplit(key)
    if parts.query:
        return " ".join(value for _, value in parse_qsl(parts.query))
    return next((part for part in reversed(parts.path.split("/")) if part), "")


def _boost(candidate: Candidate, area_kind: str, *, seed: bool, named: bool) -> None:
    """Raise a candidate's floor of evidence by where its link sits.

    The site's feed or sitemap lists many items in one fetch (a feed with their words); the
    feed of every list page only repeats that page. An item of a list the topic names (a
    "maemo" category) is topical evidence of its own, whatever its title says.
    """
    if area_kind == ANNOUNCED and seed and not candidate.boost:
        candidate.boost = 0.9
    if named and area_kind == HUB:
        candidate.boost = max(candidate.boost, NAMED_ITEM)
