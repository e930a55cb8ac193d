"""The xCrawl strategy: a focused crawl over the site's web graph towards hubs of authorities.

Per run (the paper's per-site loop, on the stored graph of earlier runs):

1. Topic: the site's keywords (crawler.topic) with their synonyms, plus the TF-IDF tokens of
   its sample documents, plus the terms learnt in the run from the authorities found
   (`evidence.LearnedTerms`); the validator (`crawler.strategies.xcrawl.validator`) accepts
   authorities.
2. Known hubs and seeds due for a revisit are fetched first (new links appear there).
3. GetAuthorities: when the site has a search (admin template, or a GET search form found on
   a seed), generated queries are searched there and their first results validated.
4. Hubs before posts: every unfetched page is valued (`priority.Priorities`) by the
   topical evidence of the links to it on the hubs read so far (anchor, item block, URL
   words, feed items) or, for a page of a paginated list or a hub, by the topical yield
   expected of it; the best is fetched next. A post is fetched when its evidence beats the
   next hub's expected yield.
5. Restarts (probability p per fetch, the paper's restartProbability): FindHubs (HITS,
   authorities fixed), node weights (HITS, PageRank or topic-sensitive PageRank) that break
   ties between equal evidence, and DownloadAllAuthorities for every new hub: the links in
   the DOM subtree that holds its links to authorities gain evidence from the subtree's
   share of authorities.

Deviation from the paper, on purpose: the paper walks from the current page along its best
link; here the best link of the whole known graph is taken (a walk that restarts anywhere
at no cost), because a run is capped by a page budget and a walk spends fetches on pages
it only passes through. DownloadAllAuthorities raises evidence instead of queueing every
link, so the budget goes to the subtree's topical items first.
"""

from __future__ import annotations

import logging
import re
from collections import deque
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from django.db.models import Q
from django.utils import timezone

from analyzer.isolation import Reader
from crawler.canonical import pager_key, pager_url, url_shape
from crawler.conf import XcrawlSettings, xcrawl_settings
from crawler.fetch.result import FetchResult
from crawler.models import Link, Page
from crawler.models.sitesearch import SiteSearch
from crawler.models.xcrawl import PageVerdict
from crawler.reading import PageWords, Reading, dom_item_texts, page_words, read_page
from crawler.sitesearch.template import is_search_url
from crawler.strategies.base import ANNOUNCED, PageObservation, Strategy, register
from crawler.strategies.xcrawl.authorities import GetAuthorities
from crawler.strategies.xcrawl.evidence import (
    Evidence,
    LearnedTerms,
    item_texts,
)
from crawler.strategies.xcrawl.graph import WebGraph
from crawler.strategies.xcrawl.priority import TOPICAL, Candidate, ListRecord, Priorities
from crawler.strategies.xcrawl.querygen import QueryPlanner, topic_tokens, topic_with_tokens
from crawler.strategies.xcrawl.samples import sample_texts
from crawler.strategies.xcrawl.validator import (
    Verdict,
    required_score,
    topic_affinity,
    validate,
)
from crawler.strategies.xcrawl.walk import (
    PageLink,
    Walk,
    authority_subtrees,
    links_in_subtrees,
)
from crawler.strategies.xcrawl.weights import GraphWeights, Variant

logger = logging.getLogger(__name__)

# The most DownloadAllAuthorities adds to a link's evidence: below the value of an unread
# list page, so a list that only holds some authorities never outbids reading on.
HARVEST_SHARE = 0.15
MAX_LIST_PAGES = 1000  # pages of one numbered list made candidates at most
VERDICTS_PER_WRITE = 25  # verdicts written together (a commit per page costs a disk sync)
PENDING_KEPT = 32  # hand-outs not observed yet that still hold back weaker candidates


@dataclass
class XcrawlStats:
    """What one run of the strategy did, for logs and the benchmark."""

    restarts: int = 0
    hubs: int = 0
    authorities: int = 0
    walk_steps: int = 0
    downloads: int = 0
    searches: int = 0
    probes: int = 0
    learned_updates: int = 0


