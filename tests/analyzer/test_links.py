"""Links: absolute URLs, anchor text, context, the area they sit in, rel."""

from __future__ import annotations

from analyzer import analyze
from tests.analyzer.pages import article_page, front_page

URL = "https://daily.example/news/2024/council-solar"


def test_links_resolve_against_the_page_url_without_fragments() -> None:
    html = (
        '<body><p>See <a href="../2023/old#comments">last year</a>, '
        '<a href="//cdn.example/file">the file</a> and <a href="/top">top</a>.</p></body>'
    )
    urls = [link.url for link in analyze(html, URL).links]
    assert urls == [
        "https://daily.example/news/2023/old",
        "https://cdn.example/file",
        "https://daily.example/top",
    ]


def test_base_href_wins_over_the_page_url() -> None:
    html = (
        '<html><head><base href="https://mirror.example/archive/"></head>'
        '<body><a href="story.html">Story</a></body></html>'
    )
    [link] = analyze(html, URL).links
    assert link.url == "https://mirror.example/archive/story.html"


def test_links_that_lead_to_no_page_are_left_out() -> None:
    html = (
        '<body><a href="#top">Top</a><a href="javascript:void(0)">Menu</a>'
        '<a href="mailto:desk@daily.example">Mail</a><a href="tel:+301234">Call</a>'
        '<a href="data:text/plain,hi">Data</a><a>No href</a><a href="/ok">Ok</a></body>'
    )
    assert [link.text for link in analyze(html, URL).links] == ["Ok"]


def test_without_a_url_relative_links_stay_relative() -> None:
    [link] = analyze('<body><a href="/news/1">One</a></body>').links
    assert link.url == "/news/1"


def test_each_link_knows_its_area_and_its_context() -> None:
    analysis = analyze(article_page(), URL)
    by_text = {link.text: link for link in analysis.links}
    assert by_text["Sport"].area_kind == "navigation"
    assert by_text["Sport"].area_path == "html/body/nav[1]/ul[1]"
    related = by_text["Rail strike ends after three days of talks"]
    assert related.area_kind == "hub"
    assert related.area_path == "html/body/main[1]/aside[1]/ul[1]"
    assert related.path == "html/body/main[1]/aside[1]/ul[1]/li[1]/a[1]"
    assert related.context == "Rail strike ends after three days of talks"


def test_a_link_inside_a_teaser_is_in_an_information_area() -> None:
    analysis = analyze(front_page(), "https://daily.example/")
    [link] = [link for link in analysis.links if link.url.endswith("/news/2024/bridge")]
    assert link.area_kind == "information"
    assert link.area_path == "html/body/main[1]/section[1]/article[3]"


def test_a_link_outside_every_area_gives_its_parent_as_area_path() -> None:
    [link] = analyze('<body><div><span><a href="/x">x</a></span></div></body>', URL).links
    assert link.area_kind == "other"
    assert link.area_path == "html/body/div[1]/span[1]"


def test_rel_nofollow_is_reported() -> None:
    html = '<body><a href="/a" rel="nofollow ugc">A</a><a href="/b" rel="noopener">B</a></body>'
    first, second = analyze(html, URL).links
    assert (first.rel, first.nofollow) == (("nofollow", "ugc"), True)
    assert (second.rel, second.nofollow) == (("noopener",), False)


def test_anchor_text_keeps_the_words_that_blocks_and_spaces_part_inside_the_link() -> None:
    html = (
        '<body><a href="/p/1/"><div><h2>Il crivello di Eratostene</h2><footer><time>'
        'Jan 30, 2008</time></footer></div></a><a href="/p/2/"><b>Solar</b> <i>panels</i></a>'
        '<a href="/p/3/">un<b>break</b>able</a></body>'
    )
    texts = [link.text for link in analyze(html, URL).links]
    assert texts == ["Il crivello di Eratostene Jan 30, 2008", "Solar panels", "unbreakable"]
