"""Value assignments for a form (HiWE 3.3, 5.3): which values to submit, best first.

Each element gets a fuzzy set of values. A text box takes the values of the LVS row its label
matches (the users' keywords for a search box). A finite element keeps its default value, as
He et al. found default values retrieve the content on 94% of sites; it also tries the domain
values an admin's LVS row names for its label. HiWE would enumerate every finite value with
weight 1, which multiplies submissions by sort orders and page sizes that return the same
articles; the facets such values select are reached as second-level URLs instead.

An assignment's rank is the fuzzy conjunction (min), the average, or the probabilistic
combination (1 - prod(1 - w)) of its weights. Elements left at their default carry no
evidence and stay out of the rank (with weight 1 they would make every probabilistic rank 1).

Response analysis feeds back (HiWE 5.4): `with_feedback` scales each value's weight by how
often it returned results on this form before (`feedback_weight`), so values that yield
results rise and values that bring the "no results" page fall.
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from crawler.hiddenweb.lvs import ADMIN, USERS, LabelMatch, LabelValues, match_label
from crawler.sitesearch.analysis import Element, Form
from crawler.sitesearch.safety import has_search_signal
from crawler.sitesearch.template import SearchRequest, SearchTemplate, build_request

FUZZY = "fuzzy"
AVERAGE = "average"
PROBABILISTIC = "probabilistic"


@dataclass(frozen=True)
class Choice:
    """One value an element may take, its weight, and whether it counts in the rank."""

    value: str
    weight: float
    evidence: bool = True  # False for a default kept only because nothing better is known


@dataclass(frozen=True)
class ElementValues:
    """The fuzzy value set chosen for one element, best first."""

    element: Element
    choices: tuple[Choice, ...]
    match: LabelMatch | None = None
    keyword: bool = False  # the element takes users' keywords


@dataclass(frozen=True)
class Plan:
    """How to fill a form: the value set per element, or why the form cannot be filled."""

    form: Form
    sets: tuple[ElementValues, ...] = ()
    reason: str = ""  # non-empty when the form must not be submitted

    @property
    def submittable(self) -> bool:
        return not self.reason

    @property
    def keyword_element(self) -> Element | None:
        """Return the element that takes users' keywords, if one does."""
        return next((s.element for s in self.sets if s.keyword), None)


@dataclass(frozen=True)
class Assignment:
    """Values for every element of a form, with their rank."""

    values: tuple[tuple[str, str], ...]  # (element name, value), in form order
    rank: float
    keyword: str = ""  # the value given to the keyword element, "" when there is none

    def key(self) -> str:
        """Return a stable text key naming this assignment (for remembering it was tried)."""
        return json.dumps(self.values, ensure_ascii=False, separators=(",", ":"))


def plan_form(
    form: Form,
    rows: Sequence[LabelValues],
    *,
    threshold: float,
    alpha: int,
    language: str = "en",
) -> Plan:
    """Match every element of `form` against the LVS rows and say whether it may be submitted.

    HiWE's rule: the form needs at least `alpha` elements, and every text element must match
    an LVS row. A lone text box of a form that says it searches is the keyword box even when
    its label matches nothing (He et al.: 93% of search forms have exactly one). On a form
    with several boxes (an advanced search: words, author, dates) one box must take the
    users' keywords; the others that match nothing and are not required stay empty, as a
    person leaves them (He et al.: default values retrieve the content on 94% of sites),
    and so does every further box matching the keywords (only one box searches them).
    """
    if len(form.elements) < alpha:
        return Plan(form, reason=f"fewer than {alpha} elements")
    keywords = next((row for row in rows if row.source == USERS), None)
    lone_search_box = len(form.text_elements) == 1 and has_search_signal(form)
    sets: list[ElementValues] = []
    left_empty: list[str] = []
    for element in form.elements:
        label = element.label or element.name
        match = match_label(label, rows, threshold, language=language)
        if element.finite:
            sets.append(_finite_values(element, match))
            continue
        if lone_search_box and keywords is not None:
            match = _keyword_match(keywords, match, label, language)
        if match is not None and match.row.source == USERS and any(s.keyword for s in sets):
            match = None  # a second keyword box ("any of these words"): one box is enough
        if match is None:
            if element.required or len(form.text_elements) == 1:
                return Plan(form, reason=f"no LVS label matches {label!r}")
            left_empty.append(label)
            sets.append(ElementValues(element, (Choice(_default(element), 1.0, False),)))
            continue
        choices = tuple(
            Choice(value, weight)
            for value, weight in sorted(match.row.values, key=lambda vw: -vw[1])
            if value.strip()
        )
        if not choices:
            return Plan(form, reason=f"the LVS row {match.row.label!r} has no values")
        sets.append(ElementValues(element, choices, match, keyword=match.row.source == USERS))
    if left_empty and not any(s.keyword for s in sets):
        return Plan(form, reason=f"no LVS label matches {left_empty[0]!r}")
    return Plan(form, tuple(sets))


# An assignment ranked below this share of the best one, its values having brought the
# "no results" page again and again, is tried after all the others.
FALLEN = 0.5


def feedback_weight(weight: float, with_results: int, submissions: int) -> float:
    """Return a value's weight after its record on the form: raised by answers with results,
    lowered by "no results" pages (a smoothed success rate against an even prior)."""
    if submissions <= 0:
        return weight
    success = (with_results + 1) / (submissions + 2)
    return round(min(1.0, weight * 2 * success), 6)


