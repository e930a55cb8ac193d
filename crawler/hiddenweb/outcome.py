"""What searching one form did, shared by the session that does it and the store that keeps it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SearchLog:
    """One text typed into the form: what it was for, the pages walked, the results found."""

    query: str
    keyword: str
    form: str  # TYPED, QUOTED, INFLECTED, SYNONYM or ENTITY
    had_results: bool = False
    pages: int = 0  # result pages read (the answer and the further pages of its list)
    results: list[str] = field(default_factory=list)  # new to this form's run, in order
    stopped: str = ""  # why the walk ended: "no new results", "no match", "page limit"...


@dataclass
class FormOutcome:
    """What searching one form did: counts for the run report and the found result links."""

    action: str
    method: str
    status: str
    reason: str = ""
    form_id: int | None = None
    probes: int = 0
    submissions: int = 0
    with_results: int = 0
    result_pages: int = 0  # first-level answers and their list pages fetched
    second_level_found: int = 0  # distinct URLs on result pages that are not results
    second_level_kept: int = 0  # of those, carrying the keyword-query argument
    second_level_deduped: int = 0  # of those, left after deduplication
    second_level_fetched: int = 0
    results: list[str] = field(default_factory=list)  # absolute result links, in order found
    searches: list[SearchLog] = field(default_factory=list)
    style: str = ""  # what the site's search was found to do (quotes, stemming)

    @property
    def efficiency(self) -> float | None:
        """Return the share of submissions that returned results, None before any."""
        return self.with_results / self.submissions if self.submissions else None
