"""The crawler's topic: the union of the stemmed terms of every active keyword list.

Registered as crawler.topic's provider in ClippingConfig.ready. A site gets the terms of the
lists that may match on it (site: lines respected). The union is rebuilt only when the
active lists change (their count or newest update), and cached for all workers.
"""

from __future__ import annotations

import math
from collections import Counter

from django.core.cache import cache
from django.db.models import Count, Max

from analyzer.text import stems
from clipping.matching.live import current_index
from clipping.models import KeywordList
from clipping.terms import Term, TermSyntaxError, host_within, normalize_host, parse_terms
from crawler.topic import Topic

CACHE_SECONDS = 600


def topic_for_site(site: object) -> Topic:
    """Return the weighted stems every list that may match on this site asks for."""
    hosts = [normalize_host(host) for host in site.host_list()]  # type: ignore[attr-defined]
    state = KeywordList.objects.active().aggregate(count=Count("id"), newest=Max("updated_at"))
    stamp = f"{state['count']}:{state['newest'].timestamp() if state['newest'] else 0}"
    key = f"clipping:topic:v2:{stamp}:{','.join(sorted(hosts))}"
    cached = cache.get(key)
    if cached is None:
        topic = build_topic(hosts)
        # Topic holds a read-only mapping that does not pickle; the cache keeps plain parts.
        parts = (dict(topic.terms), topic.language, topic.phrases, dict(topic.queries))
        cache.set(key, parts, CACHE_SECONDS)
        return topic
    terms, language, phrases, queries = cached
    return Topic(terms=terms, language=language, phrases=phrases, queries=queries)


def keyword_hits(site: object, texts: list[str]) -> list[bool]:
    """Tell, for each text, whether the keyword index matches a list in it on this site."""
    hosts = site.host_list()  # type: ignore[attr-defined]
    host = normalize_host(hosts[0]) if hosts else None
    index = current_index()
    # One match over them all first: most pages name nobody's keyword, and a text holds a
    # keyword only if the texts together do (a list's exclusion found in another text is
    # the exception: such a link is simply not put first).
    if not texts or not index.match("\n".join(texts), host=host):
        return [False] * len(texts)
    return [bool(index.match(text, host=host)) for text in texts]


def build_topic(hosts: list[str]) -> Topic:
    """Return the topic of the active lists that may match on any of these hosts."""
    weights: Counter[str] = Counter()
    queries: Counter[str] = Counter()  # keywords as written, for site search forms
    phrases: set[tuple[str, ...]] = set()
    languages: Counter[str] = Counter()
    rows = KeywordList.objects.active().values_list("terms", "language")
    for text, language in rows.iterator(chunk_size=2000):
        try:
            terms = parse_terms(text)
        except TermSyntaxError:
            continue  # a list saved before a rule tightened: it matches nothing either
        if not _may_match(terms, hosts):
            continue
        languages[language] += 1
        for term in terms:
            if term.exclude or term.is_site or term.is_pattern:
                continue  # a pattern has no words to weigh or search for
            queries[" ".join(term.words)] += 1
            stemmed = tuple(stems(list(term.words), language))
            if len(stemmed) == 1:
                weights[stemmed[0]] += 1
            else:
                phrases.add(stemmed)
    language = languages.most_common(1)[0][0] if languages else "en"
    # A term many lists share counts more, but no term may drown the rest.
    return Topic(
        terms={stem: 1.0 + math.log(count) for stem, count in weights.items() if stem},
        language=language,
        phrases=tuple(sorted(phrases)),
        queries={query: 1.0 + math.log(count) for query, count in queries.items() if query},
    )


def _may_match(terms: list[Term], hosts: list[str]) -> bool:
    """Tell whether a list's site: lines let it match on any of the hosts."""
    sites = [term.site for term in terms if term.is_site and not term.exclude]
    excluded = [term.site for term in terms if term.is_site and term.exclude]
    for host in hosts or [""]:
        if sites and not any(host_within(host, site) for site in sites):
            continue
        if any(host_within(host, site) for site in excluded):
            continue
        return True
    return False
