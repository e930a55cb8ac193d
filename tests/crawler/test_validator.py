"""The validator: information pages whose informational text holds enough of the topic."""

from __future__ import annotations

from analyzer import analyze
from crawler.strategies.xcrawl.validator import required_score, validate
from crawler.topic import Topic

CAMERAS = Topic(terms={"camera": 1.0, "sensor": 1.0, "zoom": 1.0, "len": 1.0})


def page(body: str, title: str = "A page") -> str:
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title></head><body>"
        "<nav><ul><li><a href='/'>Home</a></li><li><a href='/cameras'>Cameras</a></li>"
        "<li><a href='/printers'>Printers</a></li><li><a href='/zoom'>Zoom lenses</a></li>"
        f"</ul></nav><main>{body}</main><footer><p>Shop footer</p></footer></body></html>"
    )


def review(sentence: str, title: str) -> str:
    paragraphs = "".join(
        f"<p>{sentence} Sentence {i} goes on with ordinary words, as a product review does.</p>"
        for i in range(5)
    )
    return page(f"<article><h1>{title}</h1>{paragraphs}</article>", title)


def test_an_article_about_the_topic_is_an_authority():
    html = review("The Canon EOS R50 is a mirrorless camera with a large sensor.", "EOS R50")
    verdict = validate(analyze(html, "http://shop.test/p/1"), CAMERAS)
    assert verdict.accepted
    assert verdict.score == 2.0  # camera + sensor, each once


def test_a_structurally_identical_article_on_another_topic_is_not():
    html = review("The Canon PIXMA is an inkjet printer with a fast duplex unit.", "PIXMA")
    verdict = validate(analyze(html, "http://shop.test/p/2"), CAMERAS)
    assert not verdict.accepted and verdict.score == 0.0


def test_one_topic_term_is_not_enough_when_the_topic_is_larger():
    html = review("This printer prints photos from any camera over Wi-Fi.", "PIXMA photo")
    verdict = validate(analyze(html, "http://shop.test/p/3"), CAMERAS)
    assert not verdict.accepted and verdict.score == 1.0
    assert "1 < 2" in verdict.reason


def test_a_one_keyword_topic_accepts_a_page_holding_that_keyword():
    topic = Topic(terms={"printer": 1.0})
    assert required_score(topic) == 1.0
    html = review("The Canon PIXMA is an inkjet printer with a fast duplex unit.", "PIXMA")
    assert validate(analyze(html, "http://shop.test/p/2"), topic).accepted


def test_a_hub_page_is_never_an_authority_even_full_of_topic_words():
    items = "".join(
        f"<li><a href='/p/{i}'>Camera {i} with zoom lens and sensor</a></li>" for i in range(30)
    )
    analysis = analyze(page(f"<h1>Cameras</h1><ul>{items}</ul>"), "http://shop.test/cameras")
    assert analysis.kind == "hub"
    verdict = validate(analysis, CAMERAS)
    assert not verdict.accepted and verdict.reason == "hub page"


def test_topic_words_only_in_the_menu_do_not_count():
    html = review("The Canon PIXMA is an inkjet printer with a fast duplex unit.", "PIXMA")
    # The menu says "Cameras" and "Zoom lenses"; the informational text says neither.
    assert validate(analyze(html, "http://shop.test/p/2"), CAMERAS).score == 0.0


def test_no_analysis_or_no_topic_means_not_accepted():
    assert validate(None, CAMERAS).reason == "not analysed"
    html = review("A camera with a sensor.", "Camera")
    assert validate(analyze(html, "http://shop.test/p/4"), Topic()).reason == "empty topic"
