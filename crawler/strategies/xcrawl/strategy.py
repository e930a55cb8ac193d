"""The xCrawl strategy: a focused walk over the site's web graph towards hubs of authorities.

Per run (the paper's per-site loop, on the stored graph of earlier runs):

1. Topic: the site's keywords (crawler.topic) plus the TF-IDF tokens of its sample
   documents; the validator (`crawler.strategies.xcrawl.validator`) accepts authorities.
2. Known hubs and seeds due for a revisit are fetched first (new links appear there).
3. GetAuthorities: when the site has a search (admin template, or a GET search form found on
   a seed), generated queries are searched there and their first results validated.
4. The walk: start at a random known authority (or a seed), follow the heaviest link to a
   page not fetched yet, validate it, restart with probability p; at each restart FindHubs
   (HITS, authorities fixed) and, for every new hub, DownloadAllAuthorities: every link in
   the DOM subtree that holds its links to authorities. The walk ends when
   `max_iterations` restarts in a row found no new hub; a last DownloadAllAuthorities pass
   over every hub follows ("no-new-hubs").

Deviation from the paper, on purpose: DownloadAllAuthorities runs as soon as a hub is found
("eager", XCRAWL_DOWNLOAD_ALL), not only after the walk, because runs here are capped by a
page budget that the walk alone would spend. "end" restores the paper's order.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass
from typing import ClassVar

from django.db.models import Q
from django.utils import timezone

from analyzer.text import stems, tokenize
from crawler.conf import XcrawlSettings, xcrawl_settings
from crawler.models import Link, Page
from crawler.models.sitesearch import SiteSearch
from crawler.models.xcrawl import PageVerdict
from crawler.sitesearch.template import is_search_url
from crawler.strategies.base import PageObservation, Strategy, register
from crawler.strategies.xcrawl.authorities import GetAuthorities
from crawler.strategies.xcrawl.graph import WebGraph
from crawler.strategies.xcrawl.querygen import QueryPlanner, topic_tokens, topic_with_tokens
from crawler.strategies.xcrawl.samples import sample_texts
from crawler.strategies.xcrawl.validator import Verdict, required_score, topic_affinity, validate
from crawler.strategies.xcrawl.walk import (
    PageLink,
    Walk,
    authority_subtrees,
    best_unvisited,
    links_in_subtrees,
)
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
        self.downloads: deque[int] = deque()
        self.harvested: set[int] = set()  # hubs whose subtree was queued
        self.walk_pending: int | None = None
        self.no_new_hubs = 0
        self.walk_done = False
        self.final_pass = False
        self.search: GetAuthorities | None = None
        self.search_template: str | None = None  # the site's search, known or detected
        self._searches: set[int] = set()  # nodes that are pages of that search
        self._scanned = 0  # graph nodes checked for being search pages
        self.search_checked = False
        self._last_was_walk = False
        self._observed_since_walk = 0

    # --- The seam ------------------------------------------------------------------------

    def next_urls(self, limit: int) -> list[str]:
        if not self.focused:
            return self.frontier.next_batch(limit)
        picked: list[int] = []
        self._unstick_walk()
        self._pick(picked, self.revisits, limit)
        if self.search is not None and len(picked) < limit:
            url = self.search.next_search(self._admit)
            if url is not None:
                picked.append(self.graph.node(url))
        # Walk steps and DownloadAllAuthorities take turns when only one URL is asked for.
        offers = [self._offer_walk, self._offer_downloads]
        if self._last_was_walk:
            offers.reverse()
        for offer in offers:
            if len(picked) < limit:
                offer(picked, limit)
        self.blocked.update(picked)
        if not picked:
            logger.debug(
                "nothing to offer: pending %s, walk done %s, restarts without hub %d, open %d",
                self.walk_pending and self.graph.urls[self.walk_pending],
                self.walk_done,
                self.no_new_hubs,
                int((~self.graph.visited()).sum()) - len(self.blocked),
            )
        return [self.graph.urls[node] for node in picked]

    def observe(self, observation: PageObservation) -> None:
        if not self.focused:
            return
        node = self.graph.node(observation.url)
        self.blocked.add(node)
        verdict = self._verdict(node, observation)
        if observation.ok:
            links = [
                link
                for link in observation.links
                if self._admissible(link.url, observation.depth + 1)
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
            self._note_affinity(node, observation, verdict)
            self._note_anchors(links)
            self._store_verdict(observation, verdict)
            if node in self.weights.hubs:
                self._harvest(node, force=True)
            self._maybe_find_search(observation)
            self._maybe_probe(node, observation)
        else:
            self.graph.add_page(observation.url, self.graph_targets(node), accepted=False)
        self._search_observed(observation, verdict, node)
        if self.walk_pending is not None and node != self.walk_pending:
            self._observed_since_walk += 1
        if node == self.walk_pending:
            self.walk_pending = None
            self.walk.arrive(node)
            if self.walk.wants_restart():
                self._restart()

    def _offer_walk(self, picked: list[int], limit: int) -> None:
        if self.walk_pending is not None or self.walk_done:
            return
        step = self._walk_step()
        if step is not None and step not in picked:
            self.walk_pending = step
            self._observed_since_walk = 0
            picked.append(step)
            self.stats.walk_steps += 1
            self._last_was_walk = True

    def _offer_downloads(self, picked: list[int], limit: int) -> None:
        if self.config.download_all != "eager" and not self.walk_done:
            return
        before = len(picked)
        self._pick(picked, self.downloads, limit)
        if len(picked) > before:
            self.stats.downloads += len(picked) - before
            self._last_was_walk = False

    def accepts(self, observation: PageObservation) -> bool:
        if not self.focused:
            return super().accepts(observation)
        node = self.graph.index.get(observation.url)
        return node is not None and self.graph.is_accepted(node)

    def stop_reason(self) -> str | None:
        if not self.focused or not self.walk_done:
            return None
        if self.downloads or self.revisits or (self.search is not None and not self.search.done):
            return None
        return "no-new-hubs"

    # --- The walk ------------------------------------------------------------------------

    def _unstick_walk(self) -> None:
        """Restart when the walk's page was fetched under another URL (a redirect)."""
        if self.walk_pending is None or not self._observed_since_walk:
            return
        self._observed_since_walk = 0
        url = self.graph.urls[self.walk_pending]
        fetched = Page.objects.filter(
            site=self.site, url=url, last_fetched_at__gte=self.run.started_at
        ).exists()
        if fetched:
            self.graph.add_page(url, self.graph_targets(self.walk_pending))
            self.walk_pending = None
            self._restart()

    def _walk_step(self) -> int | None:
        """Return the next page of the walk, restarting at dead ends."""
        if self.walk.current is None:
            self._restart()
        weights = self.weights.weights()
        origin = self.walk.current
        step = self.walk.choose(weights, self._open)
        how = "walk"
        if step is None:
            how = "dead end, heaviest page"
            step = best_unvisited(weights, self.graph, self.blocked | self._search_nodes())
            if step is not None:
                self.walk.start_at(step)
        if step is not None and logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "step %s: %s -> %s (weight %.4g, from %s)",
                how,
                self.graph.urls[origin] if origin is not None else None,
                self.graph.urls[step],
                weights[step] if step < len(weights) else float("nan"),
                self.graph.urls[self.walk.current] if self.walk.current is not None else None,
            )
        return step

    def _restart(self) -> None:
        """FindHubs, queue the new hubs' authorities, and start again at a random authority."""
        self.stats.restarts += 1
        new_hubs = self.weights.find_hubs() if self.graph.accepted().any() else set()
        logger.debug(
            "restart %d: %d new hubs %s, %d downloads queued",
            self.stats.restarts,
            len(new_hubs),
            [self.graph.urls[h] for h in sorted(new_hubs)][:5],
            len(self.downloads),
        )
        if new_hubs:
            self.no_new_hubs = 0
            self.stats.hubs += len(new_hubs)
            for hub in sorted(new_hubs):
                self._harvest(hub)
            self._store_hubs(new_hubs)
        else:
            self.no_new_hubs += 1
            if self.no_new_hubs >= self.config.max_iterations:
                self.walk_done = True
                self._final_pass()
        authorities = sorted(int(n) for n in self.graph.accepted().nonzero()[0])
        if authorities:
            self.walk.start_at(self.rng.choice(authorities))
        elif self.weights.affinity:
            # No authority yet: start where the content came closest to the topic.
            top = max(self.weights.affinity.values())
            self.walk.start_at(
                self.rng.choice(sorted(n for n, a in self.weights.affinity.items() if a == top))
            )
        else:
            seeds = [self.graph.node(url) for url in self._seeds]
            self.walk.start_at(self.rng.choice(seeds))

    def _search_nodes(self) -> set[int]:
        """Return the graph's pages of the site's search (scanning only the nodes added since)."""
        template = self.search_template
        if template is not None:
            for node in range(self._scanned, len(self.graph)):
                if is_search_url(self.graph.urls[node], template):
                    self._searches.add(node)
            self._scanned = len(self.graph)
        return self._searches

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
        """Queue every unfetched link in the hub's subtree that holds links to authorities."""
        if hub in self.harvested and not force:
            return
        self.harvested.add(hub)
        links = self.links.get(hub, [])
        subtrees = authority_subtrees(links, self.graph.is_accepted)
        for target in links_in_subtrees(links, subtrees):
            if self._open(target) and target not in self.downloads:
                self.downloads.append(target)

    def _final_pass(self) -> None:
        """Run DownloadAllAuthorities over every hub with the authorities known now."""
        self.final_pass = True
        for hub in sorted(self.weights.hubs):
            self._harvest(hub, force=True)

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
        version = (
            Page.objects.get(id=observation.page_id).latest_version()
            if observation.page_id
            else None
        )
        body = version.raw_body() if version is not None else None
        template = (
            SiteSearch.objects.find_template(self.site, body, observation.url) if body else None
        )
        if template is None:
            return
        self._start_search(template)

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

    def _verdict(self, node: int, observation: PageObservation) -> Verdict:
        if not observation.ok:
            return Verdict(False, reason=str(observation.error or "fetch failed"))
        if observation.analysis is None and node in self.verdicts:
            return Verdict(self.verdicts[node], reason="unchanged since validated")
        return validate(observation.analysis, self.topic, min_score=self.config.validator_min_score)

    def _note_affinity(self, node: int, observation: PageObservation, verdict: Verdict) -> None:
        if verdict.accepted or observation.analysis is None:
            self.weights.affinity.pop(node, None)
            return
        affinity = topic_affinity(
            observation.analysis, self.topic, min_score=self.config.validator_min_score
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
        language = self.topic.language
        for link in links:
            if not link.anchor:
                continue
            score = self.topic.score(stems(tokenize(link.anchor), language)) / needed
            if score > 0:
                target = self.graph.index[link.url]
                best = self.weights.anchor_affinity.get(target, 0.0)
                self.weights.anchor_affinity[target] = max(best, min(1.0, score))

    def _store_verdict(self, observation: PageObservation, verdict: Verdict) -> None:
        if observation.page_id is None or observation.analysis is None:
            return
        PageVerdict.objects.update_or_create(
            page_id=observation.page_id,
            defaults={
                "accepted": verdict.accepted,
                "score": verdict.score,
                "validated_at": timezone.now(),
            },
        )

    def _store_hubs(self, hubs: set[int]) -> None:
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
