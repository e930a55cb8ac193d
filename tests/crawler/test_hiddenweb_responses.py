"""Empty-result pages: probe signatures, the 0.85 threshold, boilerplate left out."""

from __future__ import annotations

import random
import urllib.request
from urllib.parse import quote_plus

import pytest

from crawler.hiddenweb.responses import (
    EmptyPageModel,
    boilerplate,
    nonsense_queries,
    signature,
    similarity,
    text_blocks,
)
from tests.crawler.hiddenweb_site import DeepWebSite, build_stories


def get(site: DeepWebSite, path: str) -> str:
    with urllib.request.urlopen(site.url(path), timeout=10) as response:
        return response.read().decode()


@pytest.fixture(scope="module")
def archive():
    with DeepWebSite(build_stories(60)) as site:
        yield site


def search(site: DeepWebSite, query: str) -> str:
    return get(site, f"/search?q={quote_plus(query)}&section=all&sort=relevance")


def test_probes_teach_the_no_results_page_and_real_results_differ(archive):
    common = boilerplate(get(archive, "/"))
    probes = nonsense_queries(2, random.Random(1))
    model = EmptyPageModel(
        tuple(signature(search(archive, q), query=q, common=common) for q in probes), 0.85
    )
    assert similarity(*model.signatures) == 1.0  # the query's words become one placeholder
    # A real keyword without matches gives the same page: empty.
    assert model.is_empty(signature(search(archive, "zeppelin"), query="zeppelin", common=common))
    # A page with results is far from it.
    page = signature(search(archive, "election"), query="election", common=common)
    assert model.closeness(page) < 0.2
    assert not model.is_empty(page)


def test_one_result_is_not_mistaken_for_none(archive):
    common = boilerplate(get(archive, "/"))
    story = archive.hidden()[0]
    slug_word = str(int(story.slug.split("-")[0]))  # "Story number 54": in one story only
    page = search(archive, slug_word)
    assert "1 results for" in page
    probe = nonsense_queries(1, random.Random(2))[0]
    model = EmptyPageModel((signature(search(archive, probe), query=probe, common=common),))
    assert not model.is_empty(signature(page, query=slug_word, common=common))


def test_without_the_boilerplate_cut_the_shared_layout_would_dominate(archive):
    probe = "qqxzv"
    empty_whole = signature(search(archive, probe), query=probe)
    result_whole = signature(search(archive, "election"), query="election")
    common = boilerplate(get(archive, "/"))
    empty_cut = signature(search(archive, probe), query=probe, common=common)
    result_cut = signature(search(archive, "election"), query="election", common=common)
    assert similarity(empty_whole, result_whole) > similarity(empty_cut, result_cut)


def test_the_threshold_decides():
    probe = frozenset({"no articl", "articl match"})
    page = frozenset({"no articl", "articl match", "match x", "x y"})  # similarity 0.5
    assert EmptyPageModel((probe,), 0.5).is_empty(page)
    assert not EmptyPageModel((probe,), 0.85).is_empty(page)
    assert not EmptyPageModel((), 0.85).is_empty(page)  # no probes: nothing is empty


def test_text_blocks_skip_scripts_and_styles_and_survive_bad_input():
    html = "<html><head><title>T</title><style>p{}</style></head><body><p>One <b>two</b></p><script>x=1</script>tail</body></html>"
    assert text_blocks(html) == ["One", "two", "tail"]
    assert text_blocks("") == []
    assert signature(b"\xff\xfe garbage <<<") is not None


def test_signatures_round_trip_through_json():
    model = EmptyPageModel((frozenset({"a b", "b c"}),), 0.85)
    again = EmptyPageModel.from_json(model.to_json(), 0.85)
    assert again == model


def test_nonsense_queries_are_two_consonant_words():
    queries = nonsense_queries(3, random.Random(5))
    assert len(set(queries)) == 3
    for query in queries:
        words = query.split()
        assert len(words) == 2 and all(not set(w) & set("aeiouy") for w in words)
