"""xCrawl's automatic query generation: GetTokens, search weights, and the query order.

1. GetTokens: tokenise the sample documents, drop stop words, weigh every token by TF-IDF
   and return them heaviest first. Keywords given without samples weigh 1 each.
2. Search weight: a token's hit count (one query per token) divided by the largest count,
   so the most common token weighs 1 and a token nobody has weighs 0.
3. The two weights are combined by their harmonic mean and the tokens sorted by it.
4. Queries are built from the middle of that list outwards (neither the rarest nor the
   commonest tokens first), every combination up to the maximum length, longest first;
   only tokens of one group are combined (the words of one user's keyword; the sample
   documents' words are one group): unrelated people's keywords never share a query.
5. Generation stops after `max_iterations` queries in a row that found no new authority.

`QueryPlanner` holds that state so a caller can run the queries one at a time (a crawl run
fetching search pages through its own loop, or a synchronous search provider).

A site's own search box is given words people write, never stems: a topic's tokens take the
users' keywords as written (`topic_tokens`), and `KeywordForms` hands out what to type for
each keyword (a phrase quoted, then unquoted where the site ignores quotes; inflections and
synonyms where the site does not stem), learning from the answers what the search does.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

from analyzer.text import stems, stopwords, tokenize
from crawler.topic import Topic


@dataclass(frozen=True)
class Token:
    """A query token: the word as written, its stem, and its weights in [0, 1]."""

    text: str
    stem: str
    tfidf: float = 1.0
    search_weight: float | None = None  # None until its hit count is known
    # What the token belongs to: one user's keyword, or "" (the samples' words); only tokens
    # of one group are combined in a query.
    group: str = ""

    @property
    def combined(self) -> float:
        """Return the harmonic mean of TF-IDF and search weight (TF-IDF alone before search)."""
        if self.search_weight is None:
            return self.tfidf
        return harmonic_mean(self.tfidf, self.search_weight)


def harmonic_mean(a: float, b: float) -> float:
    """Return 2ab / (a + b), 0 when either is 0."""
    if a <= 0 or b <= 0:
        return 0.0
    return 2 * a * b / (a + b)


def get_tokens(documents: Sequence[str], language: str = "en", *, limit: int = 50) -> list[Token]:
    """Return the samples' tokens weighted by TF-IDF (max-normalised), heaviest first.

    1. Tokens are lower-cased words; stop words, one-letter words and numbers are dropped.
    2. tf = count / tokens of the document; idf = ln((1 + N) / (1 + df)) + 1 (smoothed, so a
       single sample still ranks its words by frequency); a token's weight is its summed
       tf-idf over the samples, divided by the largest.
    3. Words sharing a stem count as one token, written as its commonest spelling.
    """
    common = stopwords(language)
    per_document: list[Counter[str]] = []
    spellings: dict[str, Counter[str]] = {}
    for document in documents:
        words = [
            w for w in tokenize(document) if len(w) > 1 and not w.isdigit() and w not in common
        ]
        counts: Counter[str] = Counter()
        for word, stem in zip(words, stems(words, language), strict=True):
            counts[stem] += 1
            spellings.setdefault(stem, Counter())[word] += 1
        if counts:
            per_document.append(counts)
    if not per_document:
        return []
    total_documents = len(per_document)
    frequency: Counter[str] = Counter()
    for counts in per_document:
        frequency.update(counts.keys())
    scores: Counter[str] = Counter()
    for counts in per_document:
        length = sum(counts.values())
        for stem, count in counts.items():
            idf = math.log((1 + total_documents) / (1 + frequency[stem])) + 1
            scores[stem] += count / length * idf
    top = max(scores.values())
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [
        Token(text=spellings[stem].most_common(1)[0][0], stem=stem, tfidf=score / top)
        for stem, score in ranked
    ]


def keyword_tokens(words: Iterable[str], language: str = "en") -> list[Token]:
    """Return tokens for keywords given without samples: weight 1 each, in the order given."""
    seen: dict[str, Token] = {}
    for word in words:
        word = word.strip().lower()
        if word and (stem := stems([word], language)[0]) not in seen:
            seen[stem] = Token(text=word, stem=stem, tfidf=1.0)
    return list(seen.values())


def topic_tokens(topic: Topic, samples: Sequence[str], *, limit: int = 50) -> list[Token]:
    """Return the tokens of a topic: its terms (weight 1) then the samples' TF-IDF tokens.

    A topic holds stems; a term takes the written form of the user's keyword it came from
    (`Topic.queries`), else of the samples, else stays a stem. A multi-word keyword becomes
    one token written as the user wrote it, so it is searched as a phrase.
    """
    sampled = get_tokens(samples, topic.language, limit=limit)
    by_stem = {token.stem: token for token in sampled}
    written = written_forms(topic.queries, topic.language)
    groups = keyword_groups(topic.queries, topic.language)
    tokens = [
        Token(written[stem], stem, group=groups.get(stem, ""))
        if stem in written
        else replace(by_stem.get(stem, Token(stem, stem)), tfidf=1.0, group=groups.get(stem, ""))
        for stem in topic.terms
    ]
    known = {token.stem for token in tokens}
    for query in topic.queries:
        words = tokenize(query)
        stem = " ".join(stems(words, topic.language))
        if len(words) > 1 and stem not in known:
            known.add(stem)
            tokens.append(Token(" ".join(words), stem, group=query.strip().lower()))
    tokens += [token for token in sampled if token.stem not in known]
    return tokens[: max(limit, len(topic.terms))]


def keyword_groups(queries: Iterable[str], language: str = "en") -> dict[str, str]:
    """Return stem -> the one keyword it belongs to (a group of its own when several share it)."""
    found: dict[str, str] = {}
    for query in queries:
        for stem in stems(tokenize(query), language):
            group = query.strip().lower()
            found[stem] = group if found.setdefault(stem, group) == group else f"\x00{stem}"
    return found


def written_forms(queries: Iterable[str], language: str = "en") -> dict[str, str]:
    """Return stem -> the users' single-word keyword written with it (lower case)."""
    found: dict[str, str] = {}
    for query in queries:
        words = tokenize(query)
        if len(words) == 1:
            found.setdefault(stems(words, language)[0], words[0])
    return found


