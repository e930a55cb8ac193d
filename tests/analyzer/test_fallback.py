"""Second readings: a page whose article run is a crumb still yields its whole article."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from analyzer import analyze, fallback
from tests.analyzer.pages import FOOTER, MENU, PARAGRAPHS

URL = "https://blog.example/about-us"
EVENTS = [
    ("2015", "Premiere of the monthly late show at the Aera theatre"),
    ("2014", "Finalist in the national comedy talent contest on TV"),
    ("2013", "Evening of readings for the refugee day in the city hall"),
    ("2012", "Regular performances of our first full programme"),
    ("2011", "First public try-out of the programme in a small bar"),
    ("2010", "Satirical party campaign for the local elections"),
]


@pytest.fixture
def only() -> Iterator[object]:
    """Let a test choose the readings in force; restore them afterwards."""
    saved = fallback.FALLBACKS

    def choose(*names: str) -> None:
        fallback.FALLBACKS = names

    yield choose
    fallback.FALLBACKS = saved


def page(content: str) -> str:
    return f"<html><body>{MENU}<main>{content}</main>{FOOTER}</body></html>"


def about_page() -> str:
    """An "about us" page: one paragraph, then a career as short dated lines."""
    career = "".join(f"<p>{year}<br>{what}</p>" for year, what in EVENTS)
    return page(
        f"<article><h1>About us</h1><div class='entry-content'><p>{PARAGRAPHS[0]}</p>"
        f"<h2>Artistic career</h2>{career}</div></article>"
    )


def links_post() -> str:
    """A post that collects links: each item a linked title and its source."""
    items = "".join(
        f"<li><p><a href='https://news.example/{n}'>{what}</a></p>"
        f"<p>via <a href='https://news.example/'>news.example</a></p></li>"
        for n, (_, what) in enumerate(EVENTS)
    )
    return page(
        f"<article><h1>Links of the week</h1><div class='entry-content'><ul>{items}</ul>"
        "<p>Posted from my bookmarks. The rest of my favourite links are here.</p>"
        "</div></article>"
    )


def warnings_page() -> str:
    """A short post beside a sidebar full of long error messages (no sentences)."""
    warnings = "".join(
        "<li>Warning: Use of undefined constant comments - assumed 'comments' (this will "
        "throw an Error in a future version of PHP) in /var/www/site/wp-content/plugins/"
        f"recent-comments/recent-comments.php on line {900 + n}</li>"
        for n in range(6)
    )
    return (
        "<html><body><div id='page'><div id='content'><div class='post'><h2>Number two</h2>"
        f"<div class='entry'><p>{PARAGRAPHS[0]}</p><p>{PARAGRAPHS[1]}</p><p>=)</p></div>"
        f"</div></div><div id='side'><ul><li><h2>Recent comments</h2><ul>{warnings}</ul>"
        "</li></ul></div></div></body></html>"
    )


def test_markup_keeps_the_short_lines_of_an_about_page(only) -> None:
    only("markup")
    text = analyze(about_page(), URL).main_text
    assert text.startswith(PARAGRAPHS[0])
    for year, what in EVENTS:
        assert year in text
        assert what in text
    assert "About us" not in text  # the headline stays out
    assert "Privacy" not in text


def test_without_markup_the_about_page_keeps_only_its_first_paragraph(only) -> None:
    only()
    assert analyze(about_page(), URL).main_text == PARAGRAPHS[0]


def test_markup_keeps_the_links_a_post_collects(only) -> None:
    only("markup")
    text = analyze(links_post(), URL).main_text
    for _, what in EVENTS:
        assert what in text
    assert "via news.example" in text
    assert "Home" not in text


def test_without_markup_a_links_post_is_its_one_closing_line(only) -> None:
    only()
    text = analyze(links_post(), URL).main_text
    assert text == "Posted from my bookmarks. The rest of my favourite links are here."


def test_sentences_find_a_short_post_beside_a_sidebar_of_error_messages(only) -> None:
    only("sentences")
    text = analyze(warnings_page(), URL).main_text
    assert PARAGRAPHS[0] in text
    assert PARAGRAPHS[1] in text
    assert "Warning" not in text


def test_without_sentences_the_error_messages_are_taken_for_the_article(only) -> None:
    only()
    text = analyze(warnings_page(), URL).main_text
    assert "Warning: Use of undefined constant" in text
    assert PARAGRAPHS[0] not in text


def test_an_article_the_run_finds_whole_is_left_as_it_is(only) -> None:
    only(*fallback.READINGS)
    body = "".join(f"<p>{text}</p>" for text in PARAGRAPHS)
    html = page(f"<article><h1>Council backs solar subsidies</h1>{body}</article>")
    assert analyze(html, URL).main_text == "\n\n".join(PARAGRAPHS)


def test_sentences_are_counted_in_any_script() -> None:
    assert fallback.sentences("One. Two? Three! four") == 3
    assert fallback.sentences("第一句。第二句。") == 2
    assert fallback.sentences("पहला वाक्य। दूसरा।") == 2
    assert fallback.sentences("version 1.5 of /var/www/site.php on line 928") == 0


def test_the_readings_in_force_are_all_the_readings_the_bench_kept() -> None:
    assert set(fallback.FALLBACKS) <= set(fallback.READINGS)
