"""DownloadAllAuthorities: the unfetched links beside a hub's links to authorities.

Part of `XCrawl` (crawler.strategies.xcrawl.strategy), on the state it keeps.
"""

from __future__ import annotations

from crawler.strategies.xcrawl.priority import TOPICAL
from crawler.strategies.xcrawl.walk import authority_subtrees, links_in_subtrees

# The most DownloadAllAuthorities adds to a link's evidence: below the value of an unread
# list page, so a list that only holds some authorities never outbids reading on.
HARVEST_SHARE = 0.15


class HarvestingHubs:
    """XCrawl's DownloadAllAuthorities, as evidence."""

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
