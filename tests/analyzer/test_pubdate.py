"""The publication time a page declares: metadata, microdata, JSON-LD, never a loose date."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from analyzer.pubdate import published_time

SEEN = datetime(2025, 3, 4, 12, 0, tzinfo=UTC)


def page(head: str = "", body: str = "<p>Text of the article.</p>") -> str:
    return f"<!doctype html><html><head><title>T</title>{head}</head><body>{body}</body></html>"


@pytest.mark.parametrize(
    ("head", "body", "expected"),
    [
        (
            '<meta property="article:published_time" content="2025-03-03T08:30:00+01:00">',
            "",
            datetime(2025, 3, 3, 7, 30, tzinfo=UTC),
        ),
        ('<meta name="pubdate" content="2025-03-02">', "", datetime(2025, 3, 2, tzinfo=UTC)),
        (
            '<meta name="date" content="Mon, 03 Mar 2025 08:00:00 GMT">',
            "",
            datetime(2025, 3, 3, 8, tzinfo=UTC),
        ),
        (
            "",
            '<span itemprop="datePublished" content="2025-03-01T10:00:00Z">1 March</span>',
            datetime(2025, 3, 1, 10, tzinfo=UTC),
        ),
        (
            '<script type="application/ld+json">{"@context": "https://schema.org", "@graph": '
            '[{"@type": "WebPage"}, {"@type": "NewsArticle", "datePublished": '
            '"2025-02-28T18:15:00-05:00"}]}</script>',
            "",
            datetime(2025, 2, 28, 23, 15, tzinfo=UTC),
        ),
        (
            "",
            '<time pubdate datetime="2025-03-03T06:00:00Z">3 March</time>',
            datetime(2025, 3, 3, 6, tzinfo=UTC),
        ),
    ],
    ids=["open-graph", "meta-name", "rfc-2822", "microdata", "json-ld-graph", "time-pubdate"],
)
def test_the_declared_publication_time_is_read_and_made_utc(head, body, expected):
    assert published_time(page(head, body), seen_at=SEEN) == expected


def test_the_page_metadata_wins_over_a_date_in_the_body():
    html = page(
        '<meta property="article:published_time" content="2025-03-03T08:00:00Z">',
        '<time pubdate datetime="2020-01-01T00:00:00Z">old</time>',
    )
    assert published_time(html, seen_at=SEEN) == datetime(2025, 3, 3, 8, tzinfo=UTC)


@pytest.mark.parametrize(
    "html",
    [
        page(body="<p>Published on 3 March 2025 at 08:00.</p><time datetime='2025-03-03'>x</time>"),
        page('<meta property="article:published_time" content="not a date">'),
        page('<meta property="article:published_time" content="2031-01-01T00:00:00Z">'),
        page('<meta property="article:published_time" content="1970-01-01T00:00:00Z">'),
        page('<script type="application/ld+json">{"datePublished": </script>'),
        "",
    ],
    ids=["loose-dates", "garbage", "future", "epoch", "broken-json-ld", "empty"],
)
def test_no_trusted_declaration_gives_none(html):
    assert published_time(html, seen_at=SEEN) is None


@pytest.mark.parametrize("content", ["Tuesday", "3 March", "08:30"])
def test_a_date_without_a_year_is_not_guessed(content):
    # Read loosely, these would be a day near today, which a page seen today would accept.
    html = page(f'<meta name="date" content="{content}">')
    assert published_time(html, seen_at=datetime.now(UTC) + timedelta(days=8)) is None


def test_the_analyzer_reads_an_articles_declared_times_once_and_a_hubs_never():
    from analyzer import analyze

    prose = "".join(f"<p>The council met on Monday and spoke at length {n}.</p>" for n in range(8))
    head = '<meta property="article:published_time" content="2025-03-03T08:30:00Z">'
    story = analyze(
        page(head, f"<article><h1>Council</h1>{prose}</article>"), "https://x.example/a"
    )
    assert story.kind == "information"
    assert story.published == (datetime(2025, 3, 3, 8, 30, tzinfo=UTC),)
    links = "".join(f'<li><a href="/s/{n}">Story {n} of the day</a></li>' for n in range(30))
    hub = analyze(page(head, f"<ul>{links}</ul>"), "https://x.example/")
    assert hub.kind == "hub" and hub.published == ()


@pytest.mark.parametrize(
    ("body", "url", "expected"),
    [
        (
            '<article><h1>Rail</h1><p class="byline">By Jo · <time datetime="2025-03-02T09:00:00Z">'
            "2 March 2025</time> · <a href='/s/'>Transport</a></p><p>Text.</p></article>",
            None,
            datetime(2025, 3, 2, 9, tzinfo=UTC),
        ),
        (
            "<article><h1>Archive: the rail strike of 1989</h1>"
            "<p class='byline'>By Jo Bloggs · 21 November 2016</p><p>Text.</p></article>",
            None,
            datetime(2016, 11, 21, tzinfo=UTC),
        ),
        (
            "<article><h1>Archive</h1><p class='byline'>2016</p><p>Text.</p></article>",
            None,
            datetime(2016, 1, 1, tzinfo=UTC),
        ),
        (
            '<article><div class="meta"><span class="entry-date">Updated 21 November 2016, 10:00'
            "</span></div><p>Text.</p></article>",
            None,
            datetime(2016, 11, 21, 10, tzinfo=UTC),
        ),
        (
            "<p>Text.</p>",
            "https://x.example/news/2016/11/21/rail-strike.html",
            datetime(2016, 11, 21, tzinfo=UTC),
        ),
        (
            "<p>Text.</p>",
            "https://x.example/2016-11-21-rail-strike",
            datetime(2016, 11, 21, tzinfo=UTC),
        ),
    ],
    ids=["byline-time", "byline-written", "byline-year", "entry-date", "url-path", "url-slug"],
)
def test_the_byline_and_then_the_url_date_the_article(body, url, expected):
    assert published_time(page(body=body), seen_at=SEEN, url=url) == expected


def test_the_metadata_wins_over_the_byline_and_the_byline_over_the_url():
    body = "<article><p class='byline'>21 November 2016</p><p>Text.</p></article>"
    meta = '<meta property="article:published_time" content="2025-03-03T08:00:00Z">'
    url = "https://x.example/2010/01/05/story"
    assert published_time(page(meta, body), seen_at=SEEN, url=url) == datetime(
        2025, 3, 3, 8, tzinfo=UTC
    )
    assert published_time(page(body=body), seen_at=SEEN, url=url) == datetime(
        2016, 11, 21, tzinfo=UTC
    )


@pytest.mark.parametrize(
    ("body", "url"),
    [
        ("<article><p class='byline'>By Jo Bloggs</p><p>In 2016 it began.</p></article>", None),
        ("<aside><p class='date'>21 November 2016</p></aside><p>Text.</p>", None),
        ("<p>Text.</p>", "https://x.example/news/2016/rail-strike"),
        ("<p>Text.</p>", "https://x.example/2016/13/45/story"),
    ],
    ids=["byline-without-date", "date-outside-article", "url-year-only", "url-impossible"],
)
def test_a_byline_without_a_date_or_a_url_without_a_full_date_gives_none(body, url):
    assert published_time(page(body=body), seen_at=SEEN, url=url) is None