def topic_with_tokens(topic: Topic, tokens: Iterable[Token]) -> Topic:
    """Return the topic with the tokens' stems added (a topic term keeps its own weight)."""
    terms = dict(topic.terms)
    for token in tokens:
        if " " in token.stem:
            continue  # a phrase: the topic keeps it among its phrases
        if token.stem not in terms and token.tfidf > 0:
            terms[token.stem] = token.tfidf
    return Topic(terms=terms, language=topic.language, phrases=topic.phrases, queries=topic.queries)


def search_weights(hits: dict[str, int]) -> dict[str, float]:
    """Return each token's hit count divided by the largest count (all 0 if none has hits)."""
    top = max(hits.values(), default=0)
    return {token: (count / top if top > 0 else 0.0) for token, count in hits.items()}


def middle_out(items: Sequence[str]) -> list[str]:
    """Return items from the middle of the list outwards: m, m-1, m+1, m-2, m+2, ..."""
    middle = len(items) // 2
    order: list[str] = []
    for distance in range(len(items)):
        for index in (middle - distance, middle + distance) if distance else (middle,):
            if 0 <= index < len(items):
                order.append(items[index])
    return order


def query_combinations(
    order: Sequence[str], max_length: int = 3, groups: Mapping[str, str] | None = None
) -> Iterator[tuple[str, ...]]:
    """Yield every combination of tokens up to `max_length`, longest first, centre first.

    Within one length, a combination using the k-th token of `order` comes only after all
    combinations of the first k - 1 tokens, so the central tokens are tried together first.
    With `groups` (token -> group), only tokens of one group are combined.
    """
    longest = min(max_length, len(order))
    for size in range(longest, 0, -1):
        for last in range(size - 1, len(order)):
            for rest in combinations(range(last), size - 1):
                combination = tuple(order[index] for index in (*rest, last))
                if size == 1 or groups is None or _one_group(combination, groups):
                    yield combination


def _one_group(tokens: Sequence[str], groups: Mapping[str, str]) -> bool:
    return len({groups.get(token, "") for token in tokens}) == 1


@dataclass(frozen=True)
class Query:
    """One query to send: its text, its tokens, and whether it only measures a hit count."""

    text: str
    tokens: tuple[str, ...]
    measure: bool = False


