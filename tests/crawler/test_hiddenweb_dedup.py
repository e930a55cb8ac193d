"""Second-level URLs: the keyword-query filter and deduplication by selection segments."""

from __future__ import annotations

from crawler.hiddenweb.secondlevel import (
    PageLink,
    carries_argument,
    keyword_urls,
    page_links,
    split_result_links,
)
from crawler.hiddenweb.segments import (
    dedupe,
    narrows_whole,
    noise_segments,
    prevalence,
    query_sensitive,
    segments,
    selection_key,
)

BUY = "http://www.buy.example/sr/searchresults.aspx"


def test_segments_split_on_ampersands_and_semicolons_and_decode():
    assert segments(f"{BUY}?qu=gps+unit&sort=4;from=7&mfgid=-652&page=1") == [
        "qu=gps unit",
        "sort=4",
        "from=7",
        "mfgid=-652",
        "page=1",
    ]
    assert segments("http://x.example/") == []


def result_pages() -> list[list[str]]:
    """Ten result pages (He et al., Table 4): sort, tracking and paging on every one."""
    pages = []
    for n, query in enumerate(
        ["gps", "tv", "camera", "phone", "laptop", "tablet", "printer", "radio", "watch", "drone"]
    ):
        maker = f"mfgid=-{600 + n}"
        pages.append(
            [
                f"{BUY}?qu={query}&sort=4&from=7&{maker}&page=1",
                f"{BUY}?qu={query}&sort=5&from=7&{maker}&page=1",
                f"{BUY}?qu={query}&sort=4&from=8&{maker}&page=1",
                f"{BUY}?qu={query}&sort=4&from=7&{maker}&page=2",
                f"{BUY}?qu={query}&sort=4&from=7&mfgid=-9{n}&page=1",
            ]
        )
    return pages


def test_prevalence_is_the_share_of_result_pages_carrying_a_segment():
    shares = prevalence(result_pages())
    assert shares["sort=4"] == 1.0
    assert shares["page=2"] == 1.0
    assert shares["mfgid=-600"] == 0.1
    assert shares["qu=gps"] == 0.1


def test_sorting_tracking_and_paging_are_noise_and_the_query_argument_never_is():
    noise = noise_segments(result_pages(), 0.1, keep={"qu"})
    assert {"sort=4", "sort=5", "from=7", "from=8", "page=1", "page=2"} <= noise
    assert not any(s.startswith(("qu=", "mfgid=")) for s in noise)
    # With few queries each query looks common; the keyword argument is kept regardless.
    few = result_pages()[:2]
    assert not any(s.startswith("qu=") for s in noise_segments(few, 0.1, keep={"qu"}))
    assert any(s.startswith("qu=") for s in noise_segments(few, 0.1))


def test_urls_with_the_same_selection_segments_are_duplicates():
    pages = result_pages()
    urls = [url for page in pages for url in page]
    noise = noise_segments(pages, 0.1, keep={"qu"})
    kept = dedupe(urls, noise)
    assert len(urls) == 50
    assert len(kept) == 20  # per query: its manufacturer, and the other manufacturer
    assert kept[0] == f"{BUY}?qu=gps&sort=4&from=7&mfgid=-600&page=1"
    assert selection_key(kept[0], noise) == (
        "http",
        "www.buy.example",
        "/sr/searchresults.aspx",
        frozenset({"qu=gps", "mfgid=-600"}),
    )


def test_dedupe_skips_selections_already_fetched_and_prefers_the_plainest_url():
    noise = frozenset({"ref=facet", "ref=sort", "sort=new"})
    done = {selection_key("http://a.example/s?q=x", noise)}
    urls = [
        "http://a.example/s?q=x&sort=new&ref=sort",
        "http://a.example/s?q=x&section=w&sort=new&ref=facet",
        "http://a.example/s?q=x&section=w",
    ]
    assert dedupe(urls, noise, done) == ["http://a.example/s?q=x&section=w"]


def test_the_keyword_query_filter_keeps_urls_with_the_argument():
    urls = [
        "http://a.example/search?q=election&sort=new",
        "http://a.example/search?q=&sort=new",
        "http://a.example/about",
        "http://a.example/login?next=/search",
    ]
    assert keyword_urls(urls, "q") == ["http://a.example/search?q=election&sort=new"]
    assert carries_argument(urls[0], "q", "election")
    assert not carries_argument(urls[0], "q", "climate")


