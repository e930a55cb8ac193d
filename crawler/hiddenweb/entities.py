"""Entity-like names recurring on a site's pages: more things to search for.

He et al. name entities bootstrapped from crawled pages as the next source of queries after
query logs and knowledge bases; HiWE's LVS table learns values from the pages the crawler
reads. Both need the same thing: the names a site keeps mentioning around what people look
for. Here a name is a run of one to four capitalised words (joined by "of", "de", "van"...
inside it), stop words at either end dropped ("The", "In"), no digits, not a keyword
already searched. It must recur: found on at least `min_pages` pages. Text a site
repeats on every page of a kind (its template: "Sort by", "Related searches") is left out
first: a block found word for word on more than half of the pages; the session also
leaves out the names of the form's own page (section names, "Search").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from analyzer.text import stems, stopwords, tokenize

ENTITY = "entity"  # a search log's form: a name bootstrapped from result pages
_JOINERS = r"(?:of|de|del|der|van|von|la|le|du|da)"
_WORD = r"[A-Z][\w'’.-]*[\w]"
_NAME = re.compile(rf"\b{_WORD}(?:[^\S\n]+(?:{_JOINERS}[^\S\n]+)?{_WORD}){{0,3}}")  # within a line
MAX_NAME_CHARS = 60


def page_blocks(pages: Sequence[Sequence[str]]) -> list[list[str]]:
    """Return each page's text blocks without those most pages repeat word for word."""
    if len(pages) < 3:
        return [list(blocks) for blocks in pages]
    seen = Counter(block for blocks in pages for block in set(blocks))
    common = {block for block, count in seen.items() if count * 2 > len(pages)}
    return [[block for block in blocks if block not in common] for blocks in pages]


def names_in(text: str, language: str = "en") -> set[str]:
    """Return the entity-like names of a text (capitalised runs, stop words trimmed).

    A lone capitalised word counts only where a sentence does not start ("Report", "Central"
    at the head of a sentence are no names); calendar words and contractions never count.
    """
    stop = stopwords(language) | _CALENDAR
    found: set[str] = set()
    for match in _NAME.finditer(text):
        words = [_base(word) for word in match.group(0).split()]
        first = len(words)
        while words and _stop(words[0], stop):
            words = words[1:]
        led = len(words) < first  # "In Zelmora": the name itself does not start the sentence
        while words and _stop(words[-1], stop):
            words = words[:-1]
        name = " ".join(words)
        if not name or len(name) > MAX_NAME_CHARS or any(c.isdigit() for c in name):
            continue
        initial = not led and _starts_sentence(text, match.start())
        if len(words) == 1 and (len(name) <= 2 or initial):
            continue
        found.add(name)
    return found


_CALENDAR = frozenset(
    [
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "january",
        "february",
        "march",
        "april",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "today",
        "yesterday",
    ]
)


def _base(word: str) -> str:
    """Return a word without a possessive ending ("Porto's" -> "Porto")."""
    for ending in ("'s", "’s"):
        if word.endswith(ending):
            return word[: -len(ending)]
    return word


def _stop(word: str, stop: frozenset[str]) -> bool:
    """Tell whether a word is a stop word, a contraction of one ("I've") included."""
    return word.lower() in stop or re.split("['’]", word)[0].lower() in stop


def _starts_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip(' \t"“‘(')
    return not before or before[-1] in ".!?:\n"


def recurring_names(
    pages: Sequence[Sequence[str]],
    *,
    exclude: Iterable[str] = (),
    min_pages: int = 2,
    limit: int = 10,
    language: str = "en",
) -> list[str]:
    """Return up to `limit` names found on at least `min_pages` pages, most pages first.

    `pages` holds each page's text blocks; names that stem like one of `exclude` (the
    keywords and texts already searched) are left out, as are names inside a longer name
    found on as many pages.
    """
    done = {_key(text, language) for text in exclude}
    counts: Counter[str] = Counter()
    for blocks in page_blocks(pages):
        counts.update(names_in("\n".join(blocks), language))
    ranked = sorted(
        (name for name, count in counts.items() if count >= min_pages),
        key=lambda name: (-counts[name], -len(name.split()), name),
    )
    chosen: list[str] = []
    for name in ranked:
        key = _key(name, language)
        if key in done or any(key in _key(longer, language) for longer in chosen):
            continue
        chosen.append(name)
        done.add(key)
        if len(chosen) >= limit:
            break
    return chosen


def _key(text: str, language: str) -> str:
    return " ".join(stems(tokenize(text), language))


def near_topic(pages: Sequence[Sequence[str]], topic: Iterable[str], language: str = "en") -> list:
    """Return the pages whose text holds one of the `topic` stems (the users' keywords)."""
    wanted = set(topic)
    return [
        blocks for blocks in pages if wanted & set(stems(tokenize("\n".join(blocks)), language))
    ]