class QueryPlanner:
    """Hand out xCrawl's queries one at a time and stop when they stop finding authorities."""

    def __init__(
        self,
        tokens: Sequence[Token],
        *,
        max_length: int = 3,
        max_iterations: int = 50,
        max_queries: int | None = None,
        measure: bool = True,
    ) -> None:
        if max_length < 1 or max_iterations < 1:
            raise ValueError("max_length and max_iterations must be at least 1.")
        self.tokens = {token.text: token for token in tokens}
        self.max_length = max_length
        self.max_iterations = max_iterations
        self.max_queries = max_queries
        self.misses = 0  # queries in a row without a new authority
        self.sent = 0
        self._hits: dict[str, int] = {}
        self._to_measure = list(self.tokens) if measure else []
        self._combinations: Iterator[tuple[str, ...]] | None = None
        self._measuring: set[str] = set()  # hit counts asked for and not recorded yet

    @property
    def done(self) -> bool:
        """Tell whether no query is left to send."""
        return self.misses >= self.max_iterations or (
            self.max_queries is not None and self.sent >= self.max_queries
        )

    def next_query(self) -> Query | None:
        """Return the next query, or None when generation is over or waits for hit counts."""
        if self.done:
            return None
        if self._to_measure:
            text = self._to_measure.pop(0)
            self._measuring.add(text)
            return Query(text=text, tokens=(text,), measure=True)
        if self._measuring:
            return None  # the order depends on hit counts still outstanding
        if self._combinations is None:
            groups = {text: token.group for text, token in self.tokens.items()}
            self._combinations = query_combinations(self.order(), self.max_length, groups)
        combination = next(self._combinations, None)
        if combination is None:
            self.misses = self.max_iterations
            return None
        self.sent += 1
        return Query(text=" ".join(combination), tokens=combination)

    def record_hits(self, token: str, hits: int | None) -> None:
        """Record a single-token query's hit count (None: unknown, counted as 0)."""
        self._hits[token] = max(0, hits or 0)
        self._measuring.discard(token)
        if not self._to_measure and not self._measuring:
            weights = search_weights({t: self._hits.get(t, 0) for t in self.tokens})
            self.tokens = {
                text: replace(token, search_weight=weights[text])
                for text, token in self.tokens.items()
            }

    def record_outcome(self, query: Query, new_authorities: int) -> None:
        """Record how many new authorities a query's results brought."""
        if query.measure:
            return
        self.misses = 0 if new_authorities > 0 else self.misses + 1

    def ranked(self) -> list[Token]:
        """Return the tokens sorted by combined weight, heaviest first."""
        return sorted(self.tokens.values(), key=lambda t: (-t.combined, t.text))

    def order(self) -> list[str]:
        """Return the tokens in query order: middle of the ranked list outwards."""
        return middle_out([token.text for token in self.ranked()])


# --- What to type into a site's search box -----------------------------------------------------

TYPED = "typed"  # the keyword as the user wrote it (a single word, or a phrase unquoted)
QUOTED = "quoted"  # a phrase in double quotes
INFLECTED = "inflected"  # another grammatical form of the keyword's (last) word
SYNONYM = "synonym"  # a WordNet synonym of the keyword

# Extra forms per keyword, sent only once every keyword has been searched as written.
EXTRA_INFLECTIONS = 2
EXTRA_SYNONYMS = 2


@dataclass(frozen=True)
class KeywordForm:
    """One text to type into a search box: for which keyword, and how it was made."""

    text: str
    keyword: str
    form: str  # TYPED, QUOTED, INFLECTED or SYNONYM

    @property
    def words(self) -> tuple[str, ...]:
        """Return the words the results should hold (quotes left out)."""
        return tuple(tokenize(self.text))


@dataclass
class SearchStyle:
    """What a site's search does, learnt from its first answers (None: not known yet).

    - quotes: a quoted phrase finds results the site has (False when a quoted phrase found
      nothing while its words unquoted did: the site reads the quotes as characters);
    - stems: an inflected form finds what the keyword found (True: the site stems or
      matches word forms itself, and inflected queries would only repeat results).
    """

    quotes: bool | None = None
    stems: bool | None = None

    def describe(self) -> str:
        """Return the style in words for logs and admins."""

        def say(value: bool | None, yes: str, no: str) -> str:
            return "?" if value is None else (yes if value else no)

        return (
            f"quotes {say(self.quotes, 'work', 'ignored')}, stemming {say(self.stems, 'yes', 'no')}"
        )


