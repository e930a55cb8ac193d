"""The xCrawl strategy: a focused crawl over the site's web graph towards hubs of authorities.

Per run (the paper's per-site loop, on the stored graph of earlier runs):

1. Topic: the site's keywords (crawler.topic) with their synonyms, plus the TF-IDF tokens of
   its sample documents, plus the terms learnt in the run from the authorities found
   (`evidence.LearnedTerms`); the validator (`crawler.strategies.xcrawl.validator`) accepts
   authorities.
2. Known hubs and seeds due for a revisit are fetched first (new links appear there).
3. The opening (opening.py): a seed's own list (a blog's newest posts) is read first, its
   first `opening_pages` pages and their items in page order, as breadth-first reads them,
   so a recent topic whose titles never name it is found as soon as breadth-first finds it;
   the later pages' items wait for a probe of the first's verdicts. A share of the
   fetches (`explore_share`, none by default) may also be taken in the frontier's
   breadth-first order.
4. DownloadAllAuthorities (harvest.py): FindHubs runs whenever a new authority is found
   and at every restart, and so does a check of the lists linking to the new authority;
   each new hub's subtree of authorities, and its list's other pages, are queued ahead of
   everything the run values, validated, and dropped when a random probe shows a subtree
   that is not topical. The links of a HITS hub's subtree also gain evidence from its share
   of authorities.
5. GetAuthorities: when the site has a search (admin template, or a GET search form found on
   a seed), generated queries are searched there and their first results validated.
6. SelectLink, by one of two variants:
   - best-first ("xcrawl", "xcrawl-hits", "xcrawl-pagerank", "xcrawl-evidence"): every
     unfetched page is valued (`priority.Priorities`) by the topical evidence of the links
     to it, or, for a page of a paginated list or a hub, by the topical yield expected of
     it, scaled by its node weight (HITS, PageRank or topic-sensitive PageRank; by
     `graph_share`); the best of the whole known graph is fetched next, and a restart
     (probability restartProbability per fetch) runs FindHubs;
   - the paper's walk ("xcrawl-walk-paper", choosing.py): from the page the walk stands on,
     the link of most value; with probability restartProbability, or at a dead end, a
     restart at a random known authority (a seed before any is known). "xcrawl-walk" takes
     the page's best link only while it is worth `walk_floor` of the best page the run
     knows; a page of weaker links is a dead end, so the walk restarts at an authority
     instead of wandering through pages its links say nothing for.
7. noNewHubsFound: `max_iterations` restarts in a row that found no new hub stop the run
   ("no-new-hubs"); a new authority starts the count again (the walk still finds what
   the site's hubs list).

`XCrawl` is the strategy's face; its phases are its parts: choosing the next URLs
(choosing.py), judging a fetched page (observing.py), weighing its links (weighing.py),
DownloadAllAuthorities (harvest.py) and GetAuthorities through the site's search
(searching.py).
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from django.db.models import Q
from django.utils import timezone

from analyzer.isolation import Reader
from crawler.conf import XcrawlSettings, xcrawl_settings
from crawler.fetch.result import FetchResult
from crawler.models import CrawlRun, Link, Page
from crawler.models.xcrawl import PageVerdict
from crawler.strategies.base import PageObservation, Strategy, register
from crawler.strategies.xcrawl.authorities import GetAuthorities
from crawler.strategies.xcrawl.choosing import REFRESH_EVERY, ChoosingUrls
from crawler.strategies.xcrawl.evidence import Evidence, LearnedTerms
from crawler.strategies.xcrawl.graph import WebGraph
from crawler.strategies.xcrawl.handout import HandingOutDownloads
from crawler.strategies.xcrawl.harvest import HarvestingHubs
from crawler.strategies.xcrawl.observing import ObservingPages
from crawler.strategies.xcrawl.opening import OpeningLists
from crawler.strategies.xcrawl.priority import Priorities
from crawler.strategies.xcrawl.querygen import topic_tokens, topic_with_tokens
from crawler.strategies.xcrawl.reading import Reading, read_page
from crawler.strategies.xcrawl.samples import sample_texts
from crawler.strategies.xcrawl.searching import SearchingSite
from crawler.strategies.xcrawl.validator import required_score
from crawler.strategies.xcrawl.walk import PageLink, Walk
from crawler.strategies.xcrawl.weighing import WeighingLinks
from crawler.strategies.xcrawl.weights import GraphWeights, Variant

logger = logging.getLogger(__name__)


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
class XCrawl(
    ChoosingUrls,
    ObservingPages,
    WeighingLinks,
    OpeningLists,
    HandingOutDownloads,
    HarvestingHubs,
    SearchingSite,
    Strategy,
):
    """xCrawl with HITS and topic-sensitive PageRank (the paper's best variant)."""

    name = "xcrawl"
    variant: ClassVar[str | None] = None  # subclasses pin a weight variant
    pinned: ClassVar[dict[str, object]] = {}  # and other settings
    walking: ClassVar[bool] = False  # the paper's walk instead of best-first

    def __init__(self, site, run, frontier, *, rng, topic, settings: XcrawlSettings | None = None):
        super().__init__(site, run, frontier, rng=rng, topic=topic)
        pinned = {"variant": self.variant} if self.variant else {}
        self.config = settings or xcrawl_settings(**pinned, **self.pinned)
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
        tokens = topic_tokens(topic, samples, limit=self.config.sample_terms) if topic else []
        self.tokens = [t for t in tokens if topic.searchable(t.stem)]  # what the site search gets
        self.topic = topic_with_tokens(topic, self.tokens) if topic else None
        self.focused = self.topic is not None and not self.topic.is_empty()
        if not self.focused:
            # Normal until someone saves a list (a new instance, its demo site): no warning.
            logger.info("Site %s: no keywords yet, so xCrawl crawls it breadth-first.", site)

    def _start_evidence(self) -> None:
        """Start the link evidence, the learnt terms and the candidates' values."""
        self.priorities = Priorities(self.config.graph_share)
        self._start_downloads()
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
        self.no_new_hubs = 0  # restarts in a row without a new hub
        self.handed = 0  # URLs handed out by the strategy's own choice
        self.explored = 0  # of which in the frontier's breadth-first order
        self.walked: set[int] = set()  # nodes the walk chose
        self._weights_handed = -REFRESH_EVERY  # `handed` when the weights were last computed
        self.search: GetAuthorities | None = None
        self.search_template: str | None = None  # the site's search, known or detected
        self.search_checked = False
        self._adopted = False  # the frontier's unfetched pages became candidates
        self._pending: dict[int, float] = {}  # handed out, not observed: node -> value
        # Handed out, not observed, of a shape that may be a trap or a copy: node -> shape.
        self._suspects: dict[int, str] = {}
        self._unsaved: dict[int, PageVerdict] = {}  # page id -> verdict not written yet

    # --- The seam ------------------------------------------------------------------------

    def next_urls(self, limit: int) -> list[str]:
        if not self.focused:
            return self.frontier.next_batch(limit)
        if not self._adopted:
            self._adopt_frontier()
        picked: list[int] = []
        self._best_known: tuple[int, float] | None = None  # `_best_value` of this ask
        self._pick(picked, self.revisits, limit)
        self._explore(picked, limit)
        self._pick_downloads(picked, limit)
        if self.search is not None and len(picked) < limit:
            url = self.search.next_search(self._admit)
            if url is not None:
                picked.append(self.graph.node(url))
        if len(picked) < limit:
            if self.walking:
                self._walk(picked, limit)
            else:
                self._choose(picked, limit)
        self.handed += len(picked)
        self.blocked.update(picked)
        self._note_suspects(picked)
        for node in picked:
            self.priorities.handed(node)
        return [self.graph.urls[node] for node in picked]

    def observe(self, observation: PageObservation) -> None:
        if not self.focused or not self._arrived(observation):
            return
        node = self.graph.node(observation.url)
        self._come_back(node)
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
            if observation.kind == "information":
                self._note_article(node)
            for target in dict.fromkeys(t for t, _, _ in self.links[node]):
                self.linked_from.setdefault(target, []).append(node)
            if verdict.accepted and not was_authority:
                self.stats.authorities += 1
            self._note_affinity(node, observation, verdict, words)
            self._note_anchors(links)
            self._weigh_links(node, observation, links, reading)
            self._learn(observation, verdict, words)
            self._store_verdict(observation, verdict)
            if self.walking and node in self.walked:
                self.walk.arrive(node)
            if node in self.weights.hubs:
                self._raise_evidence(node)
                self._harvest(node, force=True)
            self._download_observed(node, verdict.accepted)
            if observation.url in self._seeds and observation.kind != "information":
                self._open_seed_list(node, links)
            if verdict.accepted and not was_authority:
                self.no_new_hubs = 0  # the walk still finds authorities
                self._find_hubs()
                self._hubs_around(node)
            self._harvest(node)
            self._maybe_find_search(observation)
            self._maybe_probe(node, observation)
        else:
            self.graph.add_page(observation.url, self.graph_targets(node), accepted=False)
            self.priorities.candidates.pop(node, None)
            self._download_observed(node, False)
        self._search_observed(observation, verdict, node)
        if not self.walking and self.walk.wants_restart():
            self._restart()

    def _arrived(self, observation: PageObservation) -> bool:
        """Note the address handed out as done; tell whether a page came with it.

        A redirect to a page fetched already brings none: a download that handed the
        address out counts the target's verdict for it.
        """
        if observation.requested is not None:
            # Handed out under this address: no longer pending, never to hand out again.
            self._come_back(self.graph.node(observation.requested))
        if observation.alias_of is None:
            return True
        node = self.graph.node(observation.url)
        self._come_back(node)
        self.priorities.candidates.pop(node, None)
        known = self.graph.index.get(observation.alias_of)
        self._download_observed(node, known is not None and self.graph.is_accepted(known))
        return False

    def _come_back(self, node: int) -> None:
        """Note that a page handed out came back: not pending, never handed out again."""
        self._pending.pop(node, None)
        self._suspects.pop(node, None)
        self.blocked.add(node)

    def accepts(self, observation: PageObservation) -> bool:
        if not self.focused:
            return super().accepts(observation)
        node = self.graph.index.get(observation.url)
        return node is not None and self.graph.is_accepted(node)

    def stop_reason(self) -> str | None:
        if self.focused and self.no_new_hubs >= self.config.max_iterations:
            return "no-new-hubs"
        return None

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
            "downloads": self.download_report(),
        }

    def read_ahead(self, fetched: FetchResult) -> Reader | None:
        """Have a new page read where it is analysed (`reading.read_page`): the list
        items around its links and the stems of its words, which the validator, the topic
        affinity and the learnt terms judge.

        Every link's item is read (which pages are fetched changes meanwhile); the URLs are
        made canonical with the aliases known now, without the frontier's memo, which the
        storing thread keeps.
        """
        if not self.focused or not fetched.body:
            return None
        return read_page, (dict(self.frontier.aliases), self.topic.language)

    def close(self) -> None:
        if self.focused:
            self._flush_verdicts()
            CrawlRun.objects.filter(id=self.run.id).update(
                download_fetches=self.download_fetches, download_relevant=self.download_accepted
            )

    def _admissible(self, url: str, depth: int) -> bool:
        return self.frontier.refusal(url, depth) is None

    def graph_targets(self, node: int) -> list[str]:
        """Return the URLs a node links to in the graph."""
        return [self.graph.urls[t] for t in self.graph.successors(node)]

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


@register
class XCrawlHits(XCrawl):
    """xCrawl weighing nodes by HITS alone."""

    name = "xcrawl-hits"
    variant = Variant.HITS.value


@register
class XCrawlPageRank(XCrawl):
    """xCrawl weighing nodes by HITS and plain (not topic-sensitive) PageRank."""

    name = "xcrawl-pagerank"
    variant = Variant.HITS_PAGERANK.value


@register
class XCrawlEvidence(XCrawl):
    """xCrawl choosing by topical evidence alone (no node weights), for the ablation."""

    name = "xcrawl-evidence"
    pinned: ClassVar[dict[str, object]] = {"graph_share": 0.0}


@register
class XCrawlWalk(XCrawl):
    """xCrawl as a walk: the current page's best link while it is worth `walk_floor` of the
    best page known, restarts at authorities."""

    name = "xcrawl-walk"
    walking = True


@register
class XCrawlPaperWalk(XCrawlWalk):
    """xCrawl as the paper's walk: the current page's best link, whatever it is worth."""

    name = "xcrawl-walk-paper"
    pinned: ClassVar[dict[str, object]] = {"walk_floor": 0.0}
