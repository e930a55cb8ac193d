"""Hand-made news pages for the clipping tests: menus, an article, related links, a footer."""

from __future__ import annotations

SOLAR = [
    "The city council approved a new plan on Monday that gives households solar subsidies "
    "for panels installed before the end of next year, after months of debate.",
    "Officials said the programme would cost about 12 million euros and would be paid for "
    "by a levy on large energy companies that operate in the region.",
    "Critics argued that the subsidies mostly help owners of large houses, while tenants in "
    "small flats would see little benefit from the scheme in the coming years.",
    "The mayor answered that a second phase, planned for 2026, would cover apartment "
    "buildings and schools, and that the details would be published in the spring.",
]

RAIL = [
    "Train drivers walked out on Tuesday morning, and most regional lines stopped running "
    "before seven o'clock as the rail strike began across the country.",
    "The union said the strike would last three days unless the operator improved its offer "
    "on pay and on the length of night shifts for drivers and guards.",
    "Commuters crowded onto buses and many offices told staff to work from home, while the "
    "motorways around the capital saw queues of more than ten kilometres.",
    "The transport minister called on both sides to return to talks and said the government "
    "was ready to mediate if the dispute continued into the weekend.",
]

MENU = """<nav class="site-nav"><ul>
<li><a href="/">Home</a></li><li><a href="/news">News</a></li>
<li><a href="/sport">Sport</a></li><li><a href="/culture">Culture</a></li>
<li><a href="/weather">Weather</a></li><li><a href="/about">About us</a></li>
</ul></nav>"""

FOOTER = """<footer><ul>
<li><a href="/privacy">Privacy</a></li><li><a href="/terms">Terms</a></li>
<li><a href="/contact">Contact</a></li><li><a href="/jobs">Jobs</a></li>
</ul><p>Copyright 2025 The Daily Example.</p></footer>"""

RELATED = """<aside class="related"><h3>More stories</h3><ul>
<li><a href="/news/new-bridge-opens">New bridge opens to traffic across the river</a></li>
<li><a href="/news/schools-reopen">Schools reopen after the winter storm damage</a></li>
<li><a href="/news/budget-vote">Council budget vote delayed until next month</a></li>
<li><a href="/news/museum">City museum doubles visitor numbers this year</a></li>
</ul></aside>"""


def article(
    headline: str,
    paragraphs: list[str],
    *,
    lang: str = "en",
    site: str = "The Daily Example",
    written: str = "",
) -> str:
    """Return a news article page; headline and paragraphs are inserted as given (raw HTML).

    written: the date its byline gives ("3 March 2025"); none by default.
    """
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    byline = f"By Ann Writer, {written}" if written else "By Ann Writer"
    return f"""<!doctype html><html lang="{lang}"><head><meta charset="utf-8">
<title>{headline} | {site}</title></head><body>
{MENU}
<main><article><h1>{headline}</h1><p class="byline">{byline}</p>
<div class="article-body">{body}</div></article>{RELATED}</main>
{FOOTER}</body></html>"""


def teaser(slug: str, headline: str, summary: str) -> str:
    """Return a teaser card: a headline link and a short summary of another page."""
    return (
        f'<article class="card"><h2><a href="/news/{slug}">{headline}</a></h2>'
        f"<p>{summary}</p><span>2 hours ago</span></article>"
    )


def front_page() -> str:
    """Return a hub page of teaser cards, one of them about solar subsidies."""
    cards = "".join(
        [
            teaser(
                "solar",
                "Council backs solar subsidies for households",
                "Households will get solar subsidies for panels installed before the end of next year.",
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