class KeywordForms:
    """Hand out what to type for each user's keyword and learn what the site's search does.

    1. `first(keyword)`: a word as written; a phrase quoted, unless the site is known to
       read quotes as characters, then unquoted.
    2. `after_quoted(keyword, had_results)`: when a quoted phrase found nothing and the site's
       quote support is unknown, the unquoted phrase is tried next; `learn_quotes` records
       what that pair taught.
    3. `extras(keyword)`: inflected forms (unless the site stems) and synonyms, for when every
       keyword was searched and the form's budget allows more.
    """

    def __init__(self, language: str = "en", style: SearchStyle | None = None) -> None:
        self.language = language
        self.style = style or SearchStyle()

    def first(self, keyword: str) -> KeywordForm:
        """Return the first text to type for `keyword`."""
        words = tokenize(keyword)
        if len(words) > 1 and self.style.quotes is not False:
            return KeywordForm(f'"{" ".join(keyword.split())}"', keyword, QUOTED)
        return KeywordForm(" ".join(keyword.split()), keyword, TYPED)

    def after_quoted(self, keyword: str, had_results: bool) -> KeywordForm | None:
        """Return the unquoted phrase to try after its quoted form, or None."""
        if had_results:
            if self.style.quotes is None:
                self.style.quotes = True
            return None
        return KeywordForm(" ".join(keyword.split()), keyword, TYPED)

    def learn_quotes(self, quoted_found: bool, unquoted_found: bool) -> None:
        """Record what a phrase searched quoted, then unquoted, says about quotes."""
        if unquoted_found and not quoted_found and self.style.quotes is None:
            self.style.quotes = False

    def learn_stems(self, keyword_results: set[str], inflected_results: set[str]) -> None:
        """Record whether an inflected form found exactly what its keyword found."""
        if self.style.stems is not None or not keyword_results:
            return
        self.style.stems = inflected_results == keyword_results

    def extras(self, keyword: str) -> list[KeywordForm]:
        """Return the inflected and synonym forms of `keyword` worth searching, best first."""
        words = tokenize(keyword)
        if not words:
            return []
        quoted = len(words) > 1 and self.style.quotes is True
        found: list[KeywordForm] = []
        seen = {" ".join(words)}
        if self.style.stems is not True and self.language == "en":
            own = stems([words[-1]], self.language)[0]
            for form in _variants(words[-1]):
                text = " ".join([*words[:-1], form])
                # Same stem: "subsidy" for "subsidies", never "struck" for "strike"; in a
                # phrase only the noun's number changes ("wind farms", not "wind farmed").
                same = stems([form], self.language)[0] == own
                if (
                    text not in seen
                    and same
                    and (len(words) == 1 or _other_number(form, words[-1]))
                ):
                    seen.add(text)
                    found.append(KeywordForm(_quote(text, quoted), keyword, INFLECTED))
            found = found[:EXTRA_INFLECTIONS]
        synonyms_found = 0
        for synonym in _synonyms(" ".join(words), self.language):
            text = " ".join(tokenize(synonym))
            if text and text not in seen and synonyms_found < EXTRA_SYNONYMS:
                seen.add(text)
                synonyms_found += 1
                found.append(KeywordForm(_quote(text, " " in text and quoted), keyword, SYNONYM))
        return found


def _other_number(form: str, word: str) -> bool:
    """Tell whether `form` is `word` in the other grammatical number ("farm", "farms")."""
    singular, plural = (form, word) if len(form) < len(word) else (word, form)
    return plural in {f"{singular}s", f"{singular}es"} or (
        singular.endswith("y") and plural == f"{singular[:-1]}ies"
    )


def _quote(text: str, quoted: bool) -> str:
    return f'"{text}"' if quoted else text


def _variants(word: str) -> tuple[str, ...]:
    from analyzer.text.wordnet import variants

    try:
        return variants(word)
    except LookupError:  # WordNet's data is not installed: the word alone
        return (word,)


def _synonyms(phrase: str, language: str) -> list[str]:
    from analyzer.text import TextDataMissing, synonyms

    try:
        return synonyms(phrase, language)
    except (TextDataMissing, LookupError):
        return []