@register
class XCrawl(Strategy):
    """xCrawl with HITS and topic-sensitive PageRank (the paper's best variant)."""

    name = "xcrawl"
    variant: ClassVar[str | None] = None  # subclasses pin a weight variant

    def __init__(self, site, run, frontier, *, rng, topic, settings: XcrawlSettings | None = None):
        super().__init__(site, run, frontier, rng=rng, topic=topic)
        pinned = {"variant": self.variant} if self.variant else {}
        self.config = settings or xcrawl_settings(**pinned)
        self.stats = XcrawlStats()
        self._focus(site, topic)
        self._build_graph(rng)
        self._start_bookkeeping()
        self._seeds = [frontier.canonical(url) for url in site.seeds()]
        self._start_evidence()
        if self.focused:
            self._load_graph()
            self._start_search(self._stored_template())

    def _focus(self, site, topic) -> None:
        """Widen the site's topic with its sample documents' terms; without one, go breadth-first."""
        samples = sample_texts(site)
        self.tokens = topic_tokens(topic, samples, limit=self.config.sample_terms) if topic else []
        self.topic = topic_with_tokens(topic, self.tokens) if topic else None
        self.focused = self.topic is not None and not self.topic.is_empty()
        if not self.focused:
            logger.warning("Site %s has no topic: xCrawl crawls it breadth-first.", site)

    def _start_evidence(self) -> None:
        """Start the link evidence, the learnt terms and the candidates' values."""
        self.priorities = Priorities()
        self._weights = np.zeros(0)
        if not self.focused:
            return
        needed = required_score(self.topic, self.config.validator_min_score)
        self.evidence = Evidence(self.topic, needed)
        self.learner = LearnedTerms(
            self.topic.language, [*self.topic.terms, *self.evidence.synonyms]
        )
        self._accepted_seen = 0

        self._canonical = self.frontier.canonical  # remembered by the frontier for the run

    def _build_graph(self, rng) -> None:
        """Make the web graph, its weights and the walk over it."""
        self.graph = WebGraph()
        self.weights = GraphWeights(
            self.graph,
            variant=Variant(self.config.variant),
            damping=self.config.damping,
            tolerance=self.config.tolerance,
            max_iterations=self.config.weight_iterations,
            hub_threshold=self.config.hub_threshold,
            hub_min_authorities=self.config.hub_min_authorities,
        )
        self.walk = Walk(
            self.graph,
            rng,
            restart_probability=self.config.restart_probability,
            free_moves=self.config.free_moves,
        )

    def _start_bookkeeping(self) -> None:
        """Start the run's queues, verdicts, walk progress and search state empty."""
        self.links: dict[int, list[PageLink]] = {}  # fetched node -> its links with DOM areas
        self.verdicts: dict[int, bool] = {}  # stored verdicts of pages fetched before
        self.blocked: set[int] = set()  # nodes handed out in this run
        self.revisits: deque[int] = deque()
        self.harvested: set[int] = set()  # hubs whose subtree was queued
        self.no_new_hubs = 0
        self.search: GetAuthorities | None = None
        self.search_template: str | None = None  # the site's search, known or detected
        self.search_checked = False
        self._adopted = False  # the frontier's unfetched pages became candidates
        self._pending: dict[int, float] = {}  # handed out, not observed: node -> value
        self._unsaved: dict[int, PageVerdict] = {}  # page id -> verdict not written yet

    # --- The seam ------------------------------------------------------------------------

    def next_urls(self, limit: int) -> list[str]:
        if not self.focused:
            return self.frontier.next_batch(limit)
        if not self._adopted:
            self._adopt_frontier()
        picked: list[int] = []
        self._pick(picked, self.revisits, limit)
        if self.search is not None and len(picked) < limit:
            url = self.search.next_search(self._admit)
            if url is not None:
                picked.append(self.graph.node(url))
        if len(picked) < limit:
            # A URL the loop dropped is never observed: only recent hand-outs count.
            for node in [n for n in self._pending if self.graph.is_visited(n)]:
                del self._pending[node]
            while len(self._pending) > PENDING_KEPT:
                del self._pending[next(iter(self._pending))]
            pending = list(self._pending.values())
            chosen = self.priorities.best(
                limit - len(picked),
                self._weights,
                lambda n: n not in picked and self._fetchable(n),
                pending=max(pending, default=0.0),
            )
            for node in chosen:
                self._pending[node] = self.priorities.value(node)
            self.stats.walk_steps += len(chosen)
            picked.extend(chosen)
        self.blocked.update(picked)
        return [self.graph.urls[node] for node in picked]

    def _adopt_frontier(self) -> None:
        """Make the frontier's unfetched pages candidates: seeds, sitemaps and feeds first."""
        self._adopted = True
        first = {Page.Role.SEED, Page.Role.SITEMAP, Page.Role.FEED}
        rows = Page.objects.filter(site=self.site, last_fetched_at__isnull=True).order_by(
            "depth", "id"
        )
        for url, depth, role in rows.values_list("url", "depth", "role"):
            node = self.graph.node(url)
            if node in self.blocked or self.graph.is_visited(node):
                continue
            candidate = self.priorities.candidates.setdefault(
                node, Candidate(depth=depth, shape=url_shape(url))
            )
            if role in first:
                candidate.boost = candidate.evidence = 1.0

    def _fetchable(self, node: int) -> bool:
        """Tell whether a candidate may be fetched now; forget it if it never may."""
        if not self._open(node):
            self.priorities.candidates.pop(node, None)
            return False
        candidate = self.priorities.candidates[node]
        url = self.graph.urls[node]
        if self.frontier.shapes.unproven(url) and any(
            self.priorities.candidates.get(n, candidate).shape == candidate.shape
            and url_shape(self.graph.urls[n]) == candidate.shape
            for n in self._pending
        ):
            return False  # one page of a new shape first: it may be a trap or a copy
        if self.frontier.refusal(url, candidate.depth) is not None:
            self.priorities.candidates.pop(node, None)  # a trap or copy shape, found since
            return False
        return True

    def observe(self, observation: PageObservation) -> None:
        if not self.focused:
            return
        self._pending.pop(self.graph.node(observation.url), None)
        node = self.graph.node(observation.url)
        self.blocked.add(node)
        reading = observation.read_ahead if isinstance(observation.read_ahead, Reading) else None
        words = self._words(observation, reading)
        verdict = self._verdict(node, observation, words)
        if observation.ok:
            pagers = observation.pager_links()
            links = [
                link
                for link in observation.links
                if self._admissible(link.url, observation.depth + (link.url not in pagers))
            ]
            was_authority = self.graph.is_accepted(node)
            self.graph.add_page(
                observation.url, [link.url for link in links], accepted=verdict.accepted
            )
            self.links[node] = [
                (self.graph.index[link.url], link.area_path, link.area_kind) for link in links
            ]
            if verdict.accepted and not was_authority:
                self.stats.authorities += 1
            self._note_affinity(node, observation, verdict, words)
            self._note_anchors(links)
            self._weigh_links(node, observation, links, reading)
            self._learn(observation, verdict, words)
            self._store_verdict(observation, verdict)
            if node in self.weights.hubs:
                self._harvest(node, force=True)
            self._maybe_find_search(observation)
            self._maybe_probe(node, observation)
        else:
            self.graph.add_page(observation.url, self.graph_targets(node), accepted=False)
            self.priorities.candidates.pop(node, None)
        self._search_observed(observation, verdict, node)
        if self.walk.wants_restart():
            self._restart()

    def accepts(self, observation: PageObservation) -> bool:
        if not self.focused:
            return super().accepts(observation)
        node = self.graph.index.get(observation.url)
        return node is not None and self.graph.is_accepted(node)

    def search_fetches(self) -> int:
        return self.stats.searches

    def learned(self) -> dict[str, object]:
        if not self.focused:
            return {}
        return {
            "terms": {stem: round(w, 3) for stem, w in self.evidence.learned.items()},
            "synonyms": sorted(self.evidence.synonyms),
            "hubs": len(self.weights.hubs),
            "restarts": self.stats.restarts,
        }

    # --- Link evidence and learnt terms ----------------------------------------------------

    def _weigh_links(
        self, node: int, observation: PageObservation, links, reading: Reading | None
    ) -> None:
        """Value the page's links by their evidence; record the page's own yield as a hub.

        The yield is the number of its links with topical evidence (weaker evidence counts
        in part; pager links and pages already fetched not at all); the gain, the evidence
        its links gained by it (a feed repeating its list page teaches nothing).
        """
        if not any(self._unfetched(link.url) for link in links):
            texts = {}  # the item texts would only describe pages already fetched
        elif reading is not None:
            texts = dict(reading.items)  # read as the page arrived: `read_ahead`
        elif observation.body:
            texts = dom_item_texts(
                observation.body, observation.url, self._canonical, self._unfetched
            )
        elif observation.analysis is not None:
            texts = item_texts(observation.analysis.links, self._canonical)
        else:
            texts = {}

        texts.update(observation.link_texts)
        pagers = observation.pager_links()
        found = 0.0
        url = observation.url
        lists: set[str] = set()
        counted: set[str] = set()
        gained = 0.0
        for link in links:
            target = self.graph.index[link.url]
            if self.graph.is_visited(target) or target in self.blocked:
                continue
            pager = link.url in pagers
            words = f"{link.anchor} {texts.get(link.url, '')} {_url_words(link.url)}"
            found_stems = self.evidence.stems(words)
            score = self.evidence.score(found_stems)
            candidate = self.priorities.candidates.get(target)
            if candidate is None:
                depth = observation.depth if pager else observation.depth + 1
                candidate = Candidate(depth=depth, shape=url_shape(link.url))
                self.priorities.candidates[target] = candidate
            if not pager and link.url not in counted:
                # How topical the stretch of the list is, whether its items were known or
                # not: topics cluster, so a dense page predicts dense neighbours.
                counted.add(link.url)
                found += 1.0 if score >= TOPICAL else score / 2
                if score > candidate.text_evidence:
                    # What reading it taught: what a hub of its shape is expected to teach.
                    gained += score - candidate.text_evidence
            if pager:
                candidate.list_key, candidate.number = pager_key(link.url)
                here, number = pager_key(url)
                if candidate.list_key != here:
                    # Named by its anchor or rel ("Next day"), not by a page number: the
                    # next page of the list this page belongs to.
                    candidate.list_key, candidate.number = here, number + 1
                candidate.depth = min(candidate.depth, observation.depth)
                lists.add(candidate.list_key)
                record = self.priorities.lists.setdefault(candidate.list_key, ListRecord())
                if candidate.number >= 2 and candidate.number > record.last:
                    record.last, record.example = candidate.number, link.url
            if link.area_kind == ANNOUNCED and url in self._seeds and not candidate.boost:
                # The site's feed or sitemap lists many items in one fetch (a feed with
                # their words); the feed of every list page only repeats that page.
                candidate.boost = 0.9
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

    def read_ahead(self, fetched: FetchResult) -> Reader | None:
        """Have a new page read where it is analysed (`crawler.reading.read_page`): the list
        items around its links and the stems of its words, which the validator, the topic
        affinity and the learnt terms judge.

        Every link's item is read (which pages are fetched changes meanwhile); the URLs are
        made canonical with the aliases known now, without the frontier's memo, which the
        storing thread keeps.
        """
        if not self.focused or not fetched.body:
            return None
        return read_page, (dict(self.frontier.aliases), self.topic.language)

    def _words(self, observation: PageObservation, reading: Reading | None) -> PageWords | None:
        """Return the stems of an analysed page's words: read ahead, or read now."""
        if observation.analysis is None:
            return None
        if reading is not None:
            return reading.words
        return page_words(observation.analysis, self.topic.language)

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

    def _learn(
        self, observation: PageObservation, verdict: Verdict, words: PageWords | None
    ) -> None:
        """Count the words of information pages; relearn the terms every few authorities."""
        analysis = observation.analysis
        if analysis is None or words is None or observation.kind != "information":
            return
        self.learner.add(
            words.informational,
            accepted=verdict.accepted,
            language=analysis.language or "",
        )
        if not verdict.accepted:
            return
        self._accepted_seen += 1
        if self._accepted_seen % 5:
            return
        terms = self.learner.terms(self.config.sample_terms)
        if terms == self.evidence.learned:
            return
        self.evidence.learned = terms
        self.stats.learned_updates += 1
        for candidate in self.priorities.candidates.values():
            if candidate.stems:
                candidate.text_evidence = self.evidence.score(candidate.stems)
                candidate.evidence = max(candidate.text_evidence, candidate.boost)

    # --- The walk ------------------------------------------------------------------------

    def _restart(self) -> None:
        """FindHubs, recompute the node weights, and DownloadAllAuthorities for new hubs."""
        self.stats.restarts += 1
        new_hubs = self.weights.find_hubs() if self.graph.accepted().any() else set()
        if new_hubs:
            self.no_new_hubs = 0
            self.stats.hubs += len(new_hubs)
            for hub in sorted(new_hubs):
                self._harvest(hub)
            self._store_hubs(new_hubs)
        else:
            self.no_new_hubs += 1
        weights = self.weights.weights()
        top = weights.max() if len(weights) else 0.0
        self._weights = weights / top if top > 0 else weights

    def _open(self, node: int) -> bool:
        """Tell whether the walk or DownloadAllAuthorities may fetch `node`.

        Pages of the site's search are left to the query generation (the first n results
        of each query, as in the paper): the walk would otherwise page through results
        lists of pages it mostly knows.
        """
        if node in self.blocked or self.graph.is_visited(node):
            return False
        template = self.search_template
        return template is None or not is_search_url(self.graph.urls[node], template)

    # --- DownloadAllAuthorities ----------------------------------------------------------

    def _harvest(self, hub: int, *, force: bool = False) -> None:
        """Raise the evidence of every unfetched link in the hub's subtrees of authorities.

        DownloadAllAuthorities, as evidence: a link beside links to authorities in the same
        list is as likely topical as the list's share of authorities among the fetched links
        whose own words did not name the topic (what the list adds to the labels: a list
        that is topical as a whole, not one whose topical items were picked by their titles).
        """
        if hub in self.harvested and not force:
            return
        self.harvested.add(hub)
        links = self.links.get(hub, [])
        for subtree in authority_subtrees(links, self.graph.is_accepted):
            targets = links_in_subtrees(links, [subtree])
            at_fetch = self.priorities.evidence_at_fetch
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

    # --- Link probing ---------------------------------------------------------------------

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
            found_stems = self.evidence.stems(_url_words(url))
            score = self.evidence.score(found_stems)
            self.priorities.candidates[target] = Candidate(
                depth=depth,
                shape=url_shape(url),
                stems=frozenset(found_stems),
                text_evidence=score,
                evidence=score,
            )
        logger.debug("probed %s: %d new links", observation.url, len(added))

    # --- Site search (GetAuthorities) ----------------------------------------------------

    def _start_search(self, template: str | None) -> None:
        self.search_template = template or self.search_template
        if template is None or not self.config.search or not self.tokens:
            return
        planner = QueryPlanner(
            self.tokens[: self.config.search_max_tokens],
            max_length=self.config.search_query_length,
            max_iterations=self.config.search_max_iterations,
            max_queries=self.config.search_max_queries,
        )
        self.search = GetAuthorities(template, planner, results=self.config.search_results)

    def _stored_template(self) -> str | None:
        found = SiteSearch.objects.filter(site=self.site).url_templates()
        return found.values_list("url_template", flat=True).first()

    def _maybe_find_search(self, observation: PageObservation) -> None:
        """Look for a GET search form on the first seed fetched, once per run."""
        if self.search is not None or self.search_checked or observation.url not in self._seeds:
            return
        self.search_checked = True
        body = observation.body or self._stored_body(observation.page_id)
        template = (
            SiteSearch.objects.find_template(self.site, body, observation.url) if body else None
        )
        if template is None:
            return
        self._start_search(template)

    @staticmethod
    def _stored_body(page_id: int | None) -> bytes | None:
        version = Page.objects.get(id=page_id).latest_version() if page_id else None
        return version.raw_body() if version is not None else None

    def _search_observed(self, observation: PageObservation, verdict: Verdict, node: int) -> None:
        if self.search is None:
            return
        if self.search.is_results_page(observation.url):
            self.stats.searches += 1
            results = self.search.observe_results_page(
                observation.url, observation.analysis, observation.error, self._admit
            )
            for url in results:
                target = self.graph.node(url)
                if self._open(target) and target not in self.revisits:
                    self.revisits.append(target)  # results go first, like revisits
                else:
                    self.search.forget(url)
        else:
            self.search.observe_result(observation.url, verdict.accepted)

    def _admit(self, url: str) -> str | None:
        """Store a URL the strategy made up (a search page) in the frontier; None if refused."""
        canonical = self.frontier.canonical(url)
        if canonical in self.graph.index and canonical in self.frontier.taken:
            return None
        ids = self.frontier.add([canonical], depth=1)
        if canonical not in ids:
            return None
        self.graph.node(canonical)
        return canonical

    # --- Memory --------------------------------------------------------------------------

    def _verdict(self, node: int, observation: PageObservation, words: PageWords | None) -> Verdict:
        if not observation.ok:
            return Verdict(False, reason=str(observation.error or "fetch failed"))
        if observation.analysis is None and node in self.verdicts:
            return Verdict(self.verdicts[node], reason="unchanged since validated")
        return validate(
            observation.analysis,
            self.topic,
            min_score=self.config.validator_min_score,
            words=words,
        )

    def _note_affinity(
        self, node: int, observation: PageObservation, verdict: Verdict, words: PageWords | None
    ) -> None:
        if verdict.accepted or observation.analysis is None:
            self.weights.affinity.pop(node, None)
            return
        affinity = topic_affinity(
            observation.analysis,
            self.topic,
            min_score=self.config.validator_min_score,
            words=words,
        )
        if affinity > 0:
            self.weights.affinity[node] = affinity
        else:
            self.weights.affinity.pop(node, None)

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

    def _store_verdict(self, observation: PageObservation, verdict: Verdict) -> None:
        """Keep the verdict for the next flush (one bulk upsert per `VERDICTS_PER_WRITE`)."""
        if observation.page_id is None or observation.analysis is None:
            return
        self._unsaved[observation.page_id] = PageVerdict(
            page_id=observation.page_id,
            accepted=verdict.accepted,
            score=verdict.score,
            validated_at=timezone.now(),
        )
        if len(self._unsaved) >= VERDICTS_PER_WRITE:
            self._flush_verdicts()

    def _flush_verdicts(self) -> None:
        if not self._unsaved:
            return
        PageVerdict.objects.bulk_create(
            list(self._unsaved.values()),
            update_conflicts=True,
            unique_fields=["page"],
            update_fields=["accepted", "score", "validated_at"],
        )
        self._unsaved.clear()

    def close(self) -> None:
        if self.focused:
            self._flush_verdicts()

    def _store_hubs(self, hubs: set[int]) -> None:
        self._flush_verdicts()
        urls = [self.graph.urls[node] for node in hubs]
        for page_id, url in Page.objects.filter(site=self.site, url__in=urls).values_list(
            "id", "url"
        ):
            PageVerdict.objects.update_or_create(
                page_id=page_id, defaults={"hub": float(self.weights.hub[self.graph.index[url]])}
            )

    def _admissible(self, url: str, depth: int) -> bool:
        return self.frontier.refusal(url, depth) is None

    def graph_targets(self, node: int) -> list[str]:
        """Return the URLs a node links to in the graph."""
        return [self.graph.urls[t] for t in self.graph.successors(node)]

    def _pick(self, picked: list[int], queue: deque[int], limit: int) -> None:
        while queue and len(picked) < limit:
            node = queue.popleft()
            if node not in self.blocked and node not in picked:
                picked.append(node)

    def _load_graph(self) -> None:
        """Load the site's stored pages, links and verdicts; queue due hubs and seeds."""
        pages = Page.objects.filter(site=self.site)
        url_of = dict(pages.values_list("id", "url"))
        fetched = pages.filter(last_fetched_at__isnull=False)
        verdicts = {
            page_id: (accepted, hub)
            for page_id, accepted, hub in PageVerdict.objects.filter(
                page__site=self.site
            ).values_list("page_id", "accepted", "hub")
        }
        out: dict[int, list[tuple[int, str, str]]] = {}
        for source, target, area, kind in Link.objects.filter(
            from_page__site=self.site, target_page__isnull=False
        ).values_list("from_page_id", "target_page_id", "area_path", "area_kind"):
            out.setdefault(source, []).append((target, area, kind))
        for page_id in fetched.values_list("id", flat=True):
            accepted = verdicts.get(page_id, (False, 0.0))[0]
            links = [(url_of[t], a, k) for t, a, k in out.get(page_id, []) if t in url_of]
            node = self.graph.add_page(url_of[page_id], [u for u, _, _ in links], accepted=accepted)
            self.links[node] = [(self.graph.index[u], a, k) for u, a, k in links]
            self.verdicts[node] = accepted
        cutoff = timezone.now() - self.site.min_page_revisit
        due = fetched.filter(last_fetched_at__lt=cutoff).filter(
            Q(role__in=[Page.Role.SEED, Page.Role.FEED, Page.Role.SITEMAP])
            | Q(verdict__hub__gte=self.config.hub_threshold)
        )
        for url in due.order_by("depth", "id").values_list("url", flat=True):
            self.revisits.append(self.graph.index[url])
        hubs = {
            self.graph.index[url_of[p]]
            for p, (_, hub) in verdicts.items()
            if hub >= self.config.hub_threshold and p in url_of
        }
        self.weights.hubs |= {h for h in hubs if self.graph.is_visited(h)}


def _url_words(url: str) -> str:
    """Return the words of a URL's path and query ("/posts/python-tips/" -> "posts python tips")."""
    rest = url.split("://", 1)[-1]
    rest = rest.split("/", 1)[1] if "/" in rest else ""
    return " ".join(part for part in re.split(r"[^\w]+|_", rest) if part and not part.isdigit())
