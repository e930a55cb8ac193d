"""What the monitored audience cares about, as the crawler sees it: weighted stemmed terms.

The crawler never imports `clipping`. Clipping builds the topic (the union of everyone's
keywords, stemmed) and registers a provider in its AppConfig.ready:

    from crawler.topic import Topic, register_topic_provider
    register_topic_provider(lambda site: Topic(terms={"elect": 2.0}, language="en"))

Until a provider is registered, `get_topic(site)` returns an empty topic.

Clipping also registers the keyword matcher, which tells which short texts (a teaser, a link's
text) hold a keyword of someone who may read the site, as the keyword index matches them
(forms and synonyms included). Without one, `keyword_matcher` matches the topic's stems.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crawler.models import Site


@dataclass(frozen=True)
class Topic:
    """Weighted stemmed terms (stem -> weight > 0) and the language they were stemmed in."""

    terms: Mapping[str, float] = field(default_factory=dict)
    language: str = "en"
    # Multi-word keywords as tuples of stems; a page matches one when all its stems occur.
    phrases: tuple[tuple[str, ...], ...] = ()
    # Users' keywords as they wrote them (keyword -> weight > 0): what site search boxes are
    # given (crawler.hiddenweb); stems would find nothing in most sites' search engines.
    queries: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for term, weight in self.terms.items():
            if not term or weight <= 0:
                raise ValueError(f"Topic term {term!r} needs a non-empty stem and a weight > 0.")
        for query, weight in self.queries.items():
            if not query.strip() or weight <= 0:
                raise ValueError(f"Topic query {query!r} needs text and a weight > 0.")
        object.__setattr__(self, "terms", MappingProxyType(dict(self.terms)))
        object.__setattr__(self, "queries", MappingProxyType(dict(self.queries)))

    def is_empty(self) -> bool:
        """Tell whether the topic has no terms at all."""
        return not self.terms and not self.phrases

    def score(self, stems: Iterable[str]) -> float:
        """Return the summed weight of the topic terms found among `stems` (each counted once)."""
        found = set(stems)
        total = sum(weight for term, weight in self.terms.items() if term in found)
        total += sum(1.0 for phrase in self.phrases if all(part in found for part in phrase))
        return total


EMPTY_TOPIC = Topic()

TopicProvider = Callable[["Site"], Topic]
_provider: TopicProvider | None = None
# (site, texts) -> for each text, whether it holds a keyword someone asked for on the site
KeywordMatcher = Callable[["Site", list[str]], list[bool]]
_matcher: KeywordMatcher | None = None


def register_topic_provider(provider: TopicProvider | None) -> None:
    """Install the callable that builds a site's topic (None removes it)."""
    global _provider
    _provider = provider


def get_topic(site: Site) -> Topic:
    """Return the topic for crawling `site`: the registered provider's, else an empty one."""
    if _provider is None:
        return EMPTY_TOPIC
    topic = _provider(site)
    if not isinstance(topic, Topic):
        raise TypeError(f"The topic provider returned {type(topic).__name__}, not a Topic.")
    return topic


def register_keyword_matcher(matcher: KeywordMatcher | None) -> None:
    """Install the callable that tells which texts hold a keyword (None removes it)."""
    global _matcher
    _matcher = matcher


def keyword_matcher(site: Site, topic: Topic) -> Callable[[list[str]], list[bool]]:
    """Return a function telling, for each text, whether it holds a keyword read on `site`."""
    if _matcher is not None:
        matcher = _matcher
        return lambda texts: matcher(site, texts) if texts else []

    from analyzer.text import stems, tokenize

    def by_stems(texts: list[str]) -> list[bool]:
        return [topic.score(stems(tokenize(text), topic.language)) > 0 for text in texts]

    return by_stems
