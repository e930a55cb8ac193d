"""The index finds exactly what the naive per-list loop finds, on generated lists and texts."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clipping.matching import KeywordIndex, ListSpec, NaiveMatcher
from clipping.terms import parse_terms

# Words with shared stems ("election"/"elections"), WordNet synonyms ("car"/"automobile"),
# words inside phrases ("stock market"), phrases matched by parts ("rail strike" as "rail work
# stoppages"), stop words, and Greek inflections.
WORDS = [
    "rail",
    "strike",
    "strikes",
    "work",
    "stoppage",
    "stoppages",
    "measles",
    "rubeola",
    "outbreak",
    "autos",
    "car",
    "cars",
    "automobile",
    "auto",
    "machine",
    "stock",
    "stocks",
    "market",
    "markets",
    "bank",
    "banks",
    "river",
    "subsidy",
    "subsidies",
    "election",
    "elections",
    "vote",
    "budget",
    "the",
    "of",
    "a",
    "in",
    "climate",
    "change",
    "global",
    "κυβέρνηση",
    "κυβέρνησης",
    "εκλογές",
    "εκλογών",
]
HOSTS = [None, "example.com", "news.example.com", "other.org"]

words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3)


@st.composite
def term_lines(draw: st.DrawFn) -> str:
    """Return one line: a word or words, maybe quoted, maybe excluded, or a site: line."""
    kind = draw(st.sampled_from(["word", "word", "phrase", "exclude", "site", "not-site"]))
    if kind == "site":
        return "site:" + draw(st.sampled_from(["example.com", "news.example.com"]))
    if kind == "not-site":
        return "-site:news.example.com"
    text = " ".join(draw(words))
    if kind == "phrase" or (kind == "exclude" and draw(st.booleans())):
        text = f'"{text}"'
    return f"-{text}" if kind == "exclude" else text


@st.composite
def keyword_lists(draw: st.DrawFn, list_id: int) -> ListSpec:
    """Return a valid list: at least one term to look for, then anything."""
    lines = [" ".join(draw(words)), *draw(st.lists(term_lines(), max_size=5))]
    return ListSpec(
        id=list_id,
        language=draw(st.sampled_from(["en", "en", "el"])),
        terms=parse_terms("\n".join(draw(st.permutations(lines)))),
        use_synonyms=draw(st.booleans()),
        match_all=draw(st.booleans()),
    )


@st.composite
def list_sets(draw: st.DrawFn) -> list[ListSpec]:
    count = draw(st.integers(min_value=1, max_value=8))
    return [draw(keyword_lists(list_id)) for list_id in range(1, count + 1)]


texts = st.lists(
    st.one_of(st.sampled_from(WORDS), st.sampled_from([".", ",", "-", "Car", "STOCK", "\n"])),
    max_size=40,
).map(" ".join)

checks = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@checks
@given(lists=list_sets(), text=texts, host=st.sampled_from(HOSTS))
def test_the_index_matches_what_the_naive_loop_matches(
    lists: list[ListSpec], text: str, host: str | None
) -> None:
    assert KeywordIndex.build(lists).match(text, host=host) == NaiveMatcher(lists).match(
        text, host=host
    )


@checks
@given(lists=list_sets(), extra=list_sets(), removed=st.sets(st.integers(1, 8)), text=texts)
def test_changing_lists_one_by_one_equals_a_rebuild(
    lists: list[ListSpec], extra: list[ListSpec], removed: set[int], text: str
) -> None:
    index = KeywordIndex.build(lists)
    replacements = [ListSpec(item.id + 4, *_fields(item)) for item in extra]
    for item in replacements:
        index.add(item)
    for list_id in removed:
        index.remove(list_id)
    final = {item.id: item for item in [*lists, *replacements]}
    kept = [item for list_id, item in sorted(final.items()) if list_id not in removed]
    assert index.list_ids() == {item.id for item in kept}
    assert (
        index.match(text) == KeywordIndex.build(kept).match(text) == NaiveMatcher(kept).match(text)
    )


def _fields(item: ListSpec) -> tuple:
    return item.language, item.terms, item.use_synonyms, item.match_all


@checks
@given(
    lists=list_sets(),
    text=texts.map(lambda text: " ".join([text] * 4)),
    cut=st.tuples(st.floats(0, 1), st.floats(0, 1)),
    host=st.sampled_from(HOSTS),
)
def test_with_new_text_the_index_keeps_the_spans_the_naive_loop_keeps(
    lists: list[ListSpec], text: str, cut: tuple[float, float], host: str | None
) -> None:
    # A text repeating itself, so terms and lists pass their caps, with a new part anywhere.
    start, end = sorted(int(share * len(text)) for share in cut)
    new_text = [(start, end)]
    found = KeywordIndex.build(lists).match(text, host=host, new_text=new_text)
    assert found == NaiveMatcher(lists).match(text, host=host, new_text=new_text)
