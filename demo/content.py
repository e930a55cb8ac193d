"""Articles of the demo news site: real-looking text, deterministic, one new story every few minutes."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

SECTIONS = {
    "energy": "Energy",
    "transport": "Transport",
    "economy": "Economy",
    "science": "Science",
    "sports": "Sports",
}

# Each story: section, headline, and paragraphs. Words users are likely to follow appear in several
# inflected forms and with synonyms ("car" / "automobile", "subsidy" / "subsidies").
STORIES: list[tuple[str, str, list[str]]] = [
    (
        "energy",
        "Government doubles solar subsidies for households",
        [
            "The government announced on Monday that it will double the subsidies paid to households that install solar panels on their roofs.",
            "Officials said the scheme would cost 1.2 billion euros over three years. Installers welcomed the decision, which follows months of falling orders.",
            "Critics argued that the subsidy favours home owners over tenants. The energy minister said a second programme for rented flats would follow in spring.",
        ],
    ),
    (
        "transport",
        "Rail strike halts commuter trains across the region",
        [
            "Commuter trains stood still on Tuesday as drivers walked out in a dispute over pay and rosters.",
            "The union said the strike would last 48 hours unless the operator returned to talks. Buses were added on the busiest routes, but queues formed early at every stop.",
            "Business groups warned that a longer stoppage would hurt shops in the city centre.",
        ],
    ),
    (
        "transport",
        "Automobile makers bet on smaller electric models",
        [
            "Several automobile makers unveiled smaller and cheaper electric models at the motor show this week.",
            "Executives said buyers had been put off by the price of large battery vehicles. A compact model from one maker will sell for under 20,000 euros.",
            "Analysts expect the segment to grow quickly once charging points become common in suburbs.",
        ],
    ),
    (
        "economy",
        "Central bank holds interest rates as inflation eases",
        [
            "The central bank kept its main interest rate unchanged on Thursday, saying inflation had eased for the third month in a row.",
            "Prices rose 2.4 per cent in the year to October, down from 3.1 per cent in the summer. The governor said the bank was not yet ready to cut.",
            "Markets had expected the decision. Mortgage lenders said fixed rates were likely to fall slightly before the end of the year.",
        ],
    ),
    (
        "science",
        "Researchers map the deep-sea cables of the North Atlantic",
        [
            "A team of oceanographers has produced the most detailed map yet of the undersea cables that cross the North Atlantic.",
            "The map shows 87 cables, some laid more than 30 years ago. Dr. Elena Markou, who led the survey, said several old lines were at risk from fishing gear.",
            "The researchers will share the data with cable operators and coast guards.",
        ],
    ),
    (
        "energy",
        "Wind farm approved off the northern coast",
        [
            "Planners approved a 600-megawatt wind farm off the northern coast after a two-year review.",
            "The developer said construction would start next year and create about 400 jobs. Fishing groups asked for compensation for lost grounds.",
            "The project does not rely on public subsidies, according to the developer.",
        ],
    ),
    (
        "sports",
        "City club wins the cup after a late penalty",
        [
            "A penalty in the last minute gave the city club its first cup in eleven years.",
            "Supporters filled the main square until after midnight. The coach praised a young defender who had blocked two shots on the line.",
        ],
    ),
    (
        "economy",
        "Small firms report slower growth in orders",
        [
            "Orders at small manufacturing firms grew more slowly in the autumn, a survey of 1,500 companies found.",
            "Many firms blamed higher energy bills and the cost of borrowing. Exporters did better than companies that sell at home.",
            "The chamber of commerce asked the government to extend energy subsidies for small firms into next year.",
        ],
    ),
    (
        "transport",
        "New tram line opens to passengers",
        [
            "The first passengers rode the new tram line on Saturday, three months later than planned.",
            "The line links the university with the main station in 14 minutes. The city expects 30,000 trips a day once schools return.",
        ],
    ),
    (
        "science",
        "Drought study finds olive harvests at risk",
        [
            "Olive harvests in southern Europe could fall by a quarter within a decade if dry summers continue, a new study warns.",
            "The researchers combined forty years of harvest records with climate models. Farmers who irrigate were hit less hard.",
            "The authors call for water-saving methods and new varieties that flower earlier.",
        ],
    ),
]

# Stories that appear later, one every `publish_every` seconds after the site starts.
LATER_STORIES: list[tuple[str, str, list[str]]] = [
    (
        "energy",
        "Solar subsidies drive record panel installations",
        [
            "Installers fitted a record number of rooftop solar panels last month, a trade body said.",
            "It credited the larger household subsidies announced in the spring. Waiting lists for installers now run to eight weeks in some towns.",
            "Grid operators said they were adding capacity to cope with sunny afternoons.",
        ],
    ),
    (
        "transport",
        "Drivers union calls second rail strike",
        [
            "The drivers union called a second rail strike for next week after talks with the operator broke down.",
            "The operator said it had offered a four per cent pay rise. Commuters were advised to work from home if they could.",
        ],
    ),
    (
        "transport",
        "Car sharing grows in the suburbs",
        [
            "Car sharing schemes signed up 12,000 new members in the suburbs this year, twice as many as last year.",
            "Users said they saved money by giving up a second automobile. Councils are adding reserved parking bays near stations.",
        ],
    ),
    (
        "economy",
        "Inflation falls below three per cent",
        [
            "Inflation fell below three per cent for the first time in two years, official figures showed.",
            "Food prices rose more slowly and fuel became cheaper. Economists said the central bank could cut rates early next year.",
        ],
    ),
]

# Archive stories reachable only through the site's search form (the hidden web).
ARCHIVE_STORIES: list[tuple[str, str, list[str]]] = [
    (
        "energy",
        "Archive: the first solar subsidy scheme, ten years on",
        [
            "Ten years ago the first solar subsidy scheme paid households a fixed price for every unit they produced.",
            "A review of the scheme found that most panels installed then still work. Some owners now plan to add batteries.",
        ],
    ),
    (
        "transport",
        "Archive: how the great rail strike of 1989 ended",
        [
            "The great rail strike of 1989 lasted six weeks and ended with a compromise on working hours.",
            "Historians say it changed how the operator negotiated with its staff for a generation.",
        ],
    ),
]

AUTHORS = [
    "Maria Georgiou",
    "Tom Fletcher",
    "Anna Lind",
    "Nikos Papadakis",
    "Claire Dubois",
    "Jonas Weber",
]


@dataclass(frozen=True)
class Article:
    number: int
    slug: str
    section: str
    title: str
    paragraphs: tuple[str, ...]
    author: str
    published: datetime
    archived: bool = False

    @property
    def url(self) -> str:
        return f"/article/{self.slug}/"

    @property
    def teaser(self) -> str:
        return self.paragraphs[0]


def slugify(title: str) -> str:
    keep = "".join(c.lower() if c.isalnum() else "-" for c in title)
    return "-".join(part for part in keep.split("-") if part)


def build_articles(
    started: datetime, now: datetime, publish_every: float, by_hand: list[datetime] | None = None
) -> list[Article]:
    """Every article visible at `now`, newest first; one of the later stories appears per interval."""
    rng = random.Random(7)
    articles: list[Article] = []
    base = started - timedelta(days=len(STORIES))
    for i, (section, title, paragraphs) in enumerate(STORIES):
        articles.append(
            Article(
                i,
                slugify(title),
                section,
                title,
                tuple(paragraphs),
                rng.choice(AUTHORS),
                base + timedelta(days=i),
            )
        )
    by_time = int((now - started).total_seconds() // publish_every) if publish_every > 0 else 0
    by_hand = by_hand or []
    visible_later = max(by_time, len(by_hand))
    for j, (section, title, paragraphs) in enumerate(LATER_STORIES[:visible_later]):
        published = (
            by_hand[j] if j < len(by_hand) else started + timedelta(seconds=publish_every * (j + 1))
        )
        articles.append(
            Article(
                len(STORIES) + j,
                slugify(title),
                section,
                title,
                tuple(paragraphs),
                rng.choice(AUTHORS),
                published,
            )
        )
    for k, (section, title, paragraphs) in enumerate(ARCHIVE_STORIES):
        articles.append(
            Article(
                100 + k,
                slugify(title),
                section,
                title,
                tuple(paragraphs),
                rng.choice(AUTHORS),
                base - timedelta(days=3650 - k),
                archived=True,
            )
        )
    return sorted(articles, key=lambda a: a.published, reverse=True)


def utcnow() -> datetime:
    return datetime.now(UTC)
