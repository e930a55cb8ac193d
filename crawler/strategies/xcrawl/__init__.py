"""xCrawl focused crawling (Shchekotykhin, Jannach, Friedrich): hubs, authorities, restarts.

Registered strategies: "xcrawl" (HITS + topic-sensitive PageRank, the paper's best), and for
comparison "xcrawl-hits" (HITS only) and "xcrawl-pagerank" (HITS + plain PageRank).
"""

from crawler.conf import XcrawlSettings, xcrawl_settings
from crawler.strategies.base import register
from crawler.strategies.xcrawl.strategy import XCrawl, XcrawlStats
from crawler.strategies.xcrawl.weights import GraphWeights, Variant


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


__all__ = [
    "GraphWeights",
    "Variant",
    "XCrawl",
    "XCrawlHits",
    "XCrawlPageRank",
    "XcrawlSettings",
    "XcrawlStats",
    "xcrawl_settings",
]
