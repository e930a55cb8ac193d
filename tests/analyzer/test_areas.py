"""Algorithm 1, its adaptive thresholds, the navigation filter and the page kind."""

from __future__ import annotations

from analyzer import analyze, extract_clips, settings
from analyzer.areas import characterize, thresholds
from analyzer.model import Thresholds
from analyzer.tree import parse
from analyzer.walk import walk
from tests.analyzer.pages import PARAGRAPHS, article_page, front_page

URL = "https://daily.example/news/2024/council-solar"


def test_an_area_stops_climbing_so_its_parent_does_not_count_it_again() -> None:
    page = walk(parse(f"<body><div><p>{PARAGRAPHS[0]}</p><p>{PARAGRAPHS[1]}</p></div></body>"))
    found = characterize(page, Thresholds(iv=100, hv=10))
    assert [area.node.name for area in found] == ["p", "p"]


def test_what_is_left_after_an_area_stops_can_make_its_parent_an_area() -> None:
    html = (
        f"<body><section><div><p>{PARAGRAPHS[0]}</p></div>"
        f"<span>{PARAGRAPHS[1][:60]}</span><span>{PARAGRAPHS[2][:60]}</span></section></body>"
    )
    found = characterize(walk(parse(html)), Thresholds(iv=100, hv=10))
    assert [area.node.name for area in found] == ["section", "p"]
    section = found[0]
    assert section.iv == len("".join((PARAGRAPHS[1][:60] + PARAGRAPHS[2][:60]).split()))


def test_a_long_menu_is_a_hub_not_text_even_when_its_iv_passes_thriv() -> None:
    items = "".join(f'<li><a href="/s{i}">Section number {i}</a></li>' for i in range(12))
    [area] = characterize(walk(parse(f"<body><ul>{items}</ul></body>")), Thresholds(50, 5))
    assert area.kind == "hub"
    assert area.iv > 50


def test_thresholds_grow_with_the_page_within_their_bounds() -> None:
    small = thresholds(walk(parse(f"<body><p>{PARAGRAPHS[0]}</p></body>")))
    large = thresholds(walk(parse(article_page(paragraphs=PARAGRAPHS * 6))))
    huge = thresholds(walk(parse(article_page(paragraphs=PARAGRAPHS * 200))))
    assert small.iv == settings.THR_IV_MIN
    assert settings.THR_IV_MIN < large.iv < settings.THR_IV_MAX
    assert huge.iv == settings.THR_IV_MAX
    assert small.hv == settings.THR_HV_MIN


def test_an_article_page_is_an_information_page_with_one_article_area() -> None:
    analysis = analyze(article_page(), URL)
    assert analysis.kind == "information"
    assert analysis.kind_score >= 0.5
    [main] = [area for area in analysis.informational_areas if area.main]
    assert main.text == analysis.main_text
    assert main.path == "html/body/main[1]/article[1]/div[1]"
    assert (
        main.selector
        == "html > body > main:nth-of-type(1) > article:nth-of-type(1) > div:nth-of-type(1)"
    )


def test_main_text_is_the_article_body_without_headline_byline_or_chrome() -> None:
    analysis = analyze(article_page(), URL)
    assert analysis.main_text == "\n\n".join(PARAGRAPHS)
    assert analysis.title == "Council backs solar subsidies"


def test_menus_and_footers_are_navigational_and_related_stories_a_hub() -> None:
    analysis = analyze(article_page(), URL)
    nav_paths = {area.path for area in analysis.navigational_areas}
    assert nav_paths == {"html/body/nav[1]/ul[1]", "html/body/footer[1]/ul[1]"}
    [hub] = analysis.hub_areas
    assert hub.path == "html/body/main[1]/aside[1]/ul[1]"
    assert "leads to articles" in hub.reason
    assert [link.url for link in hub.links][0] == "https://daily.example/news/2024/rail-strike-ends"


def test_a_front_page_is_a_hub_page_of_teasers_that_point_to_their_articles() -> None:
    analysis = analyze(front_page(), "https://daily.example/")
    assert analysis.kind == "hub"
    assert analysis.kind_score < 0.5
    teasers = [area for area in analysis.informational_areas if area.teaser]
    assert len(teasers) == 6
    assert teasers[0].follow_url == "https://daily.example/news/2024/solar"
    assert teasers[0].title == "Council backs solar subsidies for households"
    assert analysis.main_text == ""


