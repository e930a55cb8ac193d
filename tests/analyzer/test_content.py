"""The article body: what main_text keeps and what it leaves out."""

from __future__ import annotations

from analyzer import analyze
from tests.analyzer.pages import PARAGRAPHS, article_page, teaser

URL = "https://daily.example/news/2024/council-solar"
ARTICLE = "\n\n".join(PARAGRAPHS)


def main_text(extra_inside: str = "", *, body_class: str = "", after: str = "") -> str:
    first, rest = PARAGRAPHS[:2], PARAGRAPHS[2:]
    body = (
        "".join(f"<p>{text}</p>" for text in first)
        + extra_inside
        + "".join(f"<p>{text}</p>" for text in rest)
    )
    html = (
        f'<html><body class="{body_class}"><div id="page" class="{body_class}">'
        f"<article><h1>Council backs solar subsidies</h1>"
        f'<div class="article-body">{body}</div></article>{after}</div></body></html>'
    )
    return analyze(html, URL).main_text


def test_share_bars_ad_labels_and_captions_inside_the_article_are_left_out() -> None:
    extra = (
        '<div class="share-buttons"><a href="/fb">Facebook</a> <a href="/tw">Twitter</a></div>'
        "<div><span>Advertisement</span></div>"
        "<figure><img src=a.jpg><figcaption>Panels on a roof in the old town, "
        "photographed by our reporter on Monday morning.</figcaption></figure>"
    )
    assert main_text(extra) == ARTICLE


def test_a_related_link_line_inside_the_article_is_left_out() -> None:
    extra = '<p>Related: <a href="/news/2023/solar-plan-fails">Last year\'s plan failed</a></p>'
    assert main_text(extra) == ARTICLE


def test_an_embedded_tweet_is_part_of_the_article() -> None:
    tweet = (
        "The mayor wrote that the plan is only the first step and that more help for "
        "tenants will follow soon."
    )
    extra = (
        f'<div class="social-media-embed"><blockquote class="twitter-tweet"><p>{tweet}</p>'
        "</blockquote></div>"
    )
    assert tweet in main_text(extra)


def test_subheadings_inside_the_article_are_kept_but_the_headline_is_not() -> None:
    text = main_text("<h2>What happens next</h2>")
    assert "What happens next" in text
    assert "Council backs solar subsidies" not in text


def test_teasers_and_comments_after_the_article_are_left_out() -> None:
    after = (
        teaser(
            "rail",
            "Rail strike ends after three days",
            "Trains run again on all lines after unions and the operator agreed on a new pay deal.",
        )
        + '<section class="comments"><p>I think this is a great idea and I hope the council '
        "extends it to tenants as soon as possible, because we all need it.</p></section>"
    )
    assert main_text(after=after) == ARTICLE


def test_layout_words_in_wrapper_classes_do_not_hide_the_article() -> None:
    assert main_text(body_class="has-sidebar with-nav one-sidebar sidebar-second") == ARTICLE


def test_an_article_split_by_an_ad_block_keeps_both_halves() -> None:
    halves = (
        f'<div class="part">{"".join(f"<p>{t}</p>" for t in PARAGRAPHS[:3])}</div>'
        '<div class="ad-slot"><a href="/buy">Buy now</a></div>'
        f'<div class="part">{"".join(f"<p>{t}</p>" for t in PARAGRAPHS[3:])}</div>'
    )
    html = f"<html><body><article><h1>Title here</h1>{halves}</article></body></html>"
    assert analyze(html, URL).main_text == ARTICLE


def test_a_headline_linking_to_its_own_page_does_not_make_the_article_a_teaser() -> None:
    html = (
        f'<html><body><article><h1><a href="{URL}">Council backs solar subsidies</a></h1>'
        f"<p>{PARAGRAPHS[0]}</p></article></body></html>"
    )
    assert analyze(html, URL).main_text == PARAGRAPHS[0]


def test_hidden_elements_are_not_text() -> None:
    extra = (
        "<div hidden><p>Secret draft paragraph that nobody should ever read on the page.</p>"
        '</div><p style="display: none">Another hidden paragraph about solar subsidies.</p>'
    )
    assert main_text(extra) == ARTICLE


def test_the_article_page_helper_gives_the_article() -> None:
    assert analyze(article_page(), URL).main_text == ARTICLE


def test_a_table_of_contents_between_the_lead_and_the_body_keeps_both() -> None:
    contents = "".join(
        f'<li><a href="{URL}#part-{n}">Part {n}: what the plan means for you</a></li>'
        for n in range(1, 7)
    )
    html = (
        f"<html><body><article><h1>Council backs solar subsidies</h1><p>{PARAGRAPHS[0]}</p>"
        f'<ul class="toc">{contents}</ul>'
        + "".join(f"<p>{text}</p>" for text in PARAGRAPHS[1:])
        + "</article></body></html>"
    )
    text = analyze(html, URL).main_text
    assert text == ARTICLE
    assert "Part 1" not in text


def test_a_review_title_linking_to_its_own_page_stays_with_its_review() -> None:
    html = (
        f"<html><body><main><section class='review'><div class='name'>Mrs H Pyke</div>"
        f'<h2 class="review-title"><a href="{URL}">Changed my life</a></h2>'
        f"<p>{PARAGRAPHS[0]} {PARAGRAPHS[1]}</p></section></main></body></html>"
    )
    assert analyze(html, URL).main_text.startswith("Changed my life\n\n")


def test_the_label_of_a_link_after_the_article_is_left_out() -> None:
    body = "".join(f"<p>{text}</p>" for text in PARAGRAPHS)
    html = (
        f"<html><body><article><h1>Council backs solar subsidies</h1><div>{body}"
        '<p class="explore">Explore further</p><div class="explore-links">'
        '<a href="/news/2023/solar-plan-fails">Last year\'s solar plan failed in the council</a>'
        f"</div><p>{PARAGRAPHS[0]}</p></div></article></body></html>"
    )
    text = analyze(html, URL).main_text
    assert "Explore further" not in text
    assert text.startswith(ARTICLE)
