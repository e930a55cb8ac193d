"""The Page Analyzer's results: plain typed dataclasses with a to_dict() for JSON."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

AreaKind = Literal["information", "hub", "navigation", "other"]
PageKind = Literal["information", "hub"]


def _jsonable(value: Any) -> Any:
    """Return value with infinities made JSON-safe."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    return value


@dataclass(slots=True)
class Link:
    """A link of the page and the kind of area it sits in."""

    url: str
    """Absolute URL (resolved against the page URL and <base href>), fragment removed."""
    text: str
    """Anchor text, white space collapsed."""
    context: str
    """Text of the block the link sits in (at most CONTEXT_CHARS characters)."""
    area_kind: AreaKind
    area_path: str
    """Path of the area holding the link, or of the link's parent element if none does."""
    path: str
    """Path of the <a> element itself."""
    rel: tuple[str, ...] = ()
    nofollow: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Return the link as JSON-ready data."""
        return _jsonable(dataclasses.asdict(self))  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Area:
    """A subtree of the page with the paper's metrics, in characters."""

    path: str
    """Node path such as "html/body/div[2]/article[1]" (same-name sibling positions)."""
    selector: str
    """CSS selector that finds the same element, e.g. "#main > article:nth-of-type(1)"."""
    text: str
    iv: float
    """Informational value I_p (WeightIV 2 for table and list tags, 1 otherwise)."""
    hv: int
    """Hub value H_p: the links below the node."""
    ltr: float
    """Ctext / Ltext, with Ltext counted as 1 when there is no link text."""
    lar: float
    """L(p) / Ltext, with Ltext counted as 1 when there is no link text."""
    text_chars: int
    """T(p): non-space characters below the node."""
    link_chars: int
    """Ltext: non-space characters inside links."""
    link_count: int
    """L(p): links below the node."""
    reason: str
    """Why the area got its kind, in words (shown by --explain)."""
    links: tuple[Link, ...] = ()

    @property
    def clean_chars(self) -> int:
        """Return Ctext, the characters outside links."""
        return self.text_chars - self.link_chars

    def to_dict(self) -> dict[str, Any]:
        """Return the area as JSON-ready data."""
        data = dataclasses.asdict(self)
        data["kind"] = type(self).__name__
        return _jsonable(data)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class InfoArea(Area):
    """An informational area: text worth clipping."""

    title: str = ""
    """The area's title by Algorithm 2's heuristics (heading, rare style, first sentence)."""
    teaser: bool = False
    """A card summarising another page; clips come from that page, not from this one."""
    follow_url: str | None = None
    """For a teaser, the article it summarises; Algorithm 2 follows it."""
    main: bool = False
    """The page's article body (its text is main_text)."""


@dataclass(frozen=True)
class HubArea(Area):
    """A hub area: links that lead to articles."""


@dataclass(frozen=True)
class NavArea(Area):
    """A navigational area: menus, footers, tag clouds, share bars (site chrome)."""


@dataclass(frozen=True)
class Clip:
    """A titled piece of an informational area around one term occurrence."""

    title: str
    summary: str
    """The sentence before, the sentence with the term, and the sentence after."""
    term: str
    """The term as the caller gave it."""
    span: tuple[int, int]
    """[start, end) of the matched words inside summary."""
    matched: str
    """The words of the page that matched (e.g. "subsidies" for the term "subsidy")."""
    area_path: str
    url: str | None

    def to_dict(self) -> dict[str, Any]:
        """Return the clip as JSON-ready data."""
        return _jsonable(dataclasses.asdict(self))  # type: ignore[no-any-return]


@dataclass(frozen=True)
class FollowHint:
    """A term found in a teaser: tell the user about the article it links to instead."""

    url: str
    """The article to fetch and clip."""
    term: str
    title: str
    """The teaser's headline (the link's anchor text)."""
    teaser: str
    """The teaser's summary text."""
    area_path: str
    page_url: str | None

    def to_dict(self) -> dict[str, Any]:
        """Return the hint as JSON-ready data."""
        return _jsonable(dataclasses.asdict(self))  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Thresholds:
    """Algorithm 1's stop thresholds as adapted to one page."""

    iv: float
    hv: float


@dataclass
class PageAnalysis:
    """Everything the Page Analyzer learns about one page."""

    url: str | None
    kind: PageKind
    kind_score: float
    """In [0, 1]; 0.5 and above is an information page."""
    title: str
    language: str
    main_text: str
    informational_areas: list[InfoArea] = field(default_factory=list)
    hub_areas: list[HubArea] = field(default_factory=list)
    navigational_areas: list[NavArea] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    text: str = ""
    """All visible text of the page, one block per line."""
    encoding: str | None = None
    """Codec the bytes were decoded with (None for str input)."""
    thresholds: Thresholds = field(default_factory=lambda: Thresholds(0.0, 0.0))
    published: tuple[datetime, ...] = ()
    """For an article: the publication times it declares, most trusted first (UTC)."""
    measures: tuple[int, float] | None = None
    """The page's article prose (characters) and LTR the kind was weighed by; None when empty."""

    def to_dict(self) -> dict[str, Any]:
        """Return the whole analysis as JSON-ready data."""
        data = dataclasses.asdict(self)
        for name, areas in (
            ("informational_areas", self.informational_areas),
            ("hub_areas", self.hub_areas),
            ("navigational_areas", self.navigational_areas),
        ):
            data[name] = [area.to_dict() for area in areas]
        return _jsonable(data)  # type: ignore[no-any-return]