def test_result_links_list_pages_and_second_level_urls_are_told_apart():
    html = """<html><body>
    <nav><a href="/">Home</a><a href="/about">About</a></nav>
    <a href="/search?q=election&sort=new&ref=sort">Newest</a>
    <a href="/search?q=election&section=politics&ref=facet">Politics (3)</a>
    <a href="/search?q=election&page=2&ref=pager">2</a>
    <a rel="next" href="/search?q=election&page=2&ref=pager">Next</a>
    <a href="/search?q=budget&ref=related">budget</a>
    <a href="/articles/1">Story one</a><a href="/articles/2#comments">Story two</a>
    <a href="http://elsewhere.example/x">Off site</a><a href="javascript:void(0)">js</a>
    </body></html>"""
    url = "http://a.example/search?q=election"
    links = page_links(html, url)
    assert PageLink("http://a.example/articles/2", "Story two", "") in links
    split = split_result_links(
        links,
        endpoint="http://a.example/search",
        query_arg="q",
        query="election",
        known=frozenset({"http://a.example/", "http://a.example/about"}),
        hosts=frozenset({"a.example"}),
    )
    assert split.results == ["http://a.example/articles/1", "http://a.example/articles/2"]
    assert split.list_pages == ["http://a.example/search?q=election&page=2&ref=pager"]
    assert split.second_level == [
        "http://a.example/",
        "http://a.example/about",
        "http://a.example/search?q=election&sort=new&ref=sort",
        "http://a.example/search?q=election&section=politics&ref=facet",
        "http://a.example/search?q=budget&ref=related",
    ]


NEWS = "http://news.example/search"
SECTIONS = ["World", "Sport", "Culture"]


def faceted_pages() -> list[tuple[str, list[tuple[str, str]]]]:
    """Result pages of six queries, every section offered on each (with its result count),
    beside sort, page and related-search links and a tracking argument on all of them."""
    pages = []
    for n, query in enumerate(["storm", "budget", "museum", "glacier", "embassy", "vote"]):
        here = f"{NEWS}?q={query}&section=all&sort=relevance"
        links = [(f"{here}&ref=sort".replace("relevance", order), order.title())
                 for order in ("relevance", "newest")]  # fmt: skip
        links += [(f"{NEWS}?q={query}&section={name.lower()}&sort=relevance&ref=facet",
                   f"{name} ({(n * 3 + i) % 7 + 1})") for i, name in enumerate(SECTIONS)]  # fmt: skip
        links += [(f"{here}&page={p}&ref=pager", label) for p, label in ((2, "2"), (2, "Next"))]
        links += [(f"{NEWS}?q=related{n}{i}&ref=related", f"related {n}{i}") for i in range(2)]
        pages.append((here, links))
    return pages


def test_facets_whose_counts_move_with_the_query_are_selections_however_common():
    pages = faceted_pages()
    urls = [[url for url, _ in links] for _, links in pages]
    assert query_sensitive(pages) == {"section=world", "section=sport", "section=culture"}
    noise = noise_segments(urls, 0.1, keep={"q"}, selections=query_sensitive(pages))
    assert {"sort=newest", "page=2", "ref=facet", "ref=pager", "ref=sort", "section=all"} <= noise
    facets = [url for url in sum(urls, []) if "ref=facet" in url]
    # One URL per query and section: each selects other records, none is dropped.
    assert dedupe(facets, noise) == facets
    # By prevalence alone every facet is noise, and each query's facets collapse into one.
    assert len(dedupe(facets, noise_segments(urls, 0.1, keep={"q"}))) == len(pages)


def test_links_that_read_the_same_everywhere_or_differ_on_one_page_are_not_query_sensitive():
    here = f"{NEWS}?q=storm"
    same = [(here, [(f"{here}&sort=newest", "Newest"), (f"{here}&page=2", "Next")])] * 3
    assert query_sensitive(same) == set()
    tracked = [
        (f"{NEWS}?q={q}", [(f"{NEWS}?q={q}&from=7", f"{q} one"), (f"{NEWS}?q={q}&from=7", "two")])
        for q in ("storm", "vote")
    ]
    assert query_sensitive(tracked) == set()


def test_a_facet_only_narrows_a_list_read_whole_and_nothing_else():
    pages = faceted_pages()
    urls = [[url for url, _ in links] for _, links in pages]
    sensitive = query_sensitive(pages)
    noise = noise_segments(urls, 0.1, keep={"q"}, selections=sensitive)
    whole = [selection_key(f"{NEWS}?q=storm&section=all&sort=relevance", noise)]
    facet = f"{NEWS}?q=storm&section=sport&sort=relevance&ref=facet"
    assert narrows_whole(facet, noise, whole, sensitive)
    assert not narrows_whole(facet.replace("storm", "vote"), noise, whole, sensitive)
    assert not narrows_whole(f"{NEWS}?q=storm&maker=7", noise, whole, sensitive)  # not a facet
    assert not narrows_whole(f"{NEWS}?q=storm", noise, whole, sensitive)  # the list itself
    assert not narrows_whole(facet, noise, [], sensitive)  # a list cut short
