"""Small hand-made pages for the analyzer tests."""

from __future__ import annotations

PARAGRAPHS = [
    "The city council approved a new plan on Monday that gives households solar subsidies "
    "for panels installed before the end of next year, after months of debate.",
    "Officials said the programme would cost about 12 million euros and would be paid for "
    "by a levy on large energy companies that operate in the region.",
    "Critics argued that the subsidies mostly help owners of large houses, while tenants in "
    "small flats would see little benefit from the scheme in the coming years.",
    "The mayor answered that a second phase, planned for 2026, would cover apartment "
    "buildings and schools, and that the details would be published in the spring.",
    "Local installers welcomed the decision and said they expected demand to double, "
    "although they warned that a shortage of trained workers could slow things down.",
]

MENU = """<nav class="site-nav"><ul>
<li><a href="/">Home</a></li><li><a href="/news">News</a></li>
<li><a href="/sport">Sport</a></li><li><a href="/culture">Culture</a></li>
<li><a href="/weather">Weather</a></li><li><a href="/about">About us</a></li>
</ul></nav>"""

FOOTER = """<footer><ul>
<li><a href="/privacy">Privacy</a></li><li><a href="/terms">Terms</a></li>
<li><a href="/contact">Contact</a></li><li><a href="/jobs">Jobs</a></li>
<li><a href="/ads">Advertise</a></li>
</ul><p>Copyright 2024 The Daily Example.</p></footer>"""

RELATED = """<aside class="related"><h3>More stories</h3><ul>
<li><a href="/news/2024/rail-strike-ends">Rail strike ends after three days of talks</a></li>
<li><a href="/news/2024/new-bridge-opens">New bridge opens to traffic across the river</a></li>
<li><a href="/news/2024/schools-reopen">Schools reopen after the winter storm damage</a></li>
<li><a href="/news/2024/budget-vote">Council budget vote delayed until next month</a></li>
<li><a href="/news/2024/museum">City museum doubles visitor numbers this year</a></li>
</ul></aside>"""


def article_page(
    headline: str = "Council backs solar subsidies",
    paragraphs: list[str] | None = None,
    *,
    lang: str = "en",
    extra: str = "",
) -> str:
    """Return a news article page with a menu, related links and a footer."""
    body = "".join(f"<p>{text}</p>" for text in (paragraphs or PARAGRAPHS))
    return f"""<!doctype html><html lang="{lang}"><head><meta charset="utf-8">
<title>{headline} | The Daily Example</title></head><body>
{MENU}
<main><article><h1>{headline}</h1><p class="byline">By Ann Writer, 3 March 2024</p>
<div class="article-body">{body}</div>{extra}</article>{RELATED}</main>
{FOOTER}</body></html>"""


def teaser(slug: str, headline: str, summary: str) -> str:
    """Return a teaser card: a headline link and a short summary."""
    return (
        f'<article class="card"><h2><a href="/news/2024/{slug}">{headline}</a></h2>'
        f"<p>{summary}</p><span>2 hours ago</span></article>"
    )


def front_page() -> str:
    """Return a hub page: menu, six teaser cards, a footer."""
    cards = "".join(
        [
            teaser(
                "solar",
                "Council backs solar subsidies for households",
                "Households will get solar subsidies for panels installed before the end "
                "of next year.",
            ),
            teaser(
                "rail",
                "Rail strike ends after three days",
                "Trains run again on all lines after unions and the operator agreed on pay.",
            ),
            teaser(
                "bridge",
                "New bridge opens to traffic",
                "The bridge links the old town with the new business district across the river.",
            ),
            teaser(
                "schools",
                "Schools reopen after the storm",
                "Repairs took two weeks and cost less than first feared, the council said.",
            ),
            teaser(
                "museum",
                "City museum doubles its visitors",
                "A new wing and free Sundays brought twice as many people as last year.",
            ),
            teaser(
                "budget",
                "Budget vote delayed until next month",
                "Councillors asked for more time to study the cost of the transport plan.",
            ),
        ]
    )
    return f"""<!doctype html><html lang="en"><head><title>The Daily Example</title></head>
<body>{MENU}<main><h1 class="site-title">Today's news</h1>
<section class="top-stories">{cards}</section>{RELATED}</main>{FOOTER}</body></html>"""