Tallies = Mapping[tuple[str, str], tuple[int, int]]  # (element, value) -> (with results, sent)


def with_feedback(plan: Plan, tallies: Tallies) -> Plan:
    """Return the plan with each evidence value's weight moved by its record (`tallies`)."""
    if not plan.submittable or not tallies:
        return plan
    sets = []
    for values in plan.sets:
        name = values.element.name
        choices = [
            replace(
                c, weight=feedback_weight(c.weight, *tallies.get((name, bare(c.value)), (0, 0)))
            )
            if c.evidence
            else c
            for c in values.choices
        ]
        choices.sort(key=lambda c: (-c.weight, c.evidence))
        sets.append(replace(values, choices=tuple(choices)))
    return replace(plan, sets=tuple(sets))


def bare(value: str) -> str:
    """Return a value as tallied: a quoted phrase counts for the phrase."""
    return value.strip().strip('"').strip()


def _default(element: Element) -> str:
    return element.default[0] if element.default else ""


def _keyword_match(
    keywords: LabelValues, match: LabelMatch | None, label: str, language: str
) -> LabelMatch | None:
    """Return the match of a search form's only text box: the users' keywords, as a rule.

    The box is what the site searches with, so it takes what users want unless its label
    names another LVS row better than it names a search box ("Zip code" on a store finder).
    On a tie (an admin's or a learned "Search" row) that row's values are searched too,
    after the users' keywords of the same weight.
    """
    if match is None or match.row.source == USERS:
        return match or LabelMatch(keywords, 0.0, "")
    own = match_label(label, [keywords], 0.0, language=language)
    if own is None or own.score < match.score:
        return match
    values = dict(keywords.values)
    for value, weight in match.row.values:
        values.setdefault(value, weight)
    row = LabelValues(keywords.label, tuple(values.items()), keywords.aliases, USERS)
    return LabelMatch(row, own.score, own.matched)


def _finite_values(element: Element, match: LabelMatch | None) -> ElementValues:
    default = element.default[0] if element.default else ""
    choices = [Choice(default, 1.0, evidence=False)] if element.default else []
    if match is not None and match.row.source == ADMIN:
        for option in element.options:
            if option.value == default:
                continue
            weight = match.row.weight(option.text)
            if weight is None:
                weight = match.row.weight(option.value)
            if weight is not None and weight > 0:
                choices.append(Choice(option.value, weight))
    choices.sort(key=lambda c: (-c.weight, c.evidence))
    return ElementValues(element, tuple(choices), match)


def rank(weights: Sequence[float], ranking: str) -> float:
    """Return the rank of an assignment from the weights of its values (1.0 when none count)."""
    if not weights:
        return 1.0
    if ranking == FUZZY:
        return min(weights)
    if ranking == AVERAGE:
        return sum(weights) / len(weights)
    if ranking == PROBABILISTIC:
        return 1.0 - math.prod(1.0 - w for w in weights)
    raise ValueError(f"Unknown ranking {ranking!r}.")


def best_assignments(plan: Plan, ranking: str, limit: int) -> list[Assignment]:
    """Return the `limit` best assignments of a submittable plan, best first.

    1. Each value set is cut to its `limit` best values: a value ranked lower in its own set
       cannot be in the top `limit` while the others stay fixed.
    2. Sets are cut further while the product exceeds `MAX_PRODUCT` (many-element forms).
    3. The product is ranked; ties keep the order of the value sets (defaults first).
    """
    if not plan.submittable or limit <= 0:
        return []
    sets = [s for s in plan.sets if s.choices]
    if not sets:
        return [Assignment((), 1.0)]
    sizes = [min(len(s.choices), limit) for s in sets]
    while math.prod(sizes) > MAX_PRODUCT:
        largest = max(range(len(sizes)), key=sizes.__getitem__)
        sizes[largest] = max(1, sizes[largest] // 2)
    ranked = heapq.nsmallest(
        limit,
        itertools.product(*(range(size) for size in sizes)),
        key=lambda indexes: (-_score(sets, indexes, ranking), indexes),
    )
    return [_assignment(sets, indexes, _score(sets, indexes, ranking)) for indexes in ranked]


# Most assignments ranked for one form; far beyond any sensible Smax.
MAX_PRODUCT = 200_000


def _score(sets: Sequence[ElementValues], indexes: tuple[int, ...], ranking: str) -> float:
    chosen = [s.choices[i] for s, i in zip(sets, indexes, strict=True)]
    return rank([c.weight for c in chosen if c.evidence], ranking)


def _assignment(
    sets: Sequence[ElementValues], indexes: tuple[int, ...], value: float
) -> Assignment:
    pairs = []
    keyword = ""
    for values, index in zip(sets, indexes, strict=True):
        choice = values.choices[index]
        pairs.append((values.element.name, choice.value))
        if values.keyword:
            keyword = choice.value
    return Assignment(tuple(pairs), round(value, 6), keyword)


def template_for(plan: Plan) -> SearchTemplate | None:
    """Return the URL template of a submittable plan with a keyword element, else None."""
    keyword = plan.keyword_element
    if not plan.submittable or keyword is None:
        return None
    defaults = {s.element.name: s.choices[0].value for s in plan.sets if s.choices}
    return SearchTemplate.of_form(plan.form, keyword.name, defaults)


def request_for_assignment(form: Form, assignment: Assignment) -> SearchRequest:
    """Return the request that submits `form` filled with `assignment`."""
    pairs = form.fill(dict(assignment.values))
    return build_request(form.action, form.method, pairs, form.enctype)