def blog_card(slug: str, title: str, subtitle: str) -> str:
    """Return a post card as blog themes write them: categories, title link, subtitle heading."""
    return (
        f'<article><header class="article-header"><div class="article-details">'
        f'<header class="article-category"><a href="/categories/dev/">Dev</a> '
        f'<a href="/categories/tools/">Tools</a></header>'
        f'<div class="article-title-wrapper"><h2 class="article-title">'
        f'<a href="/posts/{slug}/">{title}</a></h2>'
        f'<h3 class="article-subtitle">{subtitle}</h3></div>'
        f'<footer class="article-time"><time>May 22, 2026</time></footer>'
        f"</div></header></article>"
    )


def test_a_blog_list_whose_summaries_are_subtitle_headings_is_a_hub_of_teasers() -> None:
    cards = "".join(
        blog_card(
            f"post-{i}",
            f"Releasing tool number {i} for the command line",
            f"Tool {i} is out: a small program with new recipes, faster browsing of "
            f"collections and a safer way to keep session tokens on your laptop.",
        )
        for i in range(5)
    )
    html = (
        "<!doctype html><html lang='en'><body><aside><nav><a href='/'>Home</a> "
        "<a href='/about/'>About</a></nav></aside>"
        f"<main><section class='article-list'>{cards}</section></main></body></html>"
    )
    analysis = analyze(html, "https://blog.example/")
    assert analysis.kind == "hub"
    teasers = [area for area in analysis.informational_areas if area.teaser]
    assert [area.follow_url for area in teasers] == [
        f"https://blog.example/posts/post-{i}/" for i in range(5)
    ]
    assert extract_clips(analysis, ["session tokens"]) == []


def test_headline_links_among_short_category_links_make_a_hub_by_their_lar() -> None:
    cards = "".join(
        f'<article><a href="/categories/dev/">Dev</a> <a href="/categories/linux/">Linux</a>'
        f'<h2><a href="/posts/post-{i}/">How I moved my laptop number {i} to a new distribution</a>'
        f"</h2><time>May {i + 1}, 2026</time></article>"
        for i in range(5)
    )
    menu = "".join(
        f'<li><a href="/{w}/">{w}</a></li>' for w in ("home", "about", "cv", "rss", "now")
    )
    html = (
        "<!doctype html><html lang='en'><body><aside><ul>"
        f"{menu}</ul></aside><main><section>{cards}</section></main></body></html>"
    )
    analysis = analyze(html, "https://blog.example/page/3/")
    [hub] = analysis.hub_areas
    assert hub.lar <= 1 / 12 and "leads to articles" in hub.reason
    assert sum(link.url.startswith("https://blog.example/posts/") for link in hub.links) == 5
    assert [area.path for area in analysis.navigational_areas] == ["html/body/aside[1]/ul[1]"]


def test_the_page_kind_weighs_article_text_more_than_the_link_ratio() -> None:
    long_article = analyze(article_page(paragraphs=PARAGRAPHS * 4), URL)
    short_note = analyze(article_page(paragraphs=PARAGRAPHS[:1]), URL)
    assert long_article.kind_score > short_note.kind_score
    assert long_article.kind_score == 1.0


def test_every_area_explains_its_kind() -> None:
    analysis = analyze(article_page(), URL)
    reasons = [
        area.reason
        for area in (
            *analysis.informational_areas,
            *analysis.hub_areas,
            *analysis.navigational_areas,
        )
    ]
    assert all(reasons)
    assert any("navigational: short anchors" in reason for reason in reasons)


def test_footer_text_is_navigational_so_no_clip_comes_from_it() -> None:
    notice = (
        "Copyright 2024 The Daily Example. All rights reserved. Reproduction of any solar "
        "article without written permission is forbidden."
    )
    html = article_page().replace("<p>Copyright 2024 The Daily Example.</p>", f"<p>{notice}</p>")
    analysis = analyze(html, URL)
    [footer] = [a for a in analysis.navigational_areas if a.path == "html/body/footer[1]/p[1]"]
    assert "text of site chrome" in footer.reason
    assert extract_clips(analysis, ["permission"]) == []


def test_a_short_article_of_three_paragraphs_is_an_information_page() -> None:
    analysis = analyze(article_page(paragraphs=PARAGRAPHS[:3]), URL)
    assert analysis.kind == "information"
    assert [area.main for area in analysis.informational_areas] == [True]
